"""Matches and their log: entering rounds and closes, reading them back (voids and corrections:
:mod:`referee.ledger.corrections`).

Each action loads what it needs, asks the engine (which checks every rule
before anything is stored), then writes the new event and the new snapshot in
one transaction. A rejected action raises before anything is written, so it
changes nothing. Two phones writing at once meet at the snapshot's version:
one commits, the other gets :class:`Conflict` with the fresh state.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.engine import Engine, Row
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import joinedload
from sqlalchemy.orm.attributes import set_committed_value

from referee.engine import N_, BadInput, MatchState, tricks
from referee.engine.money import Money
from referee.engine.spec import SPECS, Game, spec
from referee.engine.vocab import CLOSE_HOWS, CloseHow, EventKind, MatchStatus
from referee.ledger import fold, idempotency, live, settings, tables
from referee.ledger.fold import state_of
from referee.ledger.idempotency import Idem
from referee.ledger.inputs import currency_money, night_money
from referee.ledger.matches import check_night_room
from referee.ledger.tx import Conflict, NotFound, store_reply, writing
from referee.models import Match, Night, Round, Snapshot, db, now
from referee.offline import round_parse


def match_events_limit() -> int:
    """The most events one match may hold (the app's ``MAX_MATCH_EVENTS``, :mod:`referee.ledger.settings`)."""
    return settings.current().max_match_events


def _check_room(match: Match, *, closing: bool = False) -> None:
    """A match at :func:`match_events_limit`, or its night at its bound, takes no more events (:class:`BadInput`)."""
    limit = match_events_limit()
    if match.snapshot.next_seq > limit:
        raise BadInput("round", "This match holds %(n)s entries, the most a match may hold; close it and "
                                "start a new match to play on.", n=limit)
    check_night_room(match.night_id, closing=closing)

#: What a match is loaded with, and its query, built once (a query built per request cost more CPU
#: than running it).
_MATCH_WITH = (joinedload(Match.night), joinedload(Match.snapshot))
_MATCH_QUERY = select(Match).options(*_MATCH_WITH).where(Match.id == bindparam("match_id"))


def get_match(match_id: int) -> Match:
    """The match with its night and snapshot (one query: this is the hot path).

    As ``Session.get``: a match the session holds already is taken from there
    (refreshed if expired), else loaded with the query built once.
    """
    if Match.__mapper__.identity_key_from_primary_key([match_id]) in db.session.identity_map:
        match = db.session.get(Match, match_id, options=_MATCH_WITH)
    else:
        match = db.session.execute(_MATCH_QUERY, {"match_id": match_id}).scalar()
    if match is None:
        raise NotFound(f"There is no match {match_id}.")
    return match


#: The statements of the hot path (a round entry), built once: building a statement per request cost
#: more CPU than running it (bench/profile_round.py). The UPDATE sets the columns named in its
#: parameters (version, next_seq, state) ``WHERE`` the version is still the one read.
_INSERT_ROUND = insert(Round.__table__)
_snapshots = Snapshot.__table__
_MOVE_SNAPSHOT = update(_snapshots).where(_snapshots.c.match_id == bindparam("match"),
                                          _snapshots.c.version == bindparam("read"))
#: One event of a match by its number (a void), and a match's whole log as plain rows (its JSON): neither
#: loads the match's every round as an object, whose cost grew with the log (a void of a 1,500-round match
#: took 50 ms, its JSON 42 ms; bench/soak.py served half as many requests in its tenth minute as in its first).
_ROUND_AT = select(Round).where(Round.match_id == bindparam("match"), Round.seq == bindparam("seq"))
_LOG = (select(Round.seq, Round.kind, Round.payload, Round.void, Round.void_reason, Round.created_at, Round.deal,
               Round.facts, Round.corrects, Round.corrected_by)
        .where(Round.match_id == bindparam("match")).order_by(Round.seq))


def _write_event(match: Match, version: int, kind: str, payload: dict[str, Any], new_state: MatchState,
                 idem_key: str | None, deal: dict[str, Any] | None = None, *, facts: dict[str, Any] | None = None,
                 corrects: int | None = None) -> Round:
    """Store an event and the new snapshot, or raise :class:`Conflict`.

    A round is stored with its ``facts`` (:mod:`referee.engine.facts`); a
    correction with the number of the round whose place it ``corrects``.

    The event goes in as one Core INSERT (the hot path of a game night: no
    unit-of-work needed for an append-only row); the returned :class:`Round`
    carries its values but is not attached to the session.
    """
    seq = match.snapshot.next_seq
    values = {"match_id": match.id, "seq": seq, "kind": kind, "payload": payload, "created_at": now(),
              "void": False, "void_reason": "", "idempotency_key": idem_key, "deal": deal, "facts": facts,
              "corrects": corrects, "corrected_by": None}
    result = insert_events(values)
    db.session.expire(match, ["rounds"])
    _bump(match, version, new_state, next_seq=seq + 1)
    if seq % fold.CHECKPOINT_EVERY == 0:  # the fold's checkpoint, in the round's transaction (issue 29)
        fold.store_checkpoint(match, seq)
    live.note(match.night_id, kind, match.id, seq, state=lambda: state_json(match, new_state))
    return Round(id=result.inserted_primary_key[0], **values)


def insert_events(rows: dict[str, Any] | list[dict[str, Any]]) -> Any:
    """The one INSERT of Round rows (a round, a close, an import's whole logs), inside :func:`writing`.

    Core on the session's connection: an append-only row needs no unit of
    work, and an import's thousands of events go in as one statement.
    """
    return db.session.connection().execute(_INSERT_ROUND, rows)


def _bump(match: Match, version: int, new_state: MatchState, next_seq: int) -> None:
    db.session.flush()
    plain = fold.snapshot_json(new_state)
    result = db.session.connection().execute(  # a Core UPDATE on the session's connection: no ORM machinery
        _MOVE_SNAPSHOT, {"match": match.id, "read": version, "version": version + 1, "next_seq": next_seq,
                         "state": plain})
    if result.rowcount != 1:
        raise Conflict(N_("The match changed while this was being saved."), match)
    # Keep the loaded snapshot true to the row without marking it dirty.
    snap = match.snapshot
    set_committed_value(snap, "version", version + 1)
    set_committed_value(snap, "next_seq", next_seq)
    set_committed_value(snap, "state", plain)
    status = MatchStatus.CLOSED if new_state.finished else MatchStatus.OPEN
    if match.status != status:
        match.status = status


def _conflict(match: Match) -> Conflict:
    db.session.rollback()
    db.session.expire_all()
    fresh = get_match(match.id)
    last = fresh.snapshot.next_seq - 1
    return Conflict(N_("Round %(n)s was just entered by someone else; here is the new state."), fresh, n=last)


def add_round(match_id: int, payload: object, *, idem: Idem | None = None,
              expected_seq: int | None = None, deal: object = None,
              form: Mapping[str, str] | None = None) -> tuple[Round, MatchState]:
    """Enter a round: the engine checks it, then it is stored with the new state.

    Returns ``(round, state)``; with an ``idem`` whose write was made before,
    nothing is written and :class:`referee.ledger.idempotency.Replayed` carries the
    first answer (also when its twin got in first, before this one's stale
    ``expected_seq`` could be a conflict). ``expected_seq`` (from a form or the
    ``Expected-Round`` header) turns a round entered on a stale view into a
    :class:`Conflict`.

    The engine works outside the write lock, on the snapshot it read; the
    write then only inserts the event and moves the snapshot on ``WHERE
    version = <the version read>``. If another round got in between and the
    caller did not pin the round number, the round is checked again against
    the new state (a few times at most) rather than refused.

    ``deal`` (the trick referee's log of the deal, Svängknack, Kul and
    Schloapfer) is judged again here and stored with the round, in the same
    row: a broken rule raises its :class:`RuleViolation`, a round that is
    not the deal's verdict :class:`BadInput` (field ``deal``).

    ``form`` (the match page's round form, field names to text; ``payload``
    is then None) is read here by the game's parser
    (:func:`referee.offline.round_parse.module`) against the state the round
    is checked on, so the match and its state are loaded once per round
    (issue 48.3: the page no longer loads them to read its own form).
    """
    if form is not None:
        payload = {}  # read below, on the state the round is entered on
    if not isinstance(payload, Mapping):
        raise BadInput("round", "The round must be a JSON object.")
    log: tuple[dict[str, Any], dict[str, Any]] | None = None
    if deal is not None:
        game = get_match(match_id).game
        if game not in tricks.GAMES:
            raise BadInput("deal", "Only Svängknack, Kul and Schloapfer rounds have a deal of tricks.")
        log = tricks.judge_log(game, deal)
        if SPECS[game].has_svangare:  # the deal's leader is the svängare unless the round names one
            payload = {"svangare": log[0]["leader"]} | dict(payload)
    with idempotency.guard(idem):  # a twin sent at once may have entered it (the round moved on)
        for _attempt in range(5):
            match = get_match(match_id)
            snap = match.snapshot
            version, seq = snap.version, snap.next_seq
            if expected_seq is not None and expected_seq != seq:
                raise _conflict(match)
            _check_room(match)
            if match.status == MatchStatus.CLOSED:  # the engine refuses it too; a finished tournament says why
                tables.refuse_if_final(match, lock=False)
            rules = spec(match.game)
            money = night_money(match.night)
            state = state_of(match)
            if form is not None:
                payload = _read_form(match, form, rules.state_json(state, money))
            rnd_rec = rules.parse_round(state, payload, money)
            new_state = rules.apply(state, rnd_rec)  # RuleViolation: nothing written
            canonical = rules.round_json(rnd_rec, money)
            if log is not None:
                check_deal_round(rules, state, money, canonical, log)
            try:
                with writing(fresh=False, idem=idem):
                    rnd = _write_event(match, version, EventKind.ROUND, canonical, new_state,
                                       idem.key if idem else None, log[0] if log is not None else None,
                                       facts=rules.facts(state, canonical))
                    store_reply(idem, (rnd, new_state))
            except (IntegrityError, Conflict):
                db.session.rollback()
                db.session.expire_all()
                if expected_seq is not None:
                    raise _conflict(get_match(match_id)) from None
                continue  # someone else's round got in first: check ours against the new state
            return rnd, new_state
        raise _conflict(get_match(match_id))


def _read_form(match: Match, form: Mapping[str, str], view: dict[str, Any]) -> Mapping[str, Any]:
    """The round form's fields as the API's payload, read by the game's parser with the state's view."""
    parser = round_parse.module(match.game)
    if parser is None:  # an old row's game the registry no longer knows
        raise BadInput("round", "This game has no round form.")
    payload: Mapping[str, Any] = parser.parse(form, view, list(match.seats))
    return payload


def check_deal_round(rules: Game, state: MatchState, money: Money, canonical: Mapping[str, Any],
                     log: tuple[dict[str, Any], dict[str, Any]]) -> None:
    """The round (canonical payload) is exactly the deal's verdict ``round``, else :class:`BadInput` ``deal``.

    In Svängknack the deal's leader is the svängare, so the verdict's round
    gets ``svangare``; both sides are compared in the engine's canonical form.
    """
    expected = dict(log[1])
    if rules.has_svangare:
        expected["svangare"] = log[0]["leader"]
    try:
        want = rules.round_json(rules.parse_round(state, expected, money), money)
    except BadInput as exc:
        raise BadInput("deal", "The deal does not fit this match: %(error)s", error=exc) from None
    if want != dict(canonical):
        raise BadInput("deal", "The round disagrees with its deal: the deal gives %(round)s.",
                       round=json.dumps(want, ensure_ascii=False))


def close_match(match_id: int, how: object = CloseHow.SPLIT, to: object = None, *,
                idem: Idem | None = None) -> MatchState:
    """The leader closes the match; a pot on the table is split, awarded or carried."""
    if how not in CLOSE_HOWS:
        raise BadInput("pot", "pot must be split, award or carry.")
    if to is not None and not isinstance(to, str):
        raise BadInput("to", "to must be a player's name.")
    if how == CloseHow.AWARD and not to:
        raise BadInput("to", "Name the player who gets the pot.")
    payload: dict[str, Any] = {"pot": how} | ({"to": to} if how == CloseHow.AWARD else {})
    with writing(idem=idem):
        match = get_match(match_id)
        tables.refuse_if_final(match)
        if how == CloseHow.CARRY and not spec(match.game).can_carry:
            raise BadInput("pot", "Only a Svängknack or Kul pot can be carried to the next night; "
                                  "split it or give it to a player.")
        rules = spec(match.game)
        snap = match.snapshot
        _check_room(match, closing=True)
        if how == CloseHow.AWARD and to not in match.seats:
            raise BadInput("to", "%(name)s is not a player of this match.", name=repr(str(to)[:40]))
        new_state = rules.close(state_of(match), how, to if how == CloseHow.AWARD else None)
        _write_event(match, snap.version, EventKind.CLOSE, payload, new_state, None)
        db.session.flush()
        store_reply(idem, new_state)
    return new_state


# --- reading -----------------------------------------------------------------

def state_json(match: Match, state: MatchState | None = None) -> dict[str, Any]:
    """The API's view of a match's state (``state``, else the current one): the ``state`` of its answers."""
    return spec(match.game).state_json(state if state is not None else state_of(match),
                                             night_money(match.night))


_matches, _nights_t = Match.__table__, Night.__table__
#: What :func:`stored_states_json` reads: rows of three tables, no ORM.
_STATE_ROWS = (select(_matches.c.id, _matches.c.night_id, _matches.c.game, _nights_t.c.currency, _snapshots.c.state)
               .join(_nights_t, _nights_t.c.id == _matches.c.night_id)
               .join(_snapshots, _snapshots.c.match_id == _matches.c.id)
               .where(_matches.c.id.in_(bindparam("matches", expanding=True))))


def stored_states_json(engine: Engine, match_ids: Sequence[int]) -> dict[int, tuple[int, dict[str, Any]]]:
    """Each match's night and :func:`state_json` of its stored state, read in one statement (no such match: left out).

    Why not :func:`get_match`: the live stream's ``state`` events read this
    after the rounds of the followed tables (:mod:`referee.ledger.live`), on
    no request's session. Loading each match, its night and snapshot as
    objects in an app context of their own cost about as much of a worker's
    interpreter as the round itself (py-spy on ``bench/tournament.py``);
    the live hub reads the tables changed since its last look together.
    """
    with engine.connect() as conn:
        rows = conn.execute(_STATE_ROWS, {"matches": list(match_ids)}).all()
    url = str(engine.url)
    return {int(match_id): (int(night_id), spec(game).state_json(
                fold.stored_state((url, int(match_id)), game, stored), currency_money(currency)))
            for match_id, night_id, game, currency, stored in rows}


def match_json(match: Match, state: MatchState | None = None) -> dict[str, Any]:
    """The API's view of a match: its state and its log."""
    money = night_money(match.night)
    return {
        "id": match.id,
        "night": match.night_id,
        "game": match.game,
        "players": list(match.seats),
        "first_dealer": match.first_dealer,
        "stake": money.format(match.stake),
        "options": match.options,
        "status": match.status,
        "state": state_json(match, state),
        "rounds": [round_json(r) for r in db.session.execute(_LOG, {"match": match.id})],
    }


def round_at(match_id: int, seq: int) -> Round | None:
    """The match's event numbered ``seq``, or None (only that one is loaded: a void, its confirmation page)."""
    rnd: Round | None = db.session.scalar(_ROUND_AT, {"match": match_id, "seq": seq})
    return rnd


def recent_rounds(match: Match, limit: int | None) -> list[Round]:
    """The match's latest events, newest first (all of them with ``limit=None``).

    Pages show the latest few so that a 2,000-round match renders as fast as
    a short one; the full log is one tap away.
    """
    query = select(Round).where(Round.match_id == match.id).order_by(Round.seq.desc())
    if limit is not None:
        query = query.limit(limit)
    return list(db.session.scalars(query))


def round_json(rnd: Round | Row[Any]) -> dict[str, Any]:
    """An event as the API shows it, from its row (its object has the same names)."""
    return {"round": rnd.seq, "kind": rnd.kind, "payload": rnd.payload, "void": rnd.void,
            "void_reason": rnd.void_reason or None, "created_at": rnd.created_at.isoformat() + "Z",
            "deal": rnd.deal, "facts": rnd.facts, "corrects": rnd.corrects, "corrected_by": rnd.corrected_by}
