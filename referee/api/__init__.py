"""The JSON API of ``shared/API.md``: translation between HTTP and ledger.

No rule arithmetic here: shapes in, service call, engine's state out. A
``RuleViolation`` becomes 422 with the rule's ID, a ``BadInput`` 400 with the
field, a lost race 409 with the fresh state.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date as Date
from typing import Any

from flask import Blueprint, Response, jsonify, request
from flask_babel import ngettext
from werkzeug.exceptions import HTTPException

from referee import exports, ledger, payment_codes, pots
from referee.engine import BadInput, RuleViolation
from referee.engine.records import expect_object
from referee.engine.spec import SPECS
from referee.ledger import idempotency, inputs, paying, payments, ratelimit, rights
from referee.messages import explain
from referee.models import Match, Night
from referee.web import idempotent
from referee.web.caller import caller

bp = Blueprint("api", __name__, url_prefix="/api")


class Denied(Exception):
    """Missing (401) or wrong (403) credentials, or too many wrong ones (429)."""

    def __init__(self, status: int, message: str, retry_after: int = 0) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after


# --- errors ------------------------------------------------------------------

def error(status: int, message: str, **extra: Any) -> tuple[Response, int]:
    return jsonify({"error": message, **extra}), status


@bp.errorhandler(BadInput)
def _bad_input(exc: BadInput) -> tuple[Response, int]:
    return error(400, explain(exc), field=exc.field)


@bp.errorhandler(RuleViolation)
def _rule(exc: RuleViolation) -> tuple[Response, int]:
    return error(422, explain(exc), rule=exc.rule)


@bp.errorhandler(ledger.NotFound)
def _not_found(exc: ledger.NotFound) -> tuple[Response, int]:
    return error(404, str(exc))


@bp.errorhandler(Denied)
def _denied(exc: Denied) -> tuple[Response, int]:
    resp, status = error(exc.status, exc.message)
    if exc.retry_after:
        resp.headers["Retry-After"] = str(exc.retry_after)
    return resp, status


@bp.errorhandler(ledger.Conflict)
def _conflict(exc: ledger.Conflict) -> tuple[Response, int]:
    return error(409, explain(exc), match=ledger.match_json(exc.match))




@bp.errorhandler(rights.TooManyWrong)
def _too_many_wrong(exc: rights.TooManyWrong) -> tuple[Response, int]:
    return _denied(Denied(429, f"Too many wrong tokens from this address; try again in {exc.wait} seconds.",
                          exc.wait))


@bp.errorhandler(ratelimit.TooManyCreated)
def _too_many_created(exc: ratelimit.TooManyCreated) -> tuple[Response, int]:
    return _denied(Denied(429, ngettext(exc.message, exc.plural, exc.minutes, n=exc.limit), exc.wait))


@bp.errorhandler(idempotency.Replayed)
def _replayed(exc: idempotency.Replayed) -> tuple[Response, int]:
    """A write sent again with its key: the first answer, status and body, marked as a replay (issue 31.3)."""
    resp = jsonify(exc.body)
    resp.headers[idempotency.REPLAYED_HEADER] = "true"
    return resp, exc.status


@bp.errorhandler(idempotency.KeyReused)
def _key_reused(exc: idempotency.KeyReused) -> tuple[Response, int]:
    return error(422, explain(exc), field=exc.field)


@bp.errorhandler(HTTPException)
def _http(exc: HTTPException) -> tuple[Response, int]:
    field = getattr(exc, "field", None)  # the door's refusal names where the text was (text_door.Unstorable)
    return error(exc.code or 500, exc.description or exc.name, **({"field": field} if field else {}))


# --- request helpers ---------------------------------------------------------

def body(allowed: set[str], required: set[str] = frozenset()) -> dict[str, Any]:  # type: ignore[assignment]
    """The request's JSON object, with only known fields."""
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise BadInput("body", "The request body must be a JSON object.")
    expect_object(data, "round", allowed, required)
    return data


