"""The fold's step: a match's first state, one stored event applied with its facts, the snapshot's JSON.

Split out of :mod:`referee.ledger.fold` (issue 48.4: it did every job of the
fold in 450 lines), which re-exports these names: readers keep asking the
fold. Here is the one place a stored event meets the engine, so the one
place a refused stored event becomes :class:`CorruptLog`, and the one place
a stored round's facts (who dealt, the svängare, who passed: issue 42,
:mod:`referee.engine.facts`) set the state before the round is replayed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import SimpleNamespace
from typing import Any

from sqlalchemy import func

from referee.engine import N_, BadInput, Explained, MatchState, RuleViolation
from referee.engine.money import MAX_AMOUNT
from referee.engine.records import dump, load
from referee.engine.spec import Game, spec
from referee.engine.vocab import CloseHow, EventKind
from referee.ledger.inputs import night_money
from referee.models import Match, Round

#: An event's place in the order of play: its own number, or a correction's the number of the round it
#: replaces (issue 42). Every fold orders by it; the rows of one place but one are void.
PLACE = func.coalesce(Round.corrects, Round.seq)


class CorruptLog(Explained):
    """A stored event the engine refuses: the log no longer replays (a 409 with this sentence, never a 500)."""

    def __init__(self, match_id: int, seq: int, cause: Explained) -> None:
        self.match_id, self.seq = match_id, seq
        self.rule = cause.rule
        super().__init__(N_("The stored log of match %(match)s no longer replays at round %(seq)s: %(why)s"),
                         {"match": match_id, "seq": seq, "why": cause})


def place_of(rnd: Round) -> int:
    """A loaded event's place in the order of play (:data:`PLACE`)."""
    return rnd.corrects if rnd.corrects is not None else rnd.seq


def initial_state(match: Match) -> MatchState:
    game = spec(match.game)
    return start_state(game, match.seats, match.first_dealer, match.stake, load(game.Options, match.options),
                       match.carried_in)


def start_state(game: Game, seats: Sequence[str], dealer: str, stake: int, options: Any,
                carried_in: int = 0) -> MatchState:
    """A match's first state, from its seats, dealer, stake in minor units and options (the engine's own).

    Only the carry games (Svängknack, Kul) take ``carried_in``, the pot a
    match brings from the last night (SK-14). Raises what the engine raises.
    """
    start: Callable[..., MatchState] = game.start
    if carried_in:
        return start(tuple(seats), dealer, stake, options, carried_in=carried_in)
    return start(tuple(seats), dealer, stake, options)


def apply_event(match: Match, state: MatchState, kind: str, payload: Mapping[str, Any],
                facts: Mapping[str, Any] | None = None) -> MatchState:
    """One event of the log applied to a state (the fold's step); raises what the engine raises.

    A round with stored ``facts`` is applied to the state set to them (its
    dealer and rotation as when it was entered); without (an old row not yet
    given its facts), to the state as it comes.
    """
    game = spec(match.game)
    if kind == EventKind.CLOSE:
        return game.close(state, payload.get("pot", CloseHow.SPLIT), payload.get("to"))
    if facts:
        state = game.with_facts(state, facts)
    return game.apply(state, game.parse_round(state, payload, night_money(match.night)))


def step(match: Match, state: MatchState, seq: int, kind: str, payload: Mapping[str, Any],
         facts: Mapping[str, Any] | None = None) -> MatchState:
    """A stored event applied: the one place a refused stored event becomes :class:`CorruptLog`."""
    try:
        return apply_event(match, state, kind, payload, facts)
    except (RuleViolation, BadInput) as exc:
        raise CorruptLog(match.id, seq, exc) from exc


def stored_fields(match: Match) -> SimpleNamespace:
    """The snapshot's fields as attributes, without rebuilding the engine's state (the season reads a
    handful of fields of every match of every night; rebuilding each state cost half its page's time)."""
    return SimpleNamespace(**match.snapshot.state)


def carried_out(match: Match) -> int:
    """The pot a closed match carried to the next night (SK-14), 0 if none."""
    return int(match.snapshot.state.get("carried_out") or 0)


def snapshot_json(state: MatchState) -> Any:
    """A state as the snapshot (and a checkpoint) stores it: the engine's JSON form.

    Raises :class:`BadInput` (nothing is written: every caller is inside its
    write transaction) when an open match's state holds an amount past
    :data:`referee.engine.money.MAX_AMOUNT`: the round or void that made it
    is refused, and the leader closes the match and starts a new one. A
    finished state is always kept, so that the close itself is never
    refused (it pays out a pot that was within the bound: at most twice it).
    """
    plain = dump(state)
    if not state.finished and _too_large(plain):
        raise BadInput("round", "This entry would make an amount of the match larger than the referee keeps; "
                                "close the match and start a new one to play on.")
    return plain


def _too_large(plain: Any) -> bool:
    """Whether the JSON ``plain`` holds a whole number past :data:`MAX_AMOUNT` (either sign)."""
    if isinstance(plain, bool):
        return False
    if isinstance(plain, int):
        return abs(plain) > MAX_AMOUNT
    if isinstance(plain, dict):
        return any(_too_large(v) for v in plain.values())
    if isinstance(plain, (list, tuple)):
        return any(_too_large(v) for v in plain)
    return False
