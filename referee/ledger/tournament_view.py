"""A tournament as its readers see it: one body for the API's ``GET /api/tournaments/<id>``, the pages and sheets.

Why one: the organiser's page, the hall, a player's own view and the sheets
show what the API shows; a second copy of the standings' or prizes' shape
would drift. Money goes out as the API's decimal strings and, for the pages (which
format money in the reader's locale), also in ``minor`` units.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import select

from referee.engine import table_counts
from referee.engine import tournament as draw
from referee.engine.money import Money
from referee.engine.vocab import MatchStatus
from referee.ledger import by_version, fold, inputs, standings, tournament_money
from referee.ledger.tournaments import current_tables, ends_at
from referee.models import Tournament, TournamentTable, db


def table_json(table: TournamentTable, *, token: bool) -> dict[str, Any]:
    """One table of the series: its match, players in seat order, finished; its token only for the organiser."""
    out = {"table": table.number, "match": table.match_id, "players": list(table.match.seats),
           "finished": table.match.status == MatchStatus.CLOSED}
    return out | ({"table_token": table.token} if token else {})


def in_play(tourn: Tournament, table: TournamentTable, money: Money, *, minor: bool, last: bool,
            gone: Mapping[str, int]) -> dict[str, Any]:
    """A current table's play as it stands (API.md: ``numbers``, ``ahead``, and once a knockout table is
    finished ``through``): the game's own count per player, so that the hall shows every saved game, not only
    the end of a table (issue 43.3). ``last``: the table is the series' only one (a knockout's final: its
    first place is through to the title). ``gone``: who left (:func:`standings.left`), never ahead or through."""
    state = fold.state_of(table.match)
    ranking = draw.without(standings.table_ranking(table.match), gone)
    best = [name for name, place in ranking if place == 1]
    lead = dict(zip(state.players, table_counts.lead(state), strict=True))
    top = max((lead[name] for name in best), default=0)
    numbers: dict[str, Any] = {}
    for name, count in zip(state.players, table_counts.counts(state), strict=True):
        shown: dict[str, Any] = dict(count)
        if "balance" in count:
            shown["balance"] = money.format(int(count["balance"]))
            if minor:
                shown["minor"] = int(count["balance"])
        numbers[name] = shown
    out: dict[str, Any] = {"numbers": numbers, "ahead": [name for name in best if lead[name] == top]}
    if tourn.format == draw.Format.KNOCKOUT and table.match.status == MatchStatus.CLOSED:
        out["through"] = standings.through(tourn, table, last, gone)
    return out


def view(tourn: Tournament, *, organiser: bool, minor: bool = False) -> dict[str, Any]:
    """The GET body; the tables' tokens and the seed only for the organiser (the night-wide edit right).

    ``minor``: each standing and prize also carries its amount in minor units (``minor``), for the pages.
    Everyone else's body is the same for every reader of a version of the night: worked out once per
    version (:mod:`referee.ledger.by_version`; the hall displays and every player's own view fetch it
    after each change). Read-only for the caller.
    """
    if organiser:
        return _view(tourn, organiser=True, minor=minor)
    return by_version.kept(tourn.night, ("tournament", tourn.id, minor),
                           lambda: _view(tourn, organiser=False, minor=minor))


def _view(tourn: Tournament, *, organiser: bool, minor: bool) -> dict[str, Any]:
    money = inputs.night_money(tourn.night)
    tables = standings.tables_of(tourn)
    rows = standings.standings(tourn, tables)
    entrants = standings.entrants(tourn)
    knockout = tourn.format == draw.Format.KNOCKOUT
    current = current_tables(tourn, tables)
    last = len(current) == 1
    late = standings.entries(tourn)
    gone = {name: e.left_series for name, e in late.items() if e.left_series is not None}
    out: dict[str, Any] = {
        "id": tourn.id, "night": tourn.night_id, "name": tourn.name, "game": tourn.game, "format": tourn.format,
        "series": tourn.current_series, "of": tourn.series_count, "finished": tourn.finished,
        "currency": tourn.night.currency, "table_size": tourn.table_size, "stake": money.format(tourn.stake),
        "entry_fee": money.format(tourn.entry_fee),
        "pool": money.format(tourn.entry_fee * len(entrants)),
        "prize_split": list(tourn.prizes), "seating": tourn.seating,
        "series_minutes": tourn.series_minutes, "ends_at": _iso(ends_at(tourn)),
        "tables": [table_json(t, token=organiser) | in_play(tourn, t, money, minor=minor, last=last, gone=gone)
                   for t in current],
        "standings": [{"player": r.player, "place": r.place, "result": money.format(r.result),
                       "matches": r.matches}
                      | ({"minor": r.result} if minor else {})
                      | ({"out_in_series": r.out_in_series} if knockout else {}) for r in rows],
        # what the end wrote into the night (the prize rows), not computed again
        "prizes": [{"player": p.player, "place": p.place, "amount": money.format(p.amount)}
                   | ({"minor": p.amount} if minor else {}) for p in tournament_money.prizes_paid(tourn, rows)],
    }
    # who plays (issue 43.2): when each may first be seated, and the series each left in (null: still in)
    out["players"] = [{"player": name, "joined_series": late[name].joined_series if name in late else 1,
                       "left_series": late[name].left_series if name in late else None} for name in entrants]
    if knockout:
        out["advance"] = tourn.advance
    if organiser:
        out["seed"] = tourn.seed
    return out


def _iso(moment: datetime | None) -> str | None:
    """A naive UTC moment as ISO 8601 with its zone (``Z``), to the second (a countdown needs no more)."""
    return None if moment is None else moment.isoformat(timespec="seconds") + "Z"


def table_tokens(tourn: Tournament) -> dict[int, str]:
    """The current series' table tokens by table number (the organiser's page and the table cards only).

    Only the current series' rows, without their matches: reading every series' tables with their
    matches and states was a third of the largest night's table cards (960 tables for 120 tokens).
    """
    found = db.session.execute(select(TournamentTable.number, TournamentTable.token).where(
        TournamentTable.tournament_id == tourn.id, TournamentTable.series == tourn.current_series,
        TournamentTable.revoked.is_(False)))
    return {number: token for number, token in found}
