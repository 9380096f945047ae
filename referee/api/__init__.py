"""The JSON API of ``shared/API.md``: translation between HTTP and ledger.

This module is the blueprint's face: the blueprint, its error answers and the request helpers every route
shares (body, tokens, rights, replies of kept keys); the routes live in ``nights``, ``matches``, ``groups``,
``tournaments``, ``ratings``, ``live``, ``referee_routes`` and the docs modules, named at the end.

No rule arithmetic here: shapes in, service call, engine's state out. A
``RuleViolation`` becomes 422 with the rule's ID, a ``BadInput`` 400 with the
field, a lost race 409 with the fresh state.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date as Date
from typing import Any

from flask import Blueprint, Response, jsonify, request
from flask_babel import gettext as _
from flask_babel import ngettext
from werkzeug.exceptions import HTTPException

from referee import ledger
from referee.engine import BadInput, RuleViolation
from referee.engine.records import expect_object
from referee.ledger import idempotency, payments, ratelimit, rights
from referee.messages import explain
from referee.models import Night
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




@bp.errorhandler(payments.NoLeader)
def _no_leader(exc: payments.NoLeader) -> tuple[Response, int]:
    return error(409, _("This night has no leader, so there is no plan through the leader: name one (leader) "
                        "or settle with the fewest payments."), field=exc.field)


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


from referee.api import docs, explained, groups, live, matches, nights, openapi, ratings, referee_routes, tournaments  # noqa: E402, F401  (routes register on bp)
