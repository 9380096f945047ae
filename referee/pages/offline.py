"""Offline at the table (issue 15): the service worker and what the queue of entries needs from the server.

``GET /sw.js`` serves ``static/sw.js`` from the root, so that its scope covers
every page, preceded by the list of the app's shell files (their versioned
URLs) and a version that changes whenever the worker or a shell file does:
a new version makes the browser install the new worker and drop the old
shell cache.

The queue itself lives in the phone (``static/js/offline.js``, IndexedDB):
every tap of a round, void, close or payment form gets an idempotency key
there, stored before the first send, and goes in the form's ``form_token``.
The server makes a resent entry harmless: every queued form's ``form_token``
is its idempotency key, through the one path of :mod:`referee.ledger.idempotency`
(:func:`page_idem`, the reply kept in the write's own transaction as for the
API; a key resent with other fields is refused). :func:`_note_done` tells the
following pages which keys were just saved, so the phone can strike them from
its queue without sending them again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

from flask import Response, current_app, get_flashed_messages, request, session, url_for
from flask.sessions import SecureCookieSessionInterface
from flask_babel import format_decimal

from referee import ledger, static_files
from referee.ledger import idempotency
from referee.offline import round_parse
from referee.pages import bp, phone_rights
from referee.pages.queue_keys import DONE_KEPT, done_key, done_keys
from referee.web import idempotent

#: The shell: every page's styles and scripts, and the icon and manifest (paths under static/).
SHELL_DIRS = ("css", "js", "icons")
SHELL_FILES = ("manifest.json",)
#: Not in the shell: the engine's worker is kept with the engine, on a leader's phone that wants it (issue 29).
ENGINE_SCRIPTS = ("js/pyengine-worker.mjs",)

#: The page forms whose posts the phone may queue, and the key's scope for voids and closes.
QUEUED_ENDPOINTS = ("pages.add_round", "pages.void_round", "pages.close_match", "pages.add_payment",
                    "pages.void_payment")


def shell_files(static: Path) -> list[str]:
    """The shell's files relative to ``static/``, in a stable order (the in-browser engine is cached on use)."""
    found = [p.relative_to(static).as_posix() for d in SHELL_DIRS for p in sorted((static / d).glob("*"))
             # not the compressed copies: the server picks
             if p.is_file() and not p.name.endswith(static_files.VARIANTS)
             and p.relative_to(static).as_posix() not in ENGINE_SCRIPTS]
    return found + [f for f in SHELL_FILES if (static / f).is_file()]


@bp.get("/sw.js")
def service_worker() -> Any:
    static = Path(current_app.static_folder or "static")
    shell = [url_for("static", filename=f) for f in shell_files(static)]
    source = (static / "sw.js").read_text(encoding="utf-8")
    version = hashlib.sha256(json.dumps(shell).encode() + source.encode()).hexdigest()[:12]
    head = f"const SHELL = {json.dumps(shell)};\nconst VERSION = {json.dumps(version)};\n"
    resp = Response(head + source, mimetype="text/javascript")
    resp.headers["Service-Worker-Allowed"] = "/"
    return resp


def page_idem() -> idempotency.Idem | None:
    """The form's ``form_token`` as the idempotency key of a page write (void, close, payment), if it sent one.

    Raises :class:`idempotency.Replayed` when the write was made before (see :func:`once`).
    """
    return idempotent.from_request(lambda _result: (200, {}), form=True)


@contextmanager
def once() -> Iterator[None]:
    """A page write that was made before (a resent entry of the phone's queue) ends here as if made now."""
    try:
        yield
    except idempotency.Replayed:
        pass


@bp.after_app_request
def _note_done(resp: Response) -> Response:
    """After a queued form's write went through (a redirect), name its key to the next page.

    The next page shows it in ``data-done`` (``templates/_offline.html``), and
    the phone drops that entry from its queue instead of sending it again.
    """
    if (request.method == "POST" and request.endpoint in QUEUED_ENDPOINTS and resp.status_code in (302, 303)
            and (key := idempotent.form_key())):
        session["offline_done"] = [key, *[k for k in done_keys() if k != key]][:DONE_KEPT]
    return resp


def posted_key() -> str:
    """The key of the queued form whose answer is this page (a refusal or conflict shown with the form)."""
    if request.method != "POST" or request.endpoint not in QUEUED_ENDPOINTS:
        return ""
    try:
        return idempotent.form_key()
    except Exception:  # an unreadable or oversized body: its error page names no key
        return ""


