"""The charts' data for templates: template globals that turn ledger figures into chart geometry.

Pages and sheets draw the charts with the macros of ``templates/_charts.html``;
these globals give them the geometry (:mod:`referee.charts`) of:

- ``match_chart(match)``: each player's balance after each round of a match,
  the pot as a band (:mod:`referee.ledger.fold`: the engine's own fold of the log);
- ``result_chart(s)``: each party's result of a night (a settlement), as bars;
- ``season_chart(season, currency)``: each player's running total over the
  nights of one currency;
- ``rating_chart(group, table, game)``: each player's rating in a game after
  each night it was played (:mod:`referee.ledger.ratings`), in hundredths.

A player's colour and line pattern come from their place in the group, so
they are the same on every page and sheet of the group.
"""

from __future__ import annotations

import dataclasses
from datetime import date as Date
from typing import Any

from flask_babel import format_date

from referee import charts, ledger
from referee.ledger import fold, nights
from referee.lru import LRU, MiB
from referee.models import Group, Match
from referee.reports import bp
from referee.web import amounts


def styles(group: Group, names: list[str]) -> dict[str, charts.Style]:
    """Each name's style by its place among the group's players (others after them)."""
    order = {name: k for k, name in enumerate(nights.player_order(group))}
    extra = len(order)
    out = {}
    for name in names:
        if name not in order:
            order[name] = extra
            extra += 1
        out[name] = charts.style(order[name])
    return out


#: The last charts drawn, by match version and size: a match page is read many times between two rounds.
_DRAWN: LRU[tuple[Any, ...], charts.LineChart] = LRU(128, budget=2 * MiB)


@bp.app_template_global()
def fold_error(match: Match) -> fold.CorruptLog | None:
    """The error of a match whose stored log no longer replays (the page shows it instead of the chart), or None."""
    try:
        fold.history(match)
    except fold.CorruptLog as exc:
        return exc
    return None


@bp.app_template_global()
def match_chart(match: Match, width: int = 360, height: int = 220) -> charts.LineChart:
    hist = fold.history(match)
    st = styles(match.night.group, list(hist.players))
    key = (*fold.identity(match), match.created_at, match.snapshot.version, match.snapshot.next_seq, width,
           height, tuple(st.items()))
    drawn = _DRAWN.get(key)
    if drawn is None:
        keep = charts.sample(len(hist.seqs))  # only the points drawn are read (a long match: every n-th)
        series = {name: [hist.balances[i][k] for i in keep] for k, name in enumerate(hist.players)}
        drawn = charts.line_chart([hist.seqs[i] for i in keep], series, st, band=[hist.pots[i] for i in keep],
                                  width=width, height=height, x_count=6 if width <= 400 else 10)
        drawn = dataclasses.replace(drawn, sampled=len(keep) < len(hist.seqs))
        _DRAWN.put(key, drawn)
    return drawn


@bp.app_template_global()
def result_chart(s: Any, width: int = 360) -> charts.BarChart:
    """Bars of a settlement's night result (``s``: a ``payments.NightSettlement``), players then the pot."""
    values = {p: s.result.get(p, 0) for p in s.parties if p in s.night.player_names or s.result.get(p)}
    st = styles(s.night.group, list(values))
    if ledger.POT_PARTY in st:
        st[ledger.POT_PARTY] = charts.Style("#8a8a8a", "")
    return charts.bar_chart(values, st, width=width)


@bp.app_template_global()
def season_chart(s: Any, currency: str, width: int = 360, height: int = 220) -> charts.LineChart:
    """Each player's running total over the nights of ``currency`` (``s``: a ``season.Season``)."""
    xs, series = s.running(currency)
    return charts.line_chart(xs, series, styles(s.group, list(series)), width=width, height=height,
                             x_count=min(6 if width <= 400 else 10, max(len(xs) - 1, 1)))


# A short amount on an axis: whole units without decimals, else the currency's digits (referee/web/amounts.py).
bp.add_app_template_filter(amounts.tick, "tick")


@bp.app_template_global()
def rating_chart(group: Group, table: Any, game: str, width: int = 360, height: int = 220) -> charts.LineChart:
    """Each player's rating in ``game`` after each night it was played (``table``: a ``ratings.Rating``), in
    hundredths (the chart's values are integers); x 0 is before the first night, where every rating is 0."""
    nights = table.nights.get(game, [])
    series = {row.player: [0] + [round(v * 100) for v in row.after(nights)] for row in table.result()[game]}
    xs = list(range(len(nights) + 1))
    return charts.line_chart(xs, series, styles(group, list(series)), width=width, height=height,
                             x_count=min(6, max(len(xs) - 1, 1)))


@bp.app_template_filter("short_date")
def short_date(day: Date) -> str:
    """A night's day on an axis: "20 Nov" (in the page's language)."""
    return str(format_date(day, "d MMM"))
