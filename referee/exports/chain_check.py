"""An import's check of the night's hash chain: every event's ``link`` and the ``fingerprint`` must hold.

Why: an export is a backup and a record; one amount, one name, one moved or
dropped event in it would otherwise be imported as the night that was
played (issue 46.2). The chain is worked out from the file's facts as
:mod:`referee.ledger.fingerprint` works it out from the rows, so an imported
night has the fingerprint of its export. Runs after the logs replayed (a
round the rules refuse is answered with its rule first) and before
anything is written; a broken chain is a ``400`` on the field ``events``.

A file of version 1 was written before the chain and has none to check.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.engine import BadInput
from referee.ledger import fingerprint as fp
from referee.ledger.imports import PaymentIn
from referee.ledger.matches import MatchIn


def facts(matches_in: Sequence[MatchIn], payments_in: Sequence[PaymentIn]) -> fp.Chain:
    """The chain of the night the file describes (matches numbered in the file's order, as imported)."""
    matches = [fp.MatchFact(n, m.game, m.seats, m.first_dealer, m.stake, m.options, m.carried_in, m.created_at)
               for n, m in enumerate(matches_in, start=1)]
    log = [fp.LogFact(n, ev.seq, ev.kind, ev.payload, ev.created_at, ev.void, ev.void_reason, ev.voided_at,
                      ev.corrects, ev.corrected_by)
           for n, m in enumerate(matches_in, start=1) for ev in m.events]
    pays = [fp.PaymentFact(n, p.kind, p.payer, p.payee, p.amount, p.created_at, p.void, p.void_reason, p.voided_at)
            for n, p in enumerate(payments_in, start=1)]
    return fp.chain(matches, log, pays)


def _file_links(top: Mapping[str, Any]) -> dict[tuple[str, int, int], tuple[str, object]]:
    """Each link the file holds, by the event it stands beside, with the place it stands at."""
    out: dict[tuple[str, int, int], tuple[str, object]] = {}
    for k, match in enumerate(top.get("matches") or [], start=1):
        out[("match", k, 0)] = (f"matches[{k - 1}]", match.get("link"))
        for j, rnd in enumerate(match.get("rounds") or []):
            where = f"matches[{k - 1}].rounds[{j}]"
            out[("log", k, rnd["seq"])] = (where, rnd.get("link"))
            if "void_link" in rnd:
                out[("log_void", k, rnd["seq"])] = (f"{where}.void_link", rnd["void_link"])
    for k, pay in enumerate(top.get("payments") or [], start=1):
        out[("payment", k, 0)] = (f"payments[{k - 1}]", pay.get("link"))
        if "void_link" in pay:
            out[("payment_void", k, 0)] = (f"payments[{k - 1}].void_link", pay["void_link"])
    return out


def check_chain(top: Mapping[str, Any], matches_in: Sequence[MatchIn], payments_in: Sequence[PaymentIn]) -> None:
    """Refuses (``BadInput("events")``) a file of version 2 whose links or fingerprint do not hold."""
    if top.get("version") == 1:
        return
    chain = facts(matches_in, payments_in)
    held = _file_links(top)
    count = len(chain.events)
    for number, event in enumerate(chain.events, start=1):
        where, link = held.pop(event.ref, ("", None))
        if link != event.link:
            raise BadInput("events", "The night's hash chain does not hold at event %(number)s of %(count)s "
                                     "(%(where)s): an event was changed, moved, added or dropped.",
                           number=number, count=count, where=where or event.body["event"])
    if held:  # a void's link beside an event that is not void
        where = sorted(w for w, _link in held.values())[0]
        raise BadInput("events", "%(where)s has a link for an event the night does not have.", where=where)
    if top.get("fingerprint") != chain.fingerprint:
        raise BadInput("events", "The night's fingerprint is not the last link of its chain: an event was "
                                 "changed, added or dropped.")