def _token() -> str | None:
    auth = request.headers.get("Authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    view = request.args.get("view")
    return view or None


def authorized_night(night_id: int, write: bool) -> Night:
    """The night of the URL (404 if none), once the request's token may read it, or write to it."""
    night = ledger.get_night(night_id)
    authorize(night, write)
    return night


#: A table token's refusal: it writes to its own table's match, and to nothing else of the night.
TABLE_ONLY = ("A table's token enters, voids and closes the rounds of its own table only; "
              "everything else needs the organiser's edit token.")


def authorize(night: Night, write: bool, match_id: int | None = None) -> rights.Access:
    """Edit token for writes (to the night, or to match ``match_id`` of it); edit or view token for reads.

    A tournament's table token writes to its own table's match only (issue 30).

    Asks :func:`referee.ledger.rights.night_access` with tokens only.
    """
    token = _token()
    if not token:
        raise Denied(401, "This night needs its edit token (Authorization: Bearer ...) "
                          "or its view token (?view=...).")
    access = rights.night_access(night, token, caller(), grants=None)  # a wrong token is counted there
    if not access.may_view():
        raise Denied(403, "That token does not open this night.")
    if write and not access.may_edit(match_id):
        if access.match_id is not None:  # a table's token: what it may do, not what a view token may (issue 45.3)
            raise Denied(403, TABLE_ONLY)
        raise Denied(403, "The view token can only read; writes need the edit token.")
    return access


Render = Callable[[Any], tuple[int, dict[str, Any]]]


def respond(idem: idempotency.Idem | None, render: Render, result: Any) -> tuple[Response, int]:
    """A write's answer: the one kept with its key (what a replay will answer), else ``render(result)``."""
    status, payload = idempotency.answer(idem, render, result)
    return jsonify(payload), status


def _date(value: object) -> Date | None:
    if value in (None, ""):
        return None
    try:
        return Date.fromisoformat(str(value))
    except ValueError:
        raise BadInput("date", "date must be written as YYYY-MM-DD.") from None


# --- nights ------------------------------------------------------------------

def night_json(night: Night, *, with_tokens: bool = False) -> dict[str, Any]:
    money = ledger.night_money(night)
    result = payments.settlement(night).result
    balances = {name: result[name] for name in night.player_names}
    out: dict[str, Any] = {
        "id": night.id,
        "name": night.name,
        "date": night.date.isoformat() if night.date else None,
        "place": night.place,
        "leader": night.leader,
        "currency": night.currency,
        "language": night.language,
        "group": night.group.name,
        "players": night.player_names,
        "balances": {k: money.format(v) for k, v in balances.items()},
        "pots": money.format(pots.pot_amount(result)),
        "matches": [{"id": m.id, "game": m.game, "players": list(m.seats), "status": m.status}
                    for m in night.matches],
    }
    if with_tokens:
        out |= {"edit_token": night.edit_token, "view_token": night.view_token,
                "group_token": night.group.token}
    return out


def _created_night(night: Night) -> tuple[int, dict[str, Any]]:
    return 201, night_json(night, with_tokens=True)


@bp.post("/nights")
def create_night() -> Any:
    idem = idempotent.from_request(_created_night)
    data = body({"name", "currency", "players", "group", "group_token", "date", "place", "leader", "language"},
                {"name", "currency", "players"})
    if isinstance(data.get("group_token"), str) and rights.group(data["group_token"], caller()) is None:  # counted
        raise ledger.NotFound("No group has that token.")
    night = ledger.create_night(
        data["name"], data["currency"], data["players"], date=_date(data.get("date")),
        place=data.get("place", ""), group=data.get("group"), group_token=data.get("group_token"),
        leader=data.get("leader", ""), idem=idem, caller=caller(),
        # Its sheets' language when a reader asks for none: as given, else the client's Accept-Language.
        language=data.get("language", request.accept_languages.best_match(inputs.LANGUAGES)))
    return respond(idem, _created_night, night)


@bp.get("/nights/<int:night_id>")
def get_night(night_id: int) -> Any:
    night = authorized_night(night_id, write=False)
    return jsonify(night_json(night))


@bp.post("/nights/<int:night_id>/revoke")
def revoke(night_id: int) -> Any:
    """A new edit token: the old one (and every phone holding it) can no longer write."""
    night = authorized_night(night_id, write=True)
    token = ledger.revoke_edit_token(night)
    return jsonify({"id": night.id, "edit_token": token})


@bp.post("/nights/<int:night_id>/players")
def add_player(night_id: int) -> Any:
    night = authorized_night(night_id, write=True)

    def render(joined: Night) -> tuple[int, dict[str, Any]]:
        return 201, night_json(joined)

    idem = idempotent.from_request(render)
    data = body({"name"}, {"name"})
    ledger.add_player(night, data["name"], idem=idem)
    return respond(idem, render, ledger.get_night(night_id))


def settlement_json(night: Night, plan_kind: str = "fewest") -> dict[str, Any]:
    """The settlement as the API shows it: what is open and the plan to settle it.

    Players' maps hold players only; what lies in pots is in ``pots`` (the
    result) and ``pot_account`` (see :mod:`referee.pots`).
    """
    money = ledger.night_money(night)
    s = payments.settlement(night)
    plan = payments.leader_plan(s) if plan_kind == "leader" else s.plan

    def amounts(values: dict[str, int], *, nonzero: bool = False) -> dict[str, str]:
        return {k: money.format(v) for k, v in pots.players_only(values).items() if v or not nonzero}

    return {
        "balances": amounts(s.open),
        "result": amounts(s.result),
        "opening": amounts(s.opening, nonzero=True),
        "paid": amounts(s.paid, nonzero=True),
        "carried_out": amounts(s.carried_out, nonzero=True),
        "pots": money.format(pots.pot_amount(s.result)),
        "pot_account": {key: money.format(pots.pot_amount(values)) for key, values in (
            ("result", s.result), ("opening", s.opening), ("paid", s.paid), ("carried_out", s.carried_out),
            ("open", s.open))},
        "per_match": [{"match": m.id, "game": m.game, "balances": amounts(b)} for m, b in s.per_match],
        "plan": plan_kind,
        "transfers": [pots.parties_json(w.payer, w.payee) | {
            "amount": money.format(w.amount), "payer_owes": money.format(-w.payer_open),
            "payee_is_owed": money.format(w.payee_open)} for w in payments.explain(s, plan)],
        "exact": plan.exact,
        "note": plan.note,
        "settled": s.settled,
        "payments": [payment_json(p, money) for p in s.payments],
    }


def payment_json(p: Any, money: Any) -> dict[str, Any]:
    return {"id": p.id, "kind": p.kind, **pots.parties_json(p.payer, p.payee), "amount": money.format(p.amount),
            "void": p.void, "void_reason": p.void_reason or None, "created_at": p.created_at.isoformat() + "Z"}


@bp.get("/nights/<int:night_id>/settlement")
def settlement(night_id: int) -> Any:
    night = authorized_night(night_id, write=False)
    kind = request.args.get("plan", "fewest")
    if kind not in ("fewest", "leader"):
        raise BadInput("plan", "plan must be fewest or leader.")
    return jsonify(settlement_json(night, kind))


@bp.post("/nights/<int:night_id>/payments")
def add_payment(night_id: int) -> Any:
    """A transfer paid, fully or partly (an event: voidable, never edited)."""
    night = authorized_night(night_id, write=True)

    def render(row: Any) -> tuple[int, dict[str, Any]]:
        return 201, {"payment": payment_json(row, ledger.night_money(night)), "settlement": settlement_json(night)}

    idem = idempotent.from_request(render)
    data = body({"from", "to", "from_pot", "to_pot", "amount"}, {"amount"})
    payer, payee = pots.parties_in(data, night.player_names)
    row = payments.record_payment(night, payer, payee, data["amount"], idem=idem)
    return respond(idem, render, row)


@bp.post("/nights/<int:night_id>/payments/<int:payment_id>/void")
def void_payment(night_id: int, payment_id: int) -> Any:
    night = authorized_night(night_id, write=True)

    def render(_voided: Any) -> tuple[int, dict[str, Any]]:
        return _settled(night)

    idem = idempotent.from_request(render)
    data = body({"reason"})
    voided = payments.void_payment(night, payment_id, data.get("reason"), idem=idem)
    return respond(idem, render, voided)


@bp.post("/nights/<int:night_id>/carry")
def carry(night_id: int) -> Any:
    """Carry what is still open to a later night of the group (opening balances there)."""
    night = authorized_night(night_id, write=True)
    idem = idempotent.from_request(_settled)
    data = body({"to_night"}, {"to_night"})
    payments.carry_debts(night, data["to_night"], idem=idem)
    return respond(idem, _settled, night)


def _settled(night: Night) -> tuple[int, dict[str, Any]]:
    """The answer of a payment's void and of a carry: the night's settlement."""
    return 200, {"settlement": settlement_json(night)}


@bp.post("/nights/<int:night_id>/players/<name>/details")
def payment_details(night_id: int, name: str) -> Any:
    """A player's Swish number and/or IBAN with the account holder, and the IBAN's bank where it is known."""
    night = authorized_night(night_id, write=True)
    data = body({"swish", "iban", "holder"})
    player = paying.set_payment_details(night, name, data.get("swish", ""), data.get("iban", ""),
                                          data.get("holder", ""))
    return jsonify({"name": player.name, "swish": player.swish, "iban": player.iban,
                    "holder": player.account_holder,
                    "bank": payment_codes.bank_name(player.iban) if player.iban else None})


@bp.get("/nights/<int:night_id>/export.json")
def export_night(night_id: int) -> Any:
    """Everything needed to rebuild the night (its facts, never derived states)."""
    night = authorized_night(night_id, write=False)
    resp = jsonify(exports.export_night(night))
    resp.headers["Content-Disposition"] = f'attachment; filename="night-{night.id}.json"'
    return resp


@bp.post("/import")
def import_night() -> Any:
    """A night export into a new group: checked and replayed before anything is stored."""
    request.max_content_length = 16 * 1024 * 1024  # exports of long nights pass 256 KB; set before reading
    idem = idempotent.from_request(_created_night)
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise BadInput("body", "The request body must be a JSON object (a night export).")
    night = exports.import_night(data, idem=idem, caller=caller())
    return respond(idem, _created_night, night)


# --- matches -----------------------------------------------------------------

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
    render = _new_state(match_id)
    idem = idempotent.from_request(render)
    data = body({"reason"})
    state = ledger.void_round(match_id, seq, data.get("reason"), idem=idem)
    return respond(idem, render, state)


def _new_state(match_id: int) -> Render:
    """The answer of a void or a close: the match's new state."""
    return lambda state: (200, {"state": _state_json(match_id, state)})


@bp.post("/matches/<int:match_id>/close")
def close_match(match_id: int) -> Any:
    _match_for(match_id, write=True)
    render = _new_state(match_id)
    idem = idempotent.from_request(render)
    data = body({"pot", "to"})
    state = ledger.close_match(match_id, data.get("pot", "split"), data.get("to"), idem=idem)
    return respond(idem, render, state)


from referee.api import docs, groups, live, openapi, referee_routes, tournaments  # noqa: E402,F401  (routes register on bp)
