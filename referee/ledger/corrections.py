"""Voids and corrections of a stored round, with what they change later in the match (issue 42).

Two actions, both on a round already in the log:

- **void** (:func:`void_round`): the entry was a mistake, the deal never
  happened. The round stays in the log, marked void.
- **correct** (:func:`correct_round`): the deal happened but was entered
  wrong. A new, immutable event (a round with ``corrects`` set) takes its
  place in the order of play; the old entry stays, marked void and
  ``corrected_by`` the new one. The corrected round keeps the old one's
  dealer (its facts); payload fields its game keeps (Svängknack's
  ``svangare``) are taken from the old entry when the correction leaves
  them out.

Neither moves a later round's dealer, svängare or who passed: every round
is replayed with the facts it was entered with (:mod:`referee.engine.facts`),
so only money can change. A later round that no longer holds refuses the
whole action with its rule (422); nothing is written. Old logs lacking facts
are given them first, in the same write (:mod:`referee.ledger.round_facts`).

Both answer :class:`Outcome`: the new state and ``changes``, one entry per
later event after which a player's balance in the match or the pot differs
(``shared/API.md``, Matches). ``dry_run`` makes the very same write and rolls
it back, so a dry run's ``changes`` are the real one's by construction.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.exc import IntegrityError

from referee.engine import BadInput, MatchState, RuleViolation
from referee.engine.money import Money
from referee.engine.spec import spec
from referee.engine.vocab import EventKind
from referee.ledger import fold, live, round_facts, rounds, tables
from referee.ledger.carries import _check_carry_kept
from referee.ledger.fold_steps import place_of
from referee.ledger.idempotency import Idem
from referee.ledger.inputs import clean_name, night_money
from referee.ledger.rounds import _conflict, get_match, round_at, state_json
from referee.ledger.tx import Conflict, NotFound, store_reply, writing
from referee.models import MAX_ID, Match, Round, db


@dataclass(frozen=True)
class Outcome:
    """A void's or correction's new state and the later events whose money it changes (as the API shows them)."""

    state: MatchState
    changes: list[dict[str, Any]] = field(default_factory=list)


class _DryRun(Exception):
    """Not an error: how a dry run leaves its write, rolled back, with its answer."""

    def __init__(self, outcome: Outcome) -> None:
        self.outcome = outcome


def void_round(match_id: int, seq: object, reason: object, *, idem: Idem | None = None,
               dry_run: bool = False) -> Outcome:
    """Mark round ``seq`` void and recompute the match without it (see the module's docstring).

    A void names its round, not a view of the match, so when another phone's
    write gets in first (the version check catches it) it is simply tried
    again on the new state, as a round is.
    """
    number, why = _number(seq), _reason(reason)
    return _retry(match_id, lambda: _void_once(match_id, number, why), idem, dry_run)


def correct_round(match_id: int, seq: object, payload: object, reason: object, *, idem: Idem | None = None,
                  dry_run: bool = False) -> Outcome:
    """Replace round ``seq``'s entry by ``payload`` in its place in the order of play (see the module's docstring)."""
    number, why = _number(seq), _reason(reason)
    if not isinstance(payload, Mapping):
        raise BadInput("round", "The round must be a JSON object.")
    return _retry(match_id, lambda: _correct_once(match_id, number, dict(payload), why), idem, dry_run)


def _number(seq: object) -> int:
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 < seq <= MAX_ID:
        raise BadInput("round", "round must be a number.")
    return seq


def _reason(reason: object) -> str:
    return "" if reason in (None, "") else clean_name(reason, "reason", 500)


def _retry(match_id: int, once: Any, idem: Idem | None, dry_run: bool) -> Outcome:
    for _attempt in range(5):
        try:
            with writing(idem=None if dry_run else idem):
                outcome: Outcome = once()
                if dry_run:
                    raise _DryRun(outcome)  # rolls the write back: nothing is kept
                store_reply(idem, outcome)
            return outcome
        except _DryRun as done:
            db.session.expire_all()
            return done.outcome
        except (IntegrityError, Conflict):
            db.session.rollback()
            db.session.expire_all()
    raise _conflict(get_match(match_id))


def _target(match_id: int, seq: int) -> tuple[Match, Round]:
    """The match and its round ``seq`` inside the write, checked; old rounds given their facts first."""
    match = get_match(match_id)
    rnd = round_at(match.id, seq)
    if rnd is None:
        raise NotFound(f"Match {match_id} has no round {seq}.")
    tables.refuse_if_final(match)  # a finished tournament's standings are paid out
    if rnd.void:
        raise BadInput("round", "Round %(seq)s is already void.", seq=seq)
    if round_facts.lacking(match.id):
        round_facts.ensure(match)
        db.session.refresh(rnd)
    return match, rnd


def _refused(exc: RuleViolation, seq: int, place: int, correcting: bool) -> RuleViolation:
    later = getattr(exc, "round", "?")
    if correcting and later == place:
        return RuleViolation(exc.rule, "The corrected round %(seq)s breaks a rule: %(why)s", seq=seq, why=exc)
    if correcting:
        return RuleViolation(exc.rule, "Correcting round %(seq)s would make round %(later)s invalid: %(why)s",
                             seq=seq, later=later, why=exc)
    return RuleViolation(exc.rule, "Voiding round %(seq)s would make round %(later)s invalid: %(why)s",
                         seq=seq, later=later, why=exc)


def _void_once(match_id: int, seq: int, why: str) -> Outcome:
    match, rnd = _target(match_id, seq)
    place, version = place_of(rnd), match.snapshot.version
    before = _history(match)
    try:
        refold = fold.refold(match, seq, place=place)  # from the stored checkpoint before the round
    except RuleViolation as exc:
        raise _refused(exc, seq, place, correcting=False) from None
    new_state = refold.state
    _check_carry_kept(match, fold.state_of(match), new_state)
    rnd.void = True
    rnd.void_reason = why
    rounds._bump(match, version, new_state, next_seq=match.snapshot.next_seq)  # through the module: tests race it
    fold.store_after_void(match, refold)
    live.note(match.night_id, "void", match.id, seq, state=lambda: state_json(match, new_state))
    return Outcome(new_state, changes(night_money(match.night), before, refold, place))


def _correct_once(match_id: int, seq: int, payload: dict[str, Any], why: str) -> Outcome:
    match, rnd = _target(match_id, seq)
    if rnd.kind != EventKind.ROUND:
        raise BadInput("round", "Only a round can be corrected; round %(seq)s is a close.", seq=seq)
    rules, money = spec(match.game), night_money(match.night)
    kept = dict(rnd.facts or {})
    for name in rules.kept_in_payload:  # the old entry's svängare unless the correction names one
        if payload.get(name) is None and kept.get(name) is not None:
            payload[name] = kept[name]
    place, version, new_seq = place_of(rnd), match.snapshot.version, match.snapshot.next_seq
    state = rules.with_facts(fold.state_before(match, place), kept)
    canonical = rules.round_json(rules.parse_round(state, payload, money), money)  # BadInput: nothing written
    facts = rules.facts(state, canonical)
    before = _history(match)
    try:
        refold = fold.refold(match, seq, place=place, instead=(new_seq, EventKind.ROUND, canonical, facts, place))
    except RuleViolation as exc:
        raise _refused(exc, seq, place, correcting=True) from None
    new_state = refold.state
    _check_carry_kept(match, fold.state_of(match), new_state)
    rnd.void = True
    rnd.void_reason = why
    rnd.corrected_by = new_seq
    db.session.flush()
    rounds._write_event(match, version, EventKind.ROUND, canonical, new_state, None, facts=facts, corrects=place)
    fold.store_after_void(match, refold)
    return Outcome(new_state, changes(money, before, refold, place))


def _history(match: Match) -> fold.History | None:
    """The match's running balances before the change; None for a log that no longer replays (the void that
    mends it has nothing to compare with)."""
    try:
        return fold.history(match)
    except fold.CorruptLog:
        return None


def changes(money: Money, before: fold.History | None, after: Any, place: int) -> list[dict[str, Any]]:
    """The later events (placed after ``place``) after which a balance or the pot differs between the history
    ``before`` and the refold ``after``: ``{"round", "balances": {name: [before, after]}, "pot": [...]}``."""
    if before is None:
        return []
    was = {at: (balances, pot) for at, balances, pot in zip(before.seqs, before.balances, before.pots, strict=True)}
    out: list[dict[str, Any]] = []
    for at, balances, pot in zip(after.seqs, after.balances, after.pots, strict=True):
        if at <= place or at not in was:
            continue
        old_balances, old_pot = was[at]
        entry: dict[str, Any] = {"round": at, "balances": {
            name: [money.format(old), money.format(new)]
            for name, old, new in zip(before.players, old_balances, balances, strict=True) if old != new}}
        if old_pot != pot:
            entry["pot"] = [money.format(old_pot), money.format(pot)]
        if entry["balances"] or "pot" in entry:
            out.append(entry)
    return out
