"""A tournament's standings and its tables' rankings, read from the tables' matches (issue 30).

Reading only. The ranking of a table is the game's spec's ``rank``
(Schwimmen, the winner and then the others by the game they went out in,
read from the match's log; Knaker, the match's standings; the other games,
the match result). The arithmetic is :mod:`referee.engine.tournament`'s.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import func, select
from sqlalchemy.orm import joinedload

from referee.engine import tournament as draw
from referee.engine.spec import spec
from referee.engine.vocab import EventKind
from referee.ledger import fold
from referee.models import (
    Match,
    NightPlayer,
    Player,
    Round,
    Tournament,
    TournamentEntry,
    TournamentTable,
    db,
)


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


# --- who plays: the players drawn at creation, those who came late, those who left (issue 43.2) ---------------

def entries(tourn: Tournament) -> dict[str, TournamentEntry]:
    """The players who came late or left, by name (read from the database: under the night's lock, the rows
    another write has just added are seen)."""
    return {e.player: e for e in db.session.scalars(
        select(TournamentEntry).where(TournamentEntry.tournament_id == tourn.id).order_by(TournamentEntry.id))}


def left(tourn: Tournament) -> dict[str, int]:
    """Who withdrew, and the series they withdrew in."""
    return {name: e.left_series for name, e in entries(tourn).items() if e.left_series is not None}


def entrants(tourn: Tournament) -> list[str]:
    """Everyone who entered, in the night's order: the players of the first series' draw and those who came late.

    Not the night's players: a player carried into the night, or anyone added
    to it, is in the tournament only by its own late registration, so nobody
    is seated, ranked or charged a fee by having joined the night.
    """
    drawn = {name for seats in db.session.scalars(
        select(Match.seats).join(TournamentTable, TournamentTable.match_id == Match.id)
        .where(TournamentTable.tournament_id == tourn.id, TournamentTable.series == 1)) for name in seats}
    late = set(entries(tourn))
    return [name for name in players(tourn) if name in drawn or name in late]


def to_seat(tourn: Tournament, series: int) -> list[str]:
    """Series format: who is seated in ``series``: the entrants who had not left before it (``left_series``: the
    series one withdrew in, not seated after it), the late ones once their ``joined_series`` has come."""
    rows = entries(tourn)
    never = series  # not left: seated in every series from the one joined
    return [name for name in entrants(tourn)
            if name not in rows or rows[name].joined_series <= series <= (rows[name].left_series or never)]


def through(tourn: Tournament, table: TournamentTable, last: bool, gone: Mapping[str, int]) -> list[str]:
    """Who goes on from a knockout table: its first place when it is the series' only table (the final), else
    the best ``advance`` (a tie at the cut by the seeded draw); never a player who left (``gone``), whose
    place the next best takes."""
    ranking = draw.without(table_ranking(table.match), gone)
    if last:
        return [name for name, place in ranking if place == 1]
    return list(draw.advancing(ranking, tourn.advance, tourn.seed, table.series, table.number))


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
    withdrawn = left(tourn)
    for series in sorted(by_series):
        later = {name for t in by_series.get(series + 1, []) for name in t.match.seats}
        last = len(by_series[series]) == 1
        for table in by_series[series]:
            ranking = table_ranking(table.match)
            table_place.update(dict(ranking))
            if series < tourn.current_series:
                gone = [name for name, _place in ranking if name not in later]
            elif tourn.finished:  # the last series: who did not go through went out in it (a tie shares the title)
                kept = through(tourn, table, last, withdrawn)
                gone = [name for name, _place in ranking if name not in kept]
            else:  # the series in play: who left is out in it at once
                gone = [name for name, _place in ranking if name in withdrawn]
            for name in gone:
                out_in[name] = series
    withdrew = {name for name, series in withdrawn.items() if out_in.get(name) == series}
    return draw.knockout_standings(names, out_in, table_place, results, matches, withdrew)

