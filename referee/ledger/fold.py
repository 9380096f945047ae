"""The one fold of a match's event log: its error policy, its cache and its stored checkpoints.

Every reader of the log asks this module: the writes (a void's refold, the
snapshot), the running balances of the charts and the season
(:func:`history`), the per-event states of the protocols (:func:`steps`),
the import's replay (:func:`initial_state`, :func:`apply_event`), the
season's and the carry's reads of a stored state (:func:`stored_fields`,
:func:`carried_out`). The snapshot's JSON is read and written here only
(:func:`state_of`, :func:`snapshot_json`).

The step, the snapshot's JSON and :class:`CorruptLog` are :mod:`referee.ledger.fold_steps`. The log is
folded in the order of play (a correction in its round's place), each round with its stored facts (issue 42).

**One error policy.** A stored event the engine refuses (a rule it breaks,
a payload it cannot read) means the stored log is corrupted: the fold raises
:class:`CorruptLog`, naming the match, the round number and the rule,
whoever asked. Pages show it as a clear error (409), never as a 500; the
match page shows itself with the error in place of its chart, so the leader
can still void the broken round. A void whose later rounds would become
invalid is not a corrupted log but a refused void: :func:`refold`
raises the later round's :class:`RuleViolation` with ``.round``.

**One cache.** Each process keeps the fold of the matches it has shown
(:data:`_CACHE`, a bounded :class:`referee.lru.LRU`) with the snapshot
version it was made for: the same version is used as it is; new events since
(the version moved exactly as far as the round number: nothing voided) are
folded onto the kept state; anything else is a cold fold.

**Stored checkpoints (issue 29).** A cold fold (after a restart, a void, or
a match not seen yet) starts from the database's ``fold_checkpoints``: the
round that is stored with a number divisible by :data:`CHECKPOINT_EVERY`
writes, in its own transaction, the engine state after it (its JSON form,
which loads back to an equal state) and the chart points since the previous
checkpoint. A cold fold reads the checkpoints and folds only the events after
the last one: at most ``CHECKPOINT_EVERY - 1`` of them. A void of round ``v``
deletes the checkpoints from ``v`` on and writes them again from the nearest
one before it, in the void's transaction. Matches stored before checkpoints
existed get theirs all at once with their next checkpoint round.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import delete, insert, select

from referee.engine import Explained, MatchState
from referee.engine.records import load
from referee.engine.spec import GameResult, spec
from referee.ledger.fold_steps import (
    PLACE,
    CorruptLog,
    apply_event,
    carried_out,
    initial_state,
    place_of,
    snapshot_json,
    start_state,
    step,
    stored_fields,
)
from referee.lru import LRU, MiB, deep_size
from referee.models import FoldCheckpoint, Match, Round, db

log = logging.getLogger(__name__)

#: How many matches' folds a process keeps, and their bytes together (issue 45.8: a fold holds a point per
#: round, about 0.3 kB each at five players, so 256 long matches' folds outgrew 256 short ones' a hundredfold,
#: and the soak's workers grew for the whole hour). 4 MiB holds a club evening's 120 tables of 30 rounds
#: almost three times over, or 13 matches of 1,000 rounds; a fold that went is folded again from its checkpoints.
CACHE_SIZE = 256
CACHE_BUDGET = 4 * MiB
#: The states last loaded from snapshots (:func:`state_of`), with their JSON: a state does not grow with its log.
STATES_BUDGET = 2 * MiB
#: A stored checkpoint after every round numbered a multiple of this: a cold fold folds fewer events
#: than this after reading them, and writing one folds this many events once per this many rounds.
CHECKPOINT_EVERY = 50


@dataclass(frozen=True)
class History:
    """The match's balances and pot after each counted event; x = round number (0: the start)."""

    players: tuple[str, ...]
    seqs: tuple[int, ...]
    balances: tuple[tuple[int, ...], ...]
    pots: tuple[int, ...]
    #: The finished games of the log, where the game has them (its spec's ``game_result``: Knaker's).
    game_results: tuple[GameResult, ...] = field(default=())
    #: Dots given in the game still being played, not yet in a result (its spec's ``open_dots``).
    open_dots: tuple[int, ...] = field(default=())

    def series(self) -> dict[str, list[int]]:
        return {name: [b[k] for b in self.balances] for k, name in enumerate(self.players)}


@dataclass(frozen=True)
class _Kept:
    created_at: Any     # with the database and the id: this very match (ids repeat across databases)
    version: int
    next_seq: int
    history: History
    state: MatchState   # the engine state after the last folded event
    #: About the bytes it holds (:func:`referee.lru.deep_size` of the history and the state).
    weight: int = 0
    #: The history's rows and bytes when it was last weighed whole. Weighing a long match's whole history at
    #: every round would cost more than folding the round, so it is weighed again only when its rows have
    #: doubled since, and rows added meanwhile weigh that weighing's bytes per row: O(1) a round, amortised.
    weighed: tuple[int, int] = (1, 0)


