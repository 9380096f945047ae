"""A tournament's standings and its tables' rankings, read from the tables' matches (issue 30).

Reading only. The ranking of a table is the game's: Schwimmen, the winner
and then the others by the game they went out in (later is better; read
from the match's log); Knaker, the match's standings; the other games, the
match result. The arithmetic is :mod:`referee.engine.tournament`'s.
"""

from __future__ import annotations

from sqlalchemy import func, select

from referee import services
from referee.engine import tournament as draw
from referee.engine.vocab import EventKind
from referee.models import Match, Round, Tournament, TournamentTable, db


def out_in_game(match: Match) -> dict[str, int]:
    """Schwimmen: the game number each player went out in, folded from the match's log (void rounds skipped)."""
    events = db.session.scalars(select(Round).where(Round.match_id == match.id, Round.void.is_(False))
                                .order_by(Round.seq))
    state = services.initial_state(match)
    out: dict[str, int] = {}
    for event in events:
        state = services.apply_event(match, state, event.kind, event.payload)
        for k, name in enumerate(state.players):
            if state.out[k] and name not in out:
                out[name] = int(state.game_no)
    return out


def table_ranking(match: Match) -> list[tuple[str, int]]:
    """The table's players best first with their places (1, 2, 2, 4)."""
    state = services.state_of(match)
    if match.game == "schwimmen":
        winner = state.players[state.winner] if state.winner is not None else None
        gone = out_in_game(match)
        return draw.schwimmen_ranking(state.players, winner, {name: gone.get(name) for name in state.players})
    if match.game == "knaker":
        return draw.score_ranking(state.players, state.standings)
    return draw.score_ranking(state.players, state.balances)


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
        state = services.state_of(table.match)
        for name, amount in zip(state.players, state.balances, strict=True):
            results[name] = results.get(name, 0) + amount
            if played.get(table.match_id):
                matches[name] = matches.get(name, 0) + 1
    return results, matches


def standings(tourn: Tournament) -> tuple[draw.Standing, ...]:
    """The standings, best first (API.md "Tournaments")."""
    players = tourn.night.player_names
    tables = list(tourn.tables)
    results, matches = _results(tables, players)
    if tourn.format != draw.Format.KNOCKOUT:
        return draw.series_standings(results, matches)
    by_series: dict[int, list[TournamentTable]] = {}
    for table in tables:
        by_series.setdefault(table.series, []).append(table)
    out_in: dict[str, int | None] = dict.fromkeys(players)
    table_place: dict[str, int] = {}
    for series in sorted(by_series):
        later = {name for t in by_series.get(series + 1, []) for name in t.match.seats}
        for table in by_series[series]:
            ranking = table_ranking(table.match)
            table_place.update(dict(ranking))
            if series < tourn.current_series:
                gone = [name for name, _place in ranking if name not in later]
            elif tourn.finished:  # the final table: everyone but the champion went out in it
                champion = draw.advancing(ranking, 1, tourn.seed, series, table.number)
                gone = [name for name, _place in ranking if name not in champion]
            else:
                gone = []
            for name in gone:
                out_in[name] = series
    return draw.knockout_standings(players, out_in, table_place, results, matches)
