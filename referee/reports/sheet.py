"""The settlement sheet's tables as text grids (see :mod:`referee.reports.grid` for why).

The results per match are one grid; each payment is one line of aligned text
followed by its QR code image and a tick box (``templates/reports/
settlement.html``), so a row costs WeasyPrint a line of text and an image,
not five table cells.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask_babel import gettext as _

from referee.engine.spec import title
from referee.reports.grid import Column, Grid, Row, fit


def results_grid(s: Any, money: Callable[[int], str], party: Callable[[str], str]) -> Grid:
    """Per party: the result of each match, the total, opening and paid (when any), what is still open."""
    opening = any(s.opening.values())
    paid = any(s.paid.values())
    columns = [Column(_("Player"))]
    columns += [Column(f"{title(m.game)} #{m.id}", right=True) for m, _a in s.per_match]
    columns.append(Column(_("Total"), right=True))
    if opening:
        columns.append(Column(_("Opening"), right=True))
    if paid:
        columns.append(Column(_("Paid"), right=True))
    columns.append(Column(_("Open"), right=True))
    rows = []
    for name in s.parties:
        cells = [party(name)] + [money(amounts[name]) if name in amounts else "" for _m, amounts in s.per_match]
        cells.append(money(s.result[name]))
        if opening:
            cells.append(money(s.opening[name]))
        if paid:
            cells.append(money(s.paid[name]))
        cells.append(money(s.open[name]))
        rows.append(Row(cells))
    return fit(columns, rows)


def transfers_grid(rows: list[dict[str, Any]], money: Callable[[int], str], party: Callable[[str], str]) -> Grid:
    """Who pays whom and how much, aligned; the sheet adds the QR code and the tick box to each line."""
    columns = [Column(_("Pays")), Column(_("To")), Column(_("Amount"), right=True)]
    return fit(columns, [Row([party(r["why"].payer), party(r["why"].payee), money(r["why"].amount)]) for r in rows],
               page=60)
