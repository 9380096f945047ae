"""A match's running balances over its rounds, and Knaker's places and dots per game (reading only).

The snapshot holds the state after the last event only; how the balances
moved is the engine's fold over the log, step by step (:func:`services.replay`
without the shortcut). Charts and season figures need that fold, and a long
match's fold costs milliseconds, so it is kept per process for each match
version (:data:`_CACHE`): the match page of a 2,000-round match is read many
times between two rounds, and the fold is done once per round entered, not
once per page view. A void or a new round moves the snapshot's version, so a
stale fold is never used.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from referee import services
from referee.engine import RuleViolation
from referee.models import Match

#: How many matches' folds a process keeps (a long match's fold is a few hundred kB at most).
CACHE_SIZE = 256


@dataclass(frozen=True)
class KnakerGame:
    """One Knaker game of the log: its places and each player's dots in it (seat order)."""

    places: tuple[int, ...]
    dots: tuple[int, ...]


@dataclass(frozen=True)
class History:
    """The match's balances and pot after each counted event; x = round number (0: the start)."""

    players: tuple[str, ...]
    seqs: tuple[int, ...]
    balances: tuple[tuple[int, ...], ...]
    pots: tuple[int, ...]
    knaker_games: tuple[KnakerGame, ...] = field(default=())
    #: Knaker: dots given in the game still being played (not yet in a result).
    open_dots: tuple[int, ...] = field(default=())

    def series(self) -> dict[str, list[int]]:
        return {name: [b[k] for b in self.balances] for k, name in enumerate(self.players)}


_CACHE: OrderedDict[tuple[int, int, int], History] = OrderedDict()
_LOCK = threading.Lock()


def history(match: Match) -> History:
    """The match's running balances (cached per match version)."""
    key = (match.id, match.snapshot.version, match.snapshot.next_seq)
    with _LOCK:
        found = _CACHE.get(key)
        if found is not None:
            _CACHE.move_to_end(key)
            return found
    made = fold(match)
    with _LOCK:
        _CACHE[key] = made
        while len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)
    return made


def fold(match: Match) -> History:
    """The engine's fold over the non-void events, keeping what every step left behind."""
    state = services.initial_state(match)
    seqs, balances, pots = [0], [tuple(state.balances)], [int(state.pot)]
    games: list[KnakerGame] = []
    knaker = match.game == "knaker"
    for rnd in match.rounds:
        if rnd.void or rnd.seq >= match.snapshot.next_seq:
            continue
        before = state
        try:
            state = services.apply_event(match, state, rnd.kind, rnd.payload)
        except RuleViolation:  # a stored log always replays; if not, the chart stops where it broke
            break
        seqs.append(rnd.seq)
        balances.append(tuple(state.balances))
        pots.append(int(state.pot))
        if knaker and state.games > before.games and state.last_game is not None:
            games.append(KnakerGame(tuple(state.last_game.places), tuple(before.dots)))
    open_dots: tuple[int, ...] = tuple(state.dots) if knaker else ()
    return History(players=tuple(state.players), seqs=tuple(seqs), balances=tuple(balances), pots=tuple(pots),
                   knaker_games=tuple(games), open_dots=open_dots)


def clear() -> None:
    """Forget every fold (tests, benchmarks measuring a cold start)."""
    with _LOCK:
        _CACHE.clear()
