"""How the app answers when something goes wrong: one place for every error answer.

The API answers JSON ``{"error": ...}``, pages the error page in the user's
language. The database gets special care, because a game night must never
see a 500 for it: busy or unreachable is a 503 with ``Retry-After`` (the
phone tries again), full or read-only a 507 (trying again will not help;
someone must free space), and a connection lost at the very end of a
request does not spoil an answer that is already right.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, current_app, jsonify, render_template, request
from flask_babel import gettext, ngettext
from flask_wtf.csrf import CSRFError
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from werkzeug.exceptions import HTTPException

from referee.engine import N_
from referee.ledger import Unavailable
from referee.ledger.fold import CorruptLog
from referee.ledger.ratelimit import TooManyCreated
from referee.ledger.rights import TooManyWrong
from referee.ledger.tables import Final
from referee.messages import explain
from referee.models import db


def wants_json() -> bool:
    return request.path.startswith("/api/")


#: The answer when the database refuses to store anything (disk full or read-only database).
#: 507 Insufficient Storage (RFC 4918): trying again a moment later does not help (no
#: Retry-After, unlike the 503 of a busy or unreachable database); someone must free space
#: or make the database writable. The write was rolled back: nothing was saved.
STORAGE_STATUS = 507
STORAGE_MESSAGE = N_("The database cannot store anything right now (disk full or read-only); nothing was saved.")
#: PostgreSQL SQLSTATEs: disk_full, read_only_sql_transaction.
_STORAGE_SQLSTATES = frozenset({"53100", "25006"})
#: SQLite result codes (and their extended forms, e.g. SQLITE_READONLY_DBMOVED).
_STORAGE_SQLITE = ("SQLITE_FULL", "SQLITE_READONLY")
#: The same in words, for drivers that give neither (PostgreSQL: "cannot execute INSERT in a
#: read-only transaction", "could not extend file ...: No space left on device").
_STORAGE_TEXTS = ("database or disk is full", "attempt to write a readonly database",
                  "in a read-only transaction", "no space left on device")


def storage_refused(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or an exception it was raised from) is the database refusing to store:
    disk full or read-only, as opposed to merely busy or unreachable.

    Looks at the driver's error (SQLAlchemy's ``orig``): PostgreSQL's SQLSTATE,
    SQLite's error name (Python 3.11+), and the message as a fallback.
    """
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, DBAPIError | Unavailable):
            driver = getattr(exc, "orig", None) or exc
            code = getattr(driver, "sqlstate", None) or getattr(driver, "pgcode", None)
            if code in _STORAGE_SQLSTATES:
                return True
            if str(getattr(driver, "sqlite_errorname", "")).startswith(_STORAGE_SQLITE):
                return True
            if any(t in str(driver).lower() for t in _STORAGE_TEXTS):
                return True
        exc = exc.__cause__ or exc.__context__
    return False


def storage_error(exc: BaseException) -> tuple[Response, int]:
    """The 507 answer: JSON for the API, the error page in the user's language for pages."""
    # Not a bug and not a busy database: an operator must free space or make it writable.
    current_app.logger.error("database refuses writes (disk full or read-only): %s",
                             str(getattr(exc, "orig", exc)).strip())
    if wants_json():
        return jsonify({"error": STORAGE_MESSAGE}), STORAGE_STATUS
    page = render_template("error.html", code=STORAGE_STATUS, message=gettext(STORAGE_MESSAGE))
    return Response(page), STORAGE_STATUS


