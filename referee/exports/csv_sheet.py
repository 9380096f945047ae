"""The CSV export of a night, for spreadsheets only (it is not read back).

One row per logged event, per player result of a match, per payment row and
per transfer still to pay; free text is kept from being run as a formula.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from referee import ledger, pots
from referee.exports.night_json import iso, payment_rows
from referee.ledger import night_money, payments
from referee.models import Night

#: ``pot`` names the column of the row that is the pot (``player``, ``from`` or ``to``, then left empty).
CSV_COLUMNS = ("type", "match", "game", "round", "kind", "player", "from", "to", "amount", "currency",
               "void", "void_reason", "summary", "created_at", "deal", "pot")


def _safe_cell(text: str) -> str:
    """Text a spreadsheet will show as text, never run as a formula.

    A player named ``=HYPERLINK(...)`` would otherwise become a live formula
    in the leader's spreadsheet (CSV injection); such cells get a leading
    apostrophe. Only free-text columns pass through here, never amounts.
    """
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def export_csv(night: Night) -> str:
    """The night as CSV for a spreadsheet (UTF-8 text; see :data:`CSV_COLUMNS`).

    Row types: ``round`` (one per logged event, its payload as compact JSON
    in ``summary`` and the trick referee's deal log, if any, in ``deal``),
    ``result`` (each player's result per match, and the money still in its
    pot as a row whose ``pot`` column says ``player``, so a match's rows sum
    to zero; the pot is never named like a player, see :mod:`referee.pots`),
    ``payment`` (every payment row: payments, opening balances, carried-out
    debts, void ones included and marked) and ``transfer`` (the plan for what
    is still open). Amounts are decimal strings in the night's currency
    (``"12.50"``), signed for results and carries.
    """
    money = night_money(night)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\r\n")
    writer.writeheader()
    cur = night.currency

    def row(**values: Any) -> None:
        writer.writerow({key: values.get(key, "") for key in CSV_COLUMNS})

    for match in night.matches:
        for rnd in match.rounds:
            row(type="round", match=match.id, game=match.game, round=rnd.seq, kind=rnd.kind,
                void=_flag(rnd.void), void_reason=_safe_cell(rnd.void_reason),
                summary=_compact(rnd.payload), created_at=iso(rnd.created_at),
                deal=_compact(rnd.deal) if rnd.deal else "")
    settlement = payments.settlement(night)
    for match, amounts in settlement.per_match:
        for name, amount in amounts.items():
            row(type="result", match=match.id, game=match.game, player=_safe_cell(name),
                amount=money.format(amount), currency=cur)
        state = ledger.state_of(match)
        held = state.pot - getattr(state, "carried_in", 0)
        if held:
            row(type="result", match=match.id, game=match.game, pot="player",
                amount=money.format(held), currency=cur)
    for pay in payment_rows(night):
        row(type="payment", kind=pay.kind, **_csv_parties(pay.payer, pay.payee),
            amount=money.format(pay.amount), currency=cur, void=_flag(pay.void),
            void_reason=_safe_cell(pay.void_reason), created_at=iso(pay.created_at))
    for transfer in settlement.plan.transfers:
        row(type="transfer", **_csv_parties(transfer.payer, transfer.payee),
            amount=money.format(transfer.amount), currency=cur)
    return out.getvalue()


def _csv_parties(payer: str, payee: str) -> dict[str, str]:
    """``from``/``to`` cells: players' names; the pot's cell left empty and named in the ``pot`` column."""
    parties = pots.parties_json(payer, payee)
    pot = "from" if parties["from_pot"] else "to" if parties["to_pot"] else ""
    return {"from": _safe_cell(parties["from"] or ""), "to": _safe_cell(parties["to"] or ""), "pot": pot}


def _compact(value: Any) -> str:
    """A stored JSON value (a payload, a deal log) in one cell: compact, keys sorted, non-ASCII kept."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _flag(value: bool) -> str:
    return "true" if value else "false"