def match_state(match: Any) -> str:
    """What the engine in the phone needs to check this match's round form offline (issue 16), as JSON.

    Only for a phone that may enter rounds, on a game with a round form: the
    snapshot (the state the engine folds from), the round it is for, the
    seats, and the currency with its minor-unit digits (the page shows the
    amounts the waiting rounds lead to in it). Empty otherwise.
    """
    if (match is None or round_parse.module(match.game) is None
            or not phone_rights.can_edit(match.night, match.id)):
        return ""
    snap = match.snapshot
    return json.dumps({"match": match.id, "game": match.game, "next": snap.next_seq, "state": snap.state,
                       "players": list(match.seats), "digits": ledger.night_money(match.night).digits,
                       "currency": match.night.currency},
                      separators=(",", ":"))


#: Headers of the pages fetched in the background: the live table's refresh and the service worker's keeping.
BACKGROUND_HEADERS = ("X-Live", "X-Keep")


def flashed_messages(*args: Any, **kwargs: Any) -> Any:
    """``get_flashed_messages`` for templates, except that a page fetched in the background takes none.

    With the service worker between the phone and the server, the live
    table's refresh (an event for the phone's own round arrives while the
    post's redirect is on its way) can reach the server before the page the
    phone navigates to; it must not take that page's "Round 5 saved".
    """
    if any(request.headers.get(h) for h in BACKGROUND_HEADERS):
        return []
    return get_flashed_messages(*args, **kwargs)


class SessionInterface(SecureCookieSessionInterface):
    """The signed-cookie session, except that only navigations refresh the cookie unasked.

    The session is permanent, so Flask would send it again with every answer;
    an answer to a request that started before a form's post but ended after
    it would put back the cookie from before the post: its "Round 5 saved",
    the saved entry's key, even a fresh edit grant would be lost. Such
    requests are the live table's refresh, the service worker keeping the
    night's pages or the engine's files, the live stream reconnecting, and the
    browser's own check for a new ``/sw.js``, which it sends the moment a form
    is tapped (CI saw a trick-referee round lose its "Round 1 saved" so).
    None of them changes the session, so unless one did change it the cookie
    is left alone; a page the phone navigates to still refreshes it.
    """

    def should_set_cookie(self, app: Any, session: Any) -> bool:
        if not session.modified and not navigation():  # (a first CSRF token made for a kept page is still saved)
            return False
        return bool(super().should_set_cookie(app, session))


def navigation() -> bool:
    """Whether the request is the phone opening a page, not a fetch, a static file or the worker's check.

    Browsers say so in ``Sec-Fetch-Mode`` (a navigation the service worker
    passes on keeps ``navigate``); without that header (older browsers,
    scripts) the endpoints and the background headers tell.
    """
    mode = request.headers.get("Sec-Fetch-Mode")
    if mode is not None:
        return mode == "navigate"
    return not (request.endpoint in ("static", "pages.service_worker") or request.blueprint == "api"
                or any(request.headers.get(h) for h in BACKGROUND_HEADERS))


@bp.record_once
def _session_interface(state: Any) -> None:
    if type(state.app.session_interface) is SecureCookieSessionInterface:
        state.app.session_interface = SessionInterface()


def engine_files() -> dict[str, Any]:
    """The in-browser engine's versioned URLs and its bytes on the wire, for ``templates/_pyengine.html``.

    ``files`` is what a phone keeps to check rounds with no network (issue 29: fetched only on a leader's
    phone, after asking or when the phone reports no data saving; see ``static/js/offline_check.js``).
    """
    static = Path(current_app.static_folder or "static")
    base = static_files.engine_base(static)
    worker = url_for("static", filename="js/pyengine-worker.mjs")
    bundle = url_for("static", filename=f"{static_files.PYODIDE_DIR}/referee_engine.zip")
    files = [base + name for name in static_files.PYODIDE_FILES] if base else []
    paths = [static / static_files.PYODIDE_DIR / name for name in (*static_files.PYODIDE_FILES, "referee_engine.zip")]
    paths.append(static / "js" / "pyengine-worker.mjs")
    size = sum(static_files.wire_size(path) for path in paths)
    raw = sum(static_files.wire_size(path, raw=True) for path in paths)
    megabytes = Decimal(size).scaleb(-6).quantize(Decimal("0.1"))
    return {"worker": worker, "base": base, "bundle": bundle, "files": [*files, bundle, worker], "bytes": size,
            "raw_bytes": raw,
            "size": f"{format_decimal(megabytes, format='#,##0.0')} MB"}


@bp.app_context_processor
def _offline_context() -> dict[str, Any]:
    return {"offline_done_key": done_key, "offline_posted_key": posted_key, "offline_match_state": match_state,
            "get_flashed_messages": flashed_messages, "offline_engine": engine_files}
