"""Old logs given their rounds' facts, once, by replay in the order played (issue 42).

Rounds stored before ``rounds.facts`` existed have none: replayed as they
come, a void or a correction of an earlier round would move their dealer
and svängare. Their facts are what the state before them gave them when
they were played, so the whole log is folded once in the order of play and
each round without facts gets the engine's :meth:`~referee.engine.spec.GameSpec.facts`
of the state before it (void rounds too: the state where they were entered).

Two ways in, both idempotent (a round that has facts keeps them): the Flask
command ``round-facts`` (``make run`` runs it after ``db upgrade``) for every
match lacking them, and :func:`ensure` inside a void's or correction's own
write, for a match the command has not reached (an import of an old export,
a database upgraded without ``make run``).
"""

from __future__ import annotations

from sqlalchemy import Text, bindparam, cast, or_, select, update

from referee.engine.spec import spec
from referee.engine.vocab import EventKind
from referee.ledger import fold
from referee.ledger.tx import writing
from referee.models import Match, Round, db

_rounds = Round.__table__
#: A round without facts: SQL NULL (a row older than the column) or JSON ``null`` (a None written through JSON).
_NO_FACTS = (Round.kind == EventKind.ROUND) & or_(Round.facts.is_(None), cast(Round.facts, Text) == "null")
_SET_FACTS = update(_rounds).where(_rounds.c.id == bindparam("row")).values(facts=bindparam("facts"))


def ensure(match: Match) -> int:
    """Inside a write: the match's rounds without facts given theirs; returns how many were given.

    A log that no longer replays (:class:`~referee.ledger.fold.CorruptLog`) gets them up to its broken
    event: the void of that event, which mends it, must still go through.
    """
    game = spec(match.game)
    missing = []
    state = fold.initial_state(match)
    for rnd in fold.in_play_order(match):
        if rnd.kind == EventKind.ROUND and rnd.facts is None:
            missing.append({"row": rnd.id, "facts": game.facts(state, rnd.payload)})
        if not rnd.void:
            try:
                state = fold.step(match, state, rnd.seq, rnd.kind, rnd.payload, rnd.facts)
            except fold.CorruptLog:
                break
    if missing:
        db.session.connection().execute(_SET_FACTS, missing)
        db.session.expire(match, ["rounds"])
    return len(missing)


def lacking(match_id: int) -> bool:
    """Whether the match has a round without facts (one indexed look, no fold)."""
    return db.session.scalar(select(Round.id).where(Round.match_id == match_id, _NO_FACTS).limit(1)) is not None


def backfill() -> tuple[int, int]:
    """Every match with rounds lacking facts given them, one match per write; returns (matches, rounds)."""
    ids = sorted(set(db.session.scalars(select(Round.match_id).where(_NO_FACTS))))
    matches = rounds = 0
    for match_id in ids:
        with writing():
            match = db.session.get(Match, match_id)
            if match is None:
                continue
            given = ensure(match)
        matches, rounds = matches + (given > 0), rounds + given
    return matches, rounds
