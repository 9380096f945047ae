"""The settlement sheet's tables as text grids (see :mod:`referee.reports.grid` for why).

The results per match are one grid (a column per match, or, when those
columns would not fit the page's width, one wrapped column listing each
player's own matches); each payment is one line of aligned text
followed by its QR code image and a tick box (``templates/reports/
settlement.html``), so a row costs WeasyPrint a line of text and an image,
not five table cells.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask_babel import gettext as _

from referee.reports.grid import GAP, PAGE_CHARS, Column, Grid, Row, fit
from referee.web.titles import match_number, match_title


def results_grid(s: Any, money: Callable[[int], str], party: Callable[[str], str],
                 plain: Callable[[int], str] | None = None) -> Grid:
    """Per party: each match's result, fee and prize, the total, opening, carried, paid (when any), what is open.

    A column per match while they fit the page's width; past that (a
    tournament's hundreds of tables) each party's own matches in one wrapped
    column, the amounts without their currency (``plain``; the currency is in
    the column's title). Why: the grid with a column per match was as wide
    as the matches (1,000 columns, 480 lines of 10,000 characters, cut off at
    the page's edge) and took WeasyPrint most of a minute; a player plays at
    a handful of the tables, so the list is a line or two per player.
    """
    opening = any(s.opening.values())
    paid = any(s.paid.values())
    # (one column, as a tournament finished before fees were owed from the start wrote them net: a wider grid
    # falls back to the wrapped list of matches sooner; each fee and prize is a line of the appendix)
    fee_prize = {name: s.fees.get(name, 0) + s.prizes.get(name, 0) for name in s.parties}
    prizes = any(fee_prize.values())
    carried = any(s.carried_out.values())
    amount = {name: money(value) for name, value in s.result.items()}  # (formatting money is slow: once each)
    titles = [match_title(m) for m, _a in s.per_match]
    # Every part of a row is a column, so a row adds up (issue 46): a tournament's fee and prize is part of the
    # total, a debt carried to a later night part of what is open.
    tail = [Column(_("Fee and prize"), right=True)] if prizes else []
    tail.append(Column(_("Total"), right=True))
    if opening:
        tail.append(Column(_("Opening"), right=True))
    if carried:
        tail.append(Column(_("Carried out"), right=True))
    if paid:
        tail.append(Column(_("Paid"), right=True))
    tail.append(Column(_("Open"), right=True))

    def ends(name: str) -> list[str]:
        cells = [money(fee_prize[name])] if prizes else []
        cells.append(amount[name])
        if opening:
            cells.append(money(s.opening[name]))
        if carried:
            cells.append(money(-s.carried_out[name]))
        if paid:
            cells.append(money(s.paid[name]))
        return [*cells, money(s.open[name])]

    mine: dict[str, dict[int, int]] = {}  # each party's own matches: a handful of a tournament's tables
    for k, (_m, amounts) in enumerate(s.per_match):
        for name, value in amounts.items():
            mine.setdefault(name, {})[k] = value
    if len(titles) <= PAGE_CHARS // (GAP + 2):  # more columns than that never fit the page
        wide = fit([Column(_("Player")), *[Column(t, right=True) for t in titles], *tail],
                   [Row([party(name), *[money(mine[name][k]) if k in mine.get(name, {}) else ""
                                        for k in range(len(titles))], *ends(name)]) for name in s.parties])
        if sum(wide.widths) + GAP * (len(wide.widths) - 1) <= PAGE_CHARS:
            return wide
    # (one game: "#2 3,00", the number of the match among the game's, as the protocols title it)
    short = [f"#{match_number(m)}" for m, _a in s.per_match] if len({m.game for m, _a in s.per_match}) == 1 else titles
    amount_of = plain or money
    rows = [Row([party(name), "; ".join(f"{short[k]} {amount_of(value)}" for k, value in mine.get(name, {}).items()),
                 *ends(name)]) for name in s.parties]
    heading = f"{_('Matches')} ({s.night.currency})" if plain else _("Matches")
    return fit([Column(_("Player")), Column(heading, wrap=True), *tail], rows)


def transfers_grid(rows: list[dict[str, Any]], money: Callable[[int], str], party: Callable[[str], str]) -> Grid:
    """Who pays whom and how much, aligned; the sheet adds the QR code and the tick box to each line."""
    columns = [Column(_("Pays")), Column(_("To")), Column(_("Amount"), right=True)]
    return fit(columns, [Row([party(r["why"].payer), party(r["why"].payee), money(r["why"].amount)]) for r in rows],
               page=60)
