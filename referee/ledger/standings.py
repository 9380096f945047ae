"""A tournament's standings and its tables' rankings, read from the tables' matches (issue 30).

Reading only. The ranking of a table is the game's spec's ``rank``
(Schwimmen, the winner and then the others by the game they went out in,
read from the match's log; Knaker, the match's standings; the other games,
the match result). The arithmetic is :mod:`referee.engine.tournament`'s.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import joinedload

from referee.engine import tournament as draw
from referee.engine.spec import spec
from referee.engine.vocab import EventKind
from referee.ledger import fold
from referee.models import Match, NightPlayer, Player, Round, Tournament, TournamentTable, db


def table_ranking(match: Match) -> list[tuple[str, int]]:
    """The table's players best first with their places (1, 2, 2, 4): the game's spec ranks them, from the
    final state and, if it asks (Schwimmen), the state after each event of the one fold (void rounds skipped)."""
    return spec(match.game).rank(fold.state_of(match), lambda: (state for _row, _before, state in fold.steps(match)))


def rounds_played(match_ids: list[int]) -> dict[int, int]:
    """Rounds (not void, closes not counted) per match, in one query."""
    if not match_ids:
        return {}
    rows = db.session.execute(select(Round.match_id, func.count()).where(
        Round.match_id.in_(match_ids), Round.void.is_(False), Round.kind == EventKind.ROUND)
        .group_by(Round.match_id))
    return {int(mid): int(n) for mid, n in rows}


def _results(tables: list[TournamentTable], players: list[str]) -> tuple[dict[str, int], dict[str, int]]:
    """Each player's sum of match balances over the tables, and the matches they played rounds in."""
    results = dict.fromkeys(players, 0)
    matches = dict.fromkeys(players, 0)
    played = rounds_played([t.match_id for t in tables])
    for table in tables:
        state = fold.state_of(table.match)
        for name, amount in zip(state.players, state.balances, strict=True):
            results[name] = results.get(name, 0) + amount
            if played.get(table.match_id):
                matches[name] = matches.get(name, 0) + 1
    return results, matches


def players(tourn: Tournament) -> list[str]:
    """The tournament's players in the night's order (one query, not one per seat: 200 at a club evening)."""
    return list(db.session.scalars(select(Player.name).join(NightPlayer, NightPlayer.player_id == Player.id)
                                   .where(NightPlayer.night_id == tourn.night_id).order_by(NightPlayer.position)))


def seated(tourn: Tournament, tables: list[TournamentTable]) -> list[str]:
    """The players seated at any of the tournament's ``tables``, in the night's order.

    Nobody is in the standings, the pool or the prizes without having been
    seated: a player added to a running knockout's night (never seated, no
    match) was "still in" and ended first with the whole pool (issue 43.1).
    """
    at = {name for table in tables for name in table.match.seats}
    return [name for name in players(tourn) if name in at]


def tables_of(tourn: Tournament) -> list[TournamentTable]:
    """Every table of every series with its match and snapshot loaded (one query)."""
    return list(db.session.scalars(
        select(TournamentTable).options(joinedload(TournamentTable.match).joinedload(Match.snapshot))
        .where(TournamentTable.tournament_id == tourn.id)
        .order_by(TournamentTable.series, TournamentTable.number)))


def standings(tourn: Tournament, tables: list[TournamentTable] | None = None) -> tuple[draw.Standing, ...]:
    """The standings, best first (API.md "Tournaments"); ``tables``: :func:`tables_of`, if read already."""
    tables = tables_of(tourn) if tables is None else tables
    names = seated(tourn, tables)
    results, matches = _results(tables, names)
    if tourn.format != draw.Format.KNOCKOUT:
        return draw.series_standings(results, matches)
    by_series: dict[int, list[TournamentTable]] = {}
    for table in tables:
        by_series.setdefault(table.series, []).append(table)
    out_in: dict[str, int | None] = dict.fromkeys(names)
    table_place: dict[str, int] = {}
    for series in sorted(by_series):
        later = {name for t in by_series.get(series + 1, []) for name in t.match.seats}
        for table in by_series[series]:
            ranking = table_ranking(table.match)
            table_place.update(dict(ranking))
            if series < tourn.current_series:
                gone = [name for name, _place in ranking if name not in later]
            elif tourn.finished:  # the final table: everyone but its first place went out in it; no draw
                gone = [name for name, place in ranking if place > 1]  # picks one of a tie (they share the title)
            else:
                gone = []
            for name in gone:
                out_in[name] = series
    return draw.knockout_standings(names, out_in, table_place, results, matches)

