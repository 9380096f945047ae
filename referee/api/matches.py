"""The API's matches: create, read, rounds (and Knaker's dots), voids, corrections and closes."""

from __future__ import annotations

from typing import Any

from flask import jsonify, request

from referee import ledger
from referee.api import Render, authorize, authorized_night, body, bp, respond
from referee.engine import BadInput
from referee.engine.spec import SPECS
from referee.models import Match
from referee.web import idempotent


def _created_match(match: Match) -> tuple[int, dict[str, Any]]:
    return 201, ledger.match_json(match)


@bp.post("/nights/<int:night_id>/matches")
def create_match(night_id: int) -> Any:
    night = authorized_night(night_id, write=True)
    idem = idempotent.from_request(_created_match)
    data = body({"game", "players", "dealer", "stake", "options"}, {"game", "players"})
    match = ledger.create_match(night, data["game"], data["players"], data.get("dealer"),
                                  data.get("stake"), data.get("options"), idem=idem)
    return respond(idem, _created_match, match)


def _match_for(match_id: int, write: bool) -> Match:
    match = ledger.get_match(match_id)
    authorize(match.night, write=write, match_id=match.id)
    return match


@bp.get("/matches/<int:match_id>")
def get_match(match_id: int) -> Any:
    return jsonify(ledger.match_json(_match_for(match_id, write=False)))


def _state_json(match_id: int, state: Any) -> dict[str, Any]:
    return ledger.state_json(ledger.get_match(match_id), state)


def _enter(match_id: int, payload: dict[str, Any], deal: object = None) -> Any:
    # Holding the match keeps it in the session's identity map (a weak map):
    # the service and the reply below then need no further SELECTs.
    match = _match_for(match_id, write=True)

    def render(entered: tuple[Any, Any]) -> tuple[int, dict[str, Any]]:
        rnd, state = entered
        return 201, {"round": rnd.seq, "state": ledger.state_json(match, state)}

    idem = idempotent.from_request(render)
    expected = request.headers.get("Expected-Round")
    if expected is not None and not (expected.isdigit() and len(expected) <= 9):
        raise BadInput("Expected-Round", "Expected-Round must be the number of the round being entered.")
    entered = ledger.add_round(match_id, payload, idem=idem, expected_seq=int(expected) if expected else None,
                                 deal=deal)
    return respond(idem, render, entered)


@bp.post("/matches/<int:match_id>/rounds")
def add_round(match_id: int) -> Any:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise BadInput("body", "The request body must be a JSON object.")
    # ``deal`` (an addition): the trick referee's log of the deal; judged again and stored with the round.
    payload = {k: v for k, v in data.items() if k != "deal"}
    return _enter(match_id, payload, data.get("deal"))


@bp.post("/matches/<int:match_id>/dots")
def add_dots(match_id: int) -> Any:
    """Knaker's penalty dots (KN-16): stored as an event of the match's log."""
    match = _match_for(match_id, write=True)
    if not SPECS[match.game].has_dots:
        raise BadInput("game", "Dots are given in Knaker matches only.")
    data = body({"player", "offence", "dots"}, {"player", "offence"})
    return _enter(match_id, {"dot": data})


@bp.post("/matches/<int:match_id>/rounds/<int:seq>/void")
def void_round(match_id: int, seq: int) -> Any:
    _match_for(match_id, write=True)
    render = _outcome(match_id)
    idem = idempotent.from_request(render)
    data = body({"reason", "dry_run"})
    outcome = ledger.void_round(match_id, seq, data.get("reason"), idem=idem, dry_run=_dry_run(data))
    return respond(idem, render, outcome)


@bp.post("/matches/<int:match_id>/rounds/<int:seq>/correct")
def correct_round(match_id: int, seq: int) -> Any:
    """Round ``seq`` was played but entered wrong: ``round`` takes its place in the order of play (issue 42)."""
    _match_for(match_id, write=True)
    render = _outcome(match_id)
    idem = idempotent.from_request(render)
    data = body({"round", "reason", "dry_run"}, {"round"})
    outcome = ledger.correct_round(match_id, seq, data["round"], data.get("reason"), idem=idem,
                                   dry_run=_dry_run(data))
    return respond(idem, render, outcome)


def _dry_run(data: dict[str, Any]) -> bool:
    value = data.get("dry_run", False)
    if not isinstance(value, bool):
        raise BadInput("dry_run", "dry_run must be true or false.")
    return value


def _outcome(match_id: int) -> Render:
    """The answer of a void or a correction: the match's new state and the later rounds' changed money."""
    return lambda outcome: (200, {"state": _state_json(match_id, outcome.state), "changes": outcome.changes})


def _new_state(match_id: int) -> Render:
    """The answer of a close: the match's new state."""
    return lambda state: (200, {"state": _state_json(match_id, state)})


@bp.post("/matches/<int:match_id>/close")
def close_match(match_id: int) -> Any:
    _match_for(match_id, write=True)
    render = _new_state(match_id)
    idem = idempotent.from_request(render)
    data = body({"pot", "to"})
    state = ledger.close_match(match_id, data.get("pot", "split"), data.get("to"), idem=idem)
    return respond(idem, render, state)
