"""A match's running balances over its rounds, and Knaker's places and dots per game (reading only).

The snapshot holds the state after the last event only; how the balances
moved is the engine's fold over the log, step by step (the fold of
:func:`referee.ledger.rounds.replay`, keeping every step). Charts and season figures need
that fold, and a 2,000-round match's fold costs a fifth of a second, so each
process keeps the fold of the matches it has shown (:data:`_CACHE`) with the
state it ended in:

- the same snapshot version: the kept fold is used as it is;
- only new events since (rounds or a close: the version moved on exactly as
  far as the next round number did, so nothing was voided in between): only
  the new events are folded onto the kept state, so a long match costs one
  step per round entered, not a whole replay per page view;
- a void since: the fold restarts from the kept checkpoint (the engine
  state every :data:`CHECKPOINT_EVERY` events) nearest before the first
  event that differs, not from the beginning (issue 29);
- a match not seen yet (or after a restart): the whole log is folded.

A void moves the version without moving the round number, so a fold a void
has made stale is never extended: it is cut back to a checkpoint the void
left as it was.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from referee.engine import RuleViolation
from referee.ledger import rounds
from referee.models import Match, Round, db

#: How many matches' folds a process keeps (a long match's fold is a few hundred kB at most).
CACHE_SIZE = 256
#: A checkpoint every this many folded events: a void refolds at most this many events before it.
CHECKPOINT_EVERY = 100


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


@dataclass(frozen=True)
class _Kept:
    created_at: Any     # with the database and the id: this very match (ids repeat across databases)
    version: int
    next_seq: int
    history: History
    state: Any          # the engine state after the last folded event
    #: (events folded, Knaker games so far, engine state) every CHECKPOINT_EVERY events, the start included.
    checkpoints: tuple[tuple[int, int, Any], ...] = ()


_CACHE: OrderedDict[tuple[str, int], _Kept] = OrderedDict()
_LOCK = threading.Lock()


def history(match: Match) -> History:
    """The match's running balances (kept per process; see the module docstring)."""
    version, next_seq = match.snapshot.version, match.snapshot.next_seq
    key = identity(match)
    with _LOCK:
        kept = _CACHE.get(key)
    if kept is not None and kept.created_at != match.created_at:
        kept = None  # another match with the same id (another database, a restored backup)
    if kept is not None and (kept.version, kept.next_seq) == (version, next_seq):
        made = kept
    elif kept is not None and 0 < version - kept.version == next_seq - kept.next_seq:
        new = list(db.session.scalars(select(Round).where(
            Round.match_id == match.id, Round.seq >= kept.next_seq, Round.seq < next_seq).order_by(Round.seq)))
        if len(new) == next_seq - kept.next_seq and not any(r.void for r in new):
            made = _fold(match, kept.state, new, kept.history, version, next_seq, kept.checkpoints)
        else:  # a void got in while we read: start again from the beginning
            made = _whole(match, version, next_seq)
    elif kept is not None:
        made = _from_checkpoint(match, kept, version, next_seq)
    else:
        made = _whole(match, version, next_seq)
    with _LOCK:
        _CACHE[key] = made
        _CACHE.move_to_end(key)
        while len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)
    return made.history


def identity(match: Match) -> tuple[str, int]:
    """What a kept fold is filed under: the database and the match's id."""
    return str(db.engine.url), match.id


def _whole(match: Match, version: int, next_seq: int) -> _Kept:
    state = rounds.initial_state(match)
    start = History(players=tuple(state.players), seqs=(0,), balances=(tuple(state.balances),),
                    pots=(int(state.pot),))
    events = [r for r in match.rounds if not r.void and r.seq < next_seq]
    return _fold(match, state, events, start, version, next_seq, ((0, 0, state),))


def _from_checkpoint(match: Match, kept: _Kept, version: int, next_seq: int) -> _Kept:
    """The log folded again from the last checkpoint before the first event that is not as kept (a void)."""
    events = [r for r in match.rounds if not r.void and r.seq < next_seq]
    same = 0  # events still as they were folded: the kept seqs after the start, in order
    for rnd, seq in zip(events, kept.history.seqs[1:], strict=False):
        if rnd.seq != seq:
            break
        same += 1
    usable = [c for c in kept.checkpoints if c[0] <= same]
    if not usable:
        return _whole(match, version, next_seq)
    done, games, state = usable[-1]
    old = kept.history
    base = History(players=old.players, seqs=old.seqs[:done + 1], balances=old.balances[:done + 1],
                   pots=old.pots[:done + 1], knaker_games=old.knaker_games[:games])
    return _fold(match, state, events[done:], base, version, next_seq, tuple(usable))


def _fold(match: Match, state: Any, events: Iterable[Round], base: History, version: int,
          next_seq: int, checkpoints: tuple[tuple[int, int, Any], ...] = ()) -> _Kept:
    """``base`` extended by the engine's fold of ``events`` from ``state``, with a checkpoint every
    :data:`CHECKPOINT_EVERY` events."""
    seqs, balances, pots = list(base.seqs), list(base.balances), list(base.pots)
    games = list(base.knaker_games)
    marks = list(checkpoints)
    knaker = match.game == "knaker"
    for rnd in events:
        before = state
        try:
            state = rounds.apply_event(match, state, rnd.kind, rnd.payload)
        except RuleViolation:  # a stored log always replays; if not, the chart stops where it broke
            break
        seqs.append(rnd.seq)
        balances.append(tuple(state.balances))
        pots.append(int(state.pot))
        if knaker and state.games > before.games and state.last_game is not None:
            games.append(KnakerGame(tuple(state.last_game.places), tuple(before.dots)))
        if (len(seqs) - 1) % CHECKPOINT_EVERY == 0:
            marks.append((len(seqs) - 1, len(games), state))
    made = History(players=base.players, seqs=tuple(seqs), balances=tuple(balances), pots=tuple(pots),
                   knaker_games=tuple(games), open_dots=tuple(state.dots) if knaker else ())
    return _Kept(created_at=match.created_at, version=version, next_seq=next_seq, history=made, state=state,
                 checkpoints=tuple(marks))


def clear() -> None:
    """Forget every fold (tests, benchmarks measuring a cold start)."""
    with _LOCK:
        _CACHE.clear()
