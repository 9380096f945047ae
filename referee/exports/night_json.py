"""The JSON export of a night: its facts (players, matches' options and logs, payment rows), never its states.

:mod:`.replay` reads it back; :data:`FORMAT` and :data:`VERSION` name the shape both sides agree on.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select

from referee import pots
from referee.ledger import night_money
from referee.ledger.fingerprint import night_chain
from referee.models import Night, Payment, db, now

#: An event's facts and correction marks (issue 42): exported where set, and replayed on import.
KEPT = ("facts", "corrects", "corrected_by")

#: Identifies the file; ``version`` changes whenever the shape does (an old
#: reader then refuses a new file instead of misreading it).
FORMAT = "referee-night"
VERSION = 2
#: Files of these versions are read; version 1 was written before the night's hash chain (no
#: ``fingerprint``, no ``link``s: imported without a check of the chain).
READS = (1, 2)


def iso(moment: datetime) -> str:
    """A stored (naive UTC) time as the API writes it: ISO 8601 with ``Z``."""
    return moment.isoformat() + "Z"


def payment_rows(night: Night) -> list[Payment]:
    return list(db.session.scalars(select(Payment).where(Payment.night_id == night.id).order_by(Payment.id)))


def export_night(night: Night) -> dict[str, Any]:
    """Everything needed to rebuild the night elsewhere, as plain JSON data.

    The facts only (logs, options, payment rows), never derived states: the
    import replays the logs, so what it shows is what the rules give.
    Tokens are left out on purpose: whoever holds the file should not get
    edit rights to the original night. The night's hash chain comes along
    (:mod:`referee.ledger.fingerprint`): its ``fingerprint`` and each
    event's ``link`` (a void's as ``void_link``), which the import checks.
    """
    money = night_money(night)
    chain = night_chain(night)
    links = chain.links
    matches = []
    for number, match in enumerate(night.matches, start=1):
        matches.append({
            "game": match.game,
            "seats": list(match.seats),
            "first_dealer": match.first_dealer,
            "stake_minor": match.stake,
            "stake": money.format(match.stake),
            "options": dict(match.options),
            "carried_in_minor": match.carried_in,
            "carried_in": money.format(match.carried_in),
            "status": match.status,
            "created_at": iso(match.created_at),
            "link": links[("match", number, 0)],
            "rounds": [{
                "seq": rnd.seq,
                "kind": rnd.kind,
                "payload": rnd.payload,
                "void": rnd.void,
                "void_reason": rnd.void_reason,
                "created_at": iso(rnd.created_at),
                "link": links[("log", number, rnd.seq)],
            } | _void_link(links, ("log_void", number, rnd.seq), rnd.voided_at)
              | ({"deal": rnd.deal} if rnd.deal is not None else {})
              | {name: getattr(rnd, name) for name in KEPT if getattr(rnd, name) is not None}
            for rnd in match.rounds],
        })
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": iso(now()),
        "fingerprint": chain.fingerprint,
        "currency": night.currency,
        "minor_digits": money.digits,
        "night": {
            "name": night.name,
            "date": night.date.isoformat() if night.date else None,
            "place": night.place,
            "leader": night.leader,
            "currency": night.currency,
            "group": night.group.name,
            "created_at": iso(night.created_at),
        },
        "players": [{
            "name": seat.player.name,
            "swish": seat.player.swish,
            "iban": seat.player.iban,
            "account_holder": seat.player.account_holder,
        } for seat in night.seats],
        "matches": matches,
        "payments": [{
            "kind": row.kind,
            **pots.parties_json(row.payer, row.payee, ("payer", "payee")),  # the pot by a flag, not a name
            "amount_minor": row.amount,
            "amount": money.format(row.amount),
            "carry_id": row.carry_id,
            "void": row.void,
            "void_reason": row.void_reason,
            "created_at": iso(row.created_at),
            "link": links[("payment", number, 0)],
        } | _void_link(links, ("payment_void", number, 0), row.voided_at)
            for number, row in enumerate(payment_rows(night), start=1)],
    }


def _void_link(links: dict[tuple[str, int, int], str], ref: tuple[str, int, int],
               voided_at: datetime | None) -> dict[str, str]:
    """A void's time (when kept) and its link, beside the voided event; nothing for an event not void."""
    if ref not in links:
        return {}
    return {"void_link": links[ref]} | ({"voided_at": iso(voided_at)} if voided_at is not None else {})