def register(app: Flask) -> None:
    """JSON errors for the API, the error page for pages; database trouble is 503 or 507, never a 500."""
    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Any:
        code = exc.code or 500
        # the exception's own headers (Retry-After of a 429, Allow of a 405), not its content type
        headers = [(k, v) for k, v in exc.get_headers() if k.lower() != "content-type"]
        if wants_json():
            field = getattr(exc, "field", None)  # where the door found unstorable text (text_door.Unstorable)
            return jsonify({"error": exc.description or exc.name, **({"field": field} if field else {})}), code, headers
        return render_template("error.html", code=code, message=exc.description), code, headers

    @app.errorhandler(TooManyWrong)
    def _too_many_wrong(exc: TooManyWrong) -> Any:
        # Too many wrong tokens from this address (the ledger's count): 429, and when to try again.
        message, headers = gettext(exc.message, n=exc.wait), {"Retry-After": str(exc.wait)}
        if wants_json():
            return jsonify({"error": message}), 429, headers
        return render_template("error.html", code=429, message=message), 429, headers

    @app.errorhandler(TooManyCreated)
    def _too_many_created(exc: TooManyCreated) -> Any:
        # Too many nights, tournaments and imports from this address within the hour: 429, and when to try again.
        message = ngettext(exc.message, exc.plural, exc.minutes, n=exc.limit)
        headers = {"Retry-After": str(exc.wait)}
        if wants_json():
            return jsonify({"error": message}), 429, headers
        return render_template("error.html", code=429, message=message), 429, headers

    @app.errorhandler(CorruptLog)
    def _corrupt_log(exc: CorruptLog) -> Any:
        # A stored event the engine refuses: the log, not the request, is wrong. 409: the match's stored
        # state conflicts with its rules; the sentence names the match, the round and the rule.
        app.logger.error("corrupted event log: %s", exc)
        db.session.rollback()
        message = explain(exc)
        if wants_json():
            return jsonify({"error": message, "rule": exc.rule, "match_id": exc.match_id, "round": exc.seq}), 409
        return render_template("error.html", code=409, message=message), 409

    @app.errorhandler(Final)
    def _final(exc: Final) -> Any:
        # A change to a finished tournament's table (docs/rules.md): 409, the sentence says why; for every
        # door (API, the match pages, the void page, the offline queue's resend), nothing was written.
        db.session.rollback()
        message = explain(exc)
        if wants_json():
            return jsonify({"error": message, "tournament": exc.tournament_id}), 409
        return render_template("error.html", code=409, message=message), 409

    @app.errorhandler(CSRFError)
    def _csrf(exc: CSRFError) -> Any:
        return render_template("error.html", code=400, message=exc.description), 400

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Any:
        db.session.rollback()
        if storage_refused(exc):
            return storage_error(exc)
        if isinstance(exc, Unavailable | PoolTimeout) or exc.__class__.__name__ == "OperationalError":
            # Expected while the database restarts, or while every pooled connection is taken (a club
            # evening's 40 writers on one SQLite server, bench/tournament.py): one line each, not a traceback.
            app.logger.warning("database unavailable (503): %s", _first_line(getattr(exc, "orig", exc)))
            message, code = N_("The database is busy or unavailable; try again in a moment."), 503
        else:
            app.logger.exception("unexpected error")
            message, code = N_("Something went wrong on our side; nothing was saved."), 500
        if wants_json():
            resp = jsonify({"error": message})
        else:
            resp = Response(render_template("error.html", code=code, message=gettext(message)))
        if code == 503:
            resp.headers["Retry-After"] = "2"
        return resp, code


def _first_line(exc: object) -> str:
    return (str(exc).strip().splitlines() or [""])[0]


def register_session_end(app: Flask) -> None:
    @app.teardown_appcontext
    def _end_session(_exc: BaseException | None) -> None:
        """End the request's session without letting a dead connection turn the answer into a 500.

        Ending the session rolls back its read transaction. If the database went
        away after the answer was made (a restart), that rollback fails; the
        answer is still right (writes commit inside the request), so the
        connection is dropped instead of the error reaching gunicorn.
        """
        try:
            db.session.remove()
        except DBAPIError as exc:
            app.logger.warning("database connection lost at the end of a request: %s", _first_line(exc.orig))
            try:
                db.session.registry().invalidate()
            finally:
                db.session.registry.clear()