_CACHE: LRU[tuple[str, int], _Kept] = LRU(CACHE_SIZE, budget=CACHE_BUDGET, weigh=lambda kept: kept.weight)
#: The state last loaded from each match's snapshot, with that snapshot's JSON (:func:`state_of`).
_STATES: LRU[tuple[str, int], tuple[Any, MatchState]] = LRU(CACHE_SIZE, budget=STATES_BUDGET)


# --- the snapshot ------------------------------------------------------------------

#: Asked of the fold, made by its step (:mod:`referee.ledger.fold_steps`).
__all__ = ["CorruptLog", "apply_event", "carried_out", "initial_state", "snapshot_json", "start_state", "step",
           "stored_fields"]


def state_of(match: Match) -> MatchState:
    """The match's current state, from its snapshot (no fold).

    The state loaded last for each match is kept with the snapshot's JSON it
    was loaded from, and given again while the stored JSON is equal (a
    comparison in C, not a rebuild in Python): a club evening's pages read
    every table's state on every fetch, 40 loads of half a millisecond each
    per page (bench/tournament.py). Engine states are frozen all the way
    down (:func:`referee.engine.records.load` builds only frozen dataclasses
    and tuples), so one object may be handed to every reader.
    """
    return stored_state(identity(match), match.game, match.snapshot.state)


def stored_state(key: tuple[str, int], game: str, stored: Any) -> MatchState:
    """The engine state of a snapshot's JSON ``stored`` of the match ``key`` (:func:`identity`), kept as above."""
    kept = _STATES.get(key)
    if kept is not None and kept[0] == stored:
        return kept[1]
    state = load(spec(game).State, stored)
    _STATES.put(key, (stored, state))
    return state


def in_play_order(match: Match) -> list[Round]:
    """The match's events in the order of play (a correction in its round's place, before the void original)."""
    return sorted(match.rounds, key=lambda rnd: (place_of(rnd), rnd.void, rnd.seq))


def replay(match: Match) -> MatchState:
    """The whole log folded from the start, no checkpoint read (checks that the log and snapshot agree)."""
    return steps(match)[-1][2] if match.rounds else initial_state(match)


def steps(match: Match) -> list[tuple[Round, MatchState, MatchState]]:
    """Every event with the state before and after it (a void one leaves it as it was): the protocols."""
    state = initial_state(match)
    out = []
    for rnd in in_play_order(match):
        before = state
        if not rnd.void:
            state = step(match, state, rnd.seq, rnd.kind, rnd.payload, rnd.facts)
        out.append((rnd, before, state))
    return out


# --- the fold with its chart points and checkpoints ------------------------------------

@dataclass
class _Run:
    """A fold in progress: the state, how many events it counted, the points since ``mark``."""

    state: MatchState
    events: int
    seqs: list[int] = field(default_factory=list)
    balances: list[tuple[int, ...]] = field(default_factory=list)
    pots: list[int] = field(default_factory=list)
    games: list[GameResult] = field(default_factory=list)
    mark: tuple[int, int, int] = (0, 0, 0)  # (round number, point index, game index) of the last checkpoint
    start: int = 0  # the round number of the checkpoint it started from (0: the beginning)
    marks: list[dict[str, Any]] = field(default_factory=list)

    def checkpoint(self, match_id: int, seq: int) -> None:
        since, first, game = self.mark
        games_json = [[list(g.places), list(g.dots)] for g in self.games[game:]]
        self.marks.append({"match_id": match_id, "seq": seq, "since": since, "events": self.events,
                           "state": snapshot_json(self.state),
                           "segment": {"seqs": self.seqs[first:], "balances": [list(b) for b in self.balances[first:]],
                                       "pots": self.pots[first:], "games": games_json}})
        self.mark = (seq, len(self.seqs), len(self.games))


