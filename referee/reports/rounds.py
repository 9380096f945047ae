"""The rounds of a Svängknack protocol as a text grid (see :mod:`referee.reports.grid`).

The cells say what the former HTML table said, word for word; only the
layout changed (one line per round instead of nine boxes).
"""

from __future__ import annotations

from collections.abc import Sequence

from flask_babel import gettext as _

from referee.models import Round
from referee.reports.grid import GAP, PAGE_CHARS, Column, Grid, Row, fit
from referee.reports.step import Step
from referee.web.amounts import num
from referee.web.titles import entry_number


def _no(rnd: Round) -> str:
    """An entry's number in a protocol's first column as the table counts it (none for a close)."""
    return str(entry_number(rnd) or "")


def _pairs(items: dict[str, object]) -> str:
    return ", ".join(f"{name} {num(value)}" for name, value in items.items())


#: How a closed match's pot went, in words (the close's payload says "split", "award" or "carry").
_POT_HOW = {"split": "split among all players", "award": "to one player", "carry": "carried to the next night"}


def pot_word(how: object) -> str:
    """The close's pot choice in the reader's words, not its code."""
    return _(_POT_HOW[str(how)]) if str(how) in _POT_HOW else str(how)


def closed_cell(step: Step) -> str:
    """The note of a close event: "Closed: <pot> → <to>" (and the void reason)."""
    p = step.round.payload
    text = f"{_('Closed')}: {pot_word(p.get('pot', ''))}" + (f" → {p['to']}" if p.get("to") else "")
    return text + (f" · {_('void')}: {step.round.void_reason}" if step.round.void else "")


def svangknack_grid(steps: Sequence[Step]) -> Grid:
    columns = [Column("#", right=True), Column(_("Dealer")), Column(_("Svängare")),
               Column(_("Knocked and tricks"), wrap=True), Column(_("Pot before"), right=True),
               Column(_("Per trick"), right=True), Column(_("Bet payments"), wrap=True),
               Column(_("Pot after"), right=True), Column(_("Notes"), wrap=True)]
    rows = []
    for s in steps:
        r, p = s.round, s.round.payload
        if r.kind == "close":
            rows.append(Row([_no(r), "", "", "", "", "", "", "", closed_cell(s)], r.void))
            continue
        last = None if r.void else s.after.get("last")
        svangare = str(p.get("svangare") or s.before.get("svangare") or "")
        if last and last.get("passed"):
            svangare += f" ({_('passed')})"
        participants = p.get("participants") or []
        tricks = p.get("tricks") or {}
        knocked = _("alone") if len(participants) == 1 else ", ".join(f"{n} {tricks.get(n, 0)}" for n in participants)
        if r.void:
            note = f"{_('void')}: {r.void_reason}"
        else:
            note = " ".join(([_("redeal")] if p.get("redeal") else [])
                            + ([f"{_('new stake')} {num(p['new_stake'])}"] if p.get("new_stake") else []))
        rows.append(Row([_no(r), str(s.before.get("dealer", "")), svangare, knocked, num(s.before.get("pot", "")),
                         num(s.before.get("trick_value", "")), _pairs(last.get("bet", {})) if last else "",
                         num(s.after.get("pot", "")), note], r.void))
    return fit(columns, rows)


def balance_grids(steps: Sequence[Step], seats: Sequence[str]) -> list[Grid]:
    """The running balance of every player after each counted round, in as few grids as fit the page.

    The players are split evenly over the grids (16 players: two grids of 8).
    """
    counted = [s for s in steps if not s.round.void]
    whole = _balances(counted, seats)
    widths = list(whole.widths[1:])
    per_line, used = 0, whole.widths[0]
    for w in sorted(widths, reverse=True):  # how many of the widest still fit on one line
        if per_line and used + GAP + w > PAGE_CHARS:
            break
        used += GAP + w
        per_line += 1
    parts = -(-len(seats) // max(per_line, 1))
    size = -(-len(seats) // parts) if seats else 0
    return [_balances(counted, seats[k:k + size]) for k in range(0, len(seats), size or 1)]


def _balances(counted: Sequence[Step], names: Sequence[str]) -> Grid:
    columns = [Column("#", right=True)] + [Column(n, right=True) for n in names]
    rows = [Row([_no(s.round)] + [num(s.after["balances"].get(n, "")) for n in names]) for s in counted]
    return fit(columns, rows)


#: Voided events a protocol shows in its game's table, as it shows the others; a match with more
#: lists them all as lines of text instead (``void_grid``): an evening voids a handful, and a table
#: row costs WeasyPrint about twelve times a line of text (6,000 voided rows took 18 s).
VOID_ROWS = 50


def _plain(value: object) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {_plain(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_plain(v) for v in value)
    return str(value)


def void_grid(voided: Sequence[Step]) -> Grid:
    """The voided events of a long log, one line each: number, what was entered, why it was voided."""
    rows = []
    for s in voided:
        p = s.round.payload
        if s.round.kind == "close":
            entered = f"{_('Closed')}: {p.get('pot', '')}" + (f" → {p['to']}" if p.get("to") else "")
        else:
            entered = "; ".join(f"{k}: {_plain(v)}" for k, v in p.items())
        rows.append(Row([_no(s.round), entered, f"{_('void')}: {s.round.void_reason}"], void=True))
    return fit([Column("#", right=True), Column(_("Entered"), wrap=True), Column(_("Reason"), wrap=True)], rows)
