"""``GET /api/nights/<id>/live``: the night's Server-Sent Events stream (API.md "Live").

Reading needs the view or edit token, as for any read; the events carry ids
and numbers only, so a view token never hears anything edit-only. A stream
takes one of the process's stream slots (capped in all, per night, per
credential and per client address: ``429`` above a cap) and ends when its token stops opening the
night (a revoked edit link). The work is
in :mod:`referee.ledger.live` and :mod:`referee.web.sse`; here is only HTTP.
"""

from __future__ import annotations

import select
import socket
import ssl
from collections.abc import Callable

from flask import Response, current_app, request

from referee import ledger, live_slots
from referee.api import Denied, _token, authorized_night, bp
from referee.ledger import live, rights
from referee.models import MAX_ID, db, token_key
from referee.web import sse
from referee.web.caller import app_context


def _last_event_id() -> int | None:
    raw = request.headers.get("Last-Event-ID") or request.args.get("last_event_id") or ""
    raw = raw.strip()
    if raw.isascii() and raw.isdigit() and int(raw) <= MAX_ID:
        return int(raw)
    return None


def _match_filter() -> int | None:
    """``?match=<id>``: only that match's changes and the night-wide ones (an addition to API.md)."""
    raw = request.args.get("match", "").strip()
    return int(raw) if raw.isascii() and raw.isdigit() and int(raw) <= MAX_ID else None


def _news() -> live.News | None:
    """``?state=1`` with ``?match=``: the stream sends ``state`` events, read by this (an addition to API.md).

    The match's ``state`` as ``GET /api/matches/<id>`` answers it; the
    stream sends none for a match of another night, whose state this token
    may not read.
    """
    if request.args.get("state") != "1" or _match_filter() is None:
        return None
    return ledger.stored_states_json


def _gone() -> Callable[[], bool] | None:
    """Whether the phone closed the stream's connection (gunicorn hands its socket over); None if not known.

    Why: a stream notices a closed connection only when it writes (a ping,
    every 15 s), and until then it holds a stream slot; a phone that moves
    from page to page would hold one per page.
    """
    sock = request.environ.get("gunicorn.socket")
    if not isinstance(sock, socket.socket) or isinstance(sock, ssl.SSLSocket):
        return None

    poller = select.poll()  # (not select.select: a busy worker's descriptors go past 1024)
    poller.register(sock, select.POLLIN)

    def gone() -> bool:
        try:
            if not poller.poll(0):
                return False
            return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""  # readable, nothing to read: closed
        except BlockingIOError:
            return False
        except (OSError, ValueError):
            return True

    return gone


@bp.get("/nights/<int:night_id>/live")
def live_stream(night_id: int) -> Response:
    authorized_night(night_id, write=False)
    token = _token() or ""
    key = token_key(token)
    cfg = current_app.config
    try:  # a stream over a cap is refused before it takes a thread for minutes (referee/live_slots.py)
        ticket = live_slots.slots_for(cfg, current_app.extensions).take(
            night_id, key, live_slots.address_key(request.remote_addr))
    except live_slots.Full as full:
        raise Denied(429, full.message, full.retry_after) from None
    engine = db.engine
    db.session.remove()  # the stream waits without holding a connection of the pool
    body = sse.stream(engine, night_id, _last_event_id(), match_id=_match_filter(),
                      opens=rights.still_opens(night_id, token, app_context()), gone=_gone(), news=_news(),
                      ping=float(cfg.get("LIVE_PING", 15)), lifetime=float(cfg.get("LIVE_LIFETIME", 300)))
    resp = Response(live_slots.Held(body, ticket), mimetype="text/event-stream")
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["X-Accel-Buffering"] = "no"  # a proxy in front must not hold the events back
    return resp