def _fold(match: Match, run: _Run, rounds: Iterable[Sequence[Any]], *, upto: int, skip: int | None = None,
          checkpoints: bool = False) -> _Run:
    """``run`` extended by the events ``rounds`` (seq, kind, payload, facts, place; non-void, in the order of
    play) up to place ``upto``, with a checkpoint at each multiple of :data:`CHECKPOINT_EVERY` passed if
    ``checkpoints``. From place ``skip`` on, a refused event is a refused void or correction: its
    :class:`RuleViolation` is raised with ``.round``, its place."""
    every = CHECKPOINT_EVERY
    game_result = spec(match.game).game_result
    due = (run.mark[0] // every + 1) * every
    for seq, kind, payload, facts, place in rounds:
        while checkpoints and due < place:
            run.checkpoint(match.id, due)
            due += every
        before = run.state
        try:
            run.state = step(match, before, seq, kind, payload, facts)
        except CorruptLog as exc:
            if skip is None or place < skip:
                raise
            cause = exc.params["why"]  # the round a void would make invalid: the void is refused
            assert isinstance(cause, Explained)
            cause.round = place  # type: ignore[attr-defined]
            raise cause from None
        run.events += 1
        run.seqs.append(place)
        run.balances.append(tuple(run.state.balances))
        run.pots.append(int(run.state.pot))
        if (result := game_result(before, run.state)) is not None:  # a game it finished (Knaker's, KN-16)
            run.games.append(result)
    while checkpoints and due <= upto:
        run.checkpoint(match.id, due)
        due += every
    return run


_EVENT_COLUMNS = (Round.seq, Round.kind, Round.payload, Round.facts, PLACE)


def _events(match: Match, after: int, upto: int, skip: int | None = None) -> list[Any]:
    """The non-void events placed ``after < place <= upto`` (but the one numbered ``skip``), in the order of
    play, as (seq, kind, payload, facts, place) rows."""
    query = (select(*_EVENT_COLUMNS).where(Round.match_id == match.id, PLACE.between(after + 1, upto),
                                           Round.void.is_(False)).order_by(PLACE))
    if skip is not None:
        query = query.where(Round.seq != skip)
    return [tuple(row) for row in db.session.execute(query)]


def _new_events(match: Match, after: int, upto: int) -> list[Any] | None:
    """The events numbered ``after < seq <= upto``, or None if one of them is void or a correction (a void or
    correction got in while the snapshot was read: the kept fold cannot be extended)."""
    rows = list(db.session.execute(select(*_EVENT_COLUMNS, Round.void, Round.corrects).where(
        Round.match_id == match.id, Round.seq > after, Round.seq <= upto).order_by(Round.seq)))
    if len(rows) != upto - after or any(row[5] or row[6] is not None for row in rows):
        return None
    return [tuple(row[:5]) for row in rows]


def _stored(match: Match, before: int | None = None, *, points: bool = False) -> list[Any]:
    """The match's checkpoints in order (those numbered below ``before``), cut at the first that does not
    follow on from the one before it (a chain always starts at the beginning), as rows of ``seq``,
    ``since``, ``events`` and, with ``points``, the ``segment``. Their states are not read: a fold needs
    only the last one's (:func:`_resume`), and decoding the forty states of a 2,000-round match that a
    cold page does not use was a quarter of its reading of the checkpoints (issue 29)."""
    columns = [FoldCheckpoint.seq, FoldCheckpoint.since, FoldCheckpoint.events]
    query = (select(*columns, *([FoldCheckpoint.segment] if points else []))
             .where(FoldCheckpoint.match_id == match.id).order_by(FoldCheckpoint.seq))
    if before is not None:
        query = query.where(FoldCheckpoint.seq < before)
    chain: list[Any] = []
    for cp in db.session.execute(query):
        if cp.since != (chain[-1].seq if chain else 0):
            break
        chain.append(cp)
    return chain


def _resume(match: Match, cp: Any, first: Any = None) -> _Run:
    """A run that goes on from a stored checkpoint (a row of :func:`_stored`; its state read here) or from
    ``first``, the start, with no points yet."""
    if cp is None:
        return _Run(state=initial_state(match) if first is None else first, events=0)
    state = db.session.scalar(select(FoldCheckpoint.state).where(FoldCheckpoint.match_id == match.id,
                                                                 FoldCheckpoint.seq == cp.seq))
    return _Run(state=load(spec(match.game).State, state), events=cp.events, mark=(cp.seq, 0, 0),
                start=cp.seq)


def _replace(match: Match, run: _Run) -> None:
    """The checkpoints after the one ``run`` started from replaced by its ``marks`` (in a write)."""
    table = FoldCheckpoint.__table__
    db.session.execute(delete(table).where(table.c.match_id == match.id, table.c.seq > run.start))
    if run.marks:
        db.session.execute(insert(table), run.marks)


def refold(match: Match, skip: int, *, place: int, instead: Sequence[Any] | None = None) -> _Run:
    """A void's or correction's fold: from the nearest stored checkpoint before ``place``, without the event
    numbered ``skip`` (at ``place``) and with ``instead`` (a row as :func:`_events` gives, at ``place``) in its
    stead, to the last event; its ``state`` is the match's new state, its ``seqs``, ``balances`` and ``pots``
    the points from the checkpoint on, its ``marks`` the checkpoints to store (:func:`store_after_void`). A
    round from ``place`` on that no longer holds raises its :class:`RuleViolation` (``.round``, its place);
    an event before ``place`` that no longer replays, :class:`CorruptLog`."""
    chain = _stored(match, before=place)
    upto = match.snapshot.next_seq - 1
    run = _resume(match, chain[-1] if chain else None)
    rows = _events(match, run.mark[0], upto, skip)
    if instead is not None:
        rows = sorted([*rows, tuple(instead)], key=lambda row: row[4])
    return _fold(match, run, rows, upto=upto, skip=place, checkpoints=True)


def state_before(match: Match, place: int) -> MatchState:
    """The state before the event at ``place`` in the order of play (from the nearest stored checkpoint)."""
    chain = _stored(match, before=place)
    run = _resume(match, chain[-1] if chain else None)
    return _fold(match, run, _events(match, run.mark[0], place - 1), upto=place - 1).state


def store_after_void(match: Match, run: _Run) -> None:
    """Inside the void's write: the checkpoints of its refold replace those from the voided round on."""
    _replace(match, run)


def store_checkpoint(match: Match, seq: int) -> None:
    """Inside the write of round ``seq`` (a multiple of :data:`CHECKPOINT_EVERY`): the checkpoints up to it,
    folded from the last one stored. A log that no longer replays gets none (the write goes on; readers
    will meet :class:`CorruptLog`)."""
    chain = _stored(match, before=seq)
    run = _resume(match, chain[-1] if chain else None)
    try:
        _fold(match, run, _events(match, run.mark[0], seq), upto=seq, checkpoints=True)
    except CorruptLog as exc:
        log.warning("no fold checkpoint for match %s: %s", match.id, exc)
        return
    _replace(match, run)


def _cold(match: Match, version: int, next_seq: int) -> _Kept:
    """The fold from the stored checkpoints: their points read, the events after the last one folded."""
    chain = _stored(match, points=True)
    first = initial_state(match)
    run = _resume(match, chain[-1] if chain else None, first)
    seqs, balances, pots, results = [0], [tuple(first.balances)], [int(first.pot)], []
    for cp in chain:
        seg = cp.segment
        seqs += seg["seqs"]
        balances += [tuple(b) for b in seg["balances"]]
        pots += seg["pots"]
        results += [GameResult(tuple(p), tuple(d)) for p, d in seg["games"]]
    _fold(match, run, _events(match, run.mark[0], next_seq - 1), upto=next_seq - 1)
    base = History(players=tuple(first.players), seqs=tuple(seqs), balances=tuple(balances), pots=tuple(pots),
                   game_results=tuple(results))
    return _kept(match, base, None, run, version, next_seq)


def _kept(match: Match, base: History, weighed: tuple[int, int] | None, run: _Run, version: int,
          next_seq: int) -> _Kept:
    """``base`` extended by the points of ``run``, weighed (``weighed``: ``base``'s last whole weighing; None:
    weigh it whole now)."""
    made = History(players=base.players, seqs=base.seqs + tuple(run.seqs),
                   balances=base.balances + tuple(run.balances), pots=base.pots + tuple(run.pots),
                   game_results=base.game_results + tuple(run.games),
                   open_dots=spec(match.game).open_dots(run.state))
    rows = len(made.seqs)
    if weighed is None or rows >= 2 * weighed[0]:
        weighed = (rows, deep_size(made))
    history_bytes = weighed[1] + (rows - weighed[0]) * weighed[1] // weighed[0]
    return _Kept(created_at=match.created_at, version=version, next_seq=next_seq, history=made, state=run.state,
                 weight=history_bytes + deep_size(run.state), weighed=weighed)


def history(match: Match) -> History:
    """The match's running balances (kept per process, cold from the stored checkpoints; see above)."""
    version, next_seq = match.snapshot.version, match.snapshot.next_seq
    key = identity(match)
    kept = _CACHE.get(key)
    if kept is not None and kept.created_at != match.created_at:
        kept = None  # another match with the same id (another database, a restored backup)
    if kept is not None and (kept.version, kept.next_seq) == (version, next_seq):
        made = kept
    elif (kept is not None and 0 < version - kept.version == next_seq - kept.next_seq
          and (new := _new_events(match, kept.next_seq - 1, next_seq - 1)) is not None):
        run = _Run(state=kept.state, events=len(kept.history.seqs) - 1)
        made = _kept(match, kept.history, kept.weighed, _fold(match, run, new, upto=next_seq - 1), version,
                     next_seq)
    else:
        made = _cold(match, version, next_seq)
    _CACHE.put(key, made)
    return made.history


def identity(match: Match) -> tuple[str, int]:
    """What a kept fold is filed under: the database and the match's id."""
    return str(db.engine.url), match.id


def clear() -> None:
    """Forget every kept fold and state (tests, benchmarks measuring a cold start); the stored checkpoints stay."""
    _CACHE.clear()
    _STATES.clear()
