"""The events of a night's hash chain in words: what changed since a phone last looked (issue 46.2).

The night page remembers, per night, the fingerprint and the number of
events it last showed (the phone's ``localStorage``); on its next visit it
asks for the events after that point (``GET /nights/<id>/changes`` for the
page, ``GET /api/nights/<id>/events`` for a client) and lists them: "Void of
round 7 of match 2 (Svängknack)", "Anna paid 10,00 kr to Bo". The chain
itself is :mod:`referee.ledger.fingerprint`; this module only words it, in
the request's language, and shapes it for the API (never the pot's label
as a name, never a database id).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask_babel import gettext as _

from referee import pots
from referee.engine import BadInput
from referee.engine.money import Money
from referee.engine.spec import spec
from referee.ledger import POT_PARTY
from referee.ledger.fingerprint import Chain, Event
from referee.models import Night


def seen_count(raw: str | None) -> int:
    """``?after=``: how many events of the chain the phone saw (0 when not given); ``BadInput`` on anything else."""
    if raw in (None, ""):
        return 0
    if not raw.isdigit() or len(raw) > 9:
        raise BadInput("after", "after must be a whole number of events, 0 or more.")
    return int(raw)


def _party(name: str) -> str:
    return _("the pot") if name == POT_PARTY else name


def _game(night: Night, number: int) -> str:
    matches = night.matches
    return spec(matches[number - 1].game).title if 0 < number <= len(matches) else "?"


def describe(event: Event, chain: Chain, night: Night, amount: Callable[[int], str]) -> str:
    """One event as a sentence a player understands; ``amount`` writes an amount of minor units.

    The API writes amounts as it always does (``"12.50"``), a page as the reader's language does
    (``12,50 kr``).
    """
    body = event.body
    kind = str(body["event"])
    if "match" in body:
        where = {"match": body["match"], "game": _game(night, int(body["match"])), "seq": body.get("seq")}
        if body.get("corrects") is not None:
            return _("Correction of round %(corrects)s of match %(match)s (%(game)s)", corrects=body["corrects"],
                     **where)
        if kind == "match":
            return _("Match %(match)s (%(game)s) started", **where)
        if kind == "void":
            return _("Void of round %(seq)s of match %(match)s (%(game)s)", **where)
        if kind == "round":
            return _("Round %(seq)s of match %(match)s (%(game)s)", **where)
        if kind == "close":
            return _("Match %(match)s (%(game)s) closed", **where)
        return _("Entry %(seq)s (%(kind)s) of match %(match)s (%(game)s)", kind=kind, **where)
    if kind == "void":
        paid = next((ev.body for ev in chain.events if ev.ref == ("payment", body["payment"], 0)), None)
        if paid is None:
            return _("Void of payment %(number)s", number=body["payment"])
        return _("Void of a payment: %(payer)s to %(payee)s, %(amount)s", payer=_party(str(paid["payer"])),
                 payee=_party(str(paid["payee"])), amount=amount(int(paid["amount"])))
    words = {"payer": _party(str(body["payer"])), "payee": _party(str(body["payee"])),
             "amount": amount(int(body["amount"]))}
    if kind == "payment":
        return _("Payment: %(payer)s paid %(amount)s to %(payee)s", **words)
    if kind == "opening":
        return _("Opening balance of %(payer)s carried in: %(amount)s", **words)
    if kind == "carry_out":
        return _("%(payer)s's open balance carried to a later night: %(amount)s", **words)
    if kind == "prize":
        return _("Tournament fee and prize of %(payer)s: %(amount)s", **words)
    return _("%(kind)s: %(payer)s, %(amount)s", kind=kind, **words)


def event_json(number: int, event: Event, chain: Chain, night: Night, money: Money) -> dict[str, Any]:
    """An event as ``GET /api/nights/<id>/events`` lists it: its number in the chain, its kind, its link, its words."""
    body = event.body
    out: dict[str, Any] = {"number": number, "event": body["event"], "at": body["at"], "link": event.link,
                           "what": describe(event, chain, night, money.format)}
    if "match" in body:
        out["match"] = body["match"]
        if "seq" in body:
            out["round"] = body["seq"]
    elif "payment" in body:
        out["payment"] = body["payment"]
        if "amount" in body:
            out |= pots.parties_json(str(body["payer"]), str(body["payee"]) or None)
            out["amount"] = money.format(int(body["amount"]))
    return out

