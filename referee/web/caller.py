"""The request's caller as the ledger's rights check takes it: its address, the app's limiter, the phone's grants.

Why here: :mod:`referee.ledger.rights` and :mod:`referee.ledger.ratelimit`
take plain values; this module is the one place that reads them off Flask's
request, app and session (``request.remote_addr`` is the client's address,
also behind a proxy: ``referee/proxies.py`` sets it).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

from flask import current_app, request, session
from flask.sessions import SessionMixin

from referee.ledger.ratelimit import Caller, FailureLimiter

#: Where ``create_app`` keeps the app's :class:`FailureLimiter`s (one per app: tests build apps with their own
#: limits): wrong tokens, and the nights, tournaments and imports an address creates.
LIMITER = "referee.failures"
CREATIONS = "referee.creations"


def caller() -> Caller:
    """This request's caller: its address (``"unknown"`` when the server knows none) and the app's limiters."""
    limiter: FailureLimiter = current_app.extensions[LIMITER]
    creations: FailureLimiter = current_app.extensions[CREATIONS]
    return Caller(request.remote_addr or "unknown", limiter, creations)


def grants() -> SessionMixin:
    """This phone's grants: its signed session cookie (a mutable mapping the ledger reads and writes)."""
    return session


def granted() -> None:
    """After the ledger wrote a grant: the session cookie is kept for good (not only until the browser closes)."""
    session.permanent = True


def app_context() -> Callable[[], AbstractContextManager[object]]:
    """What opens a context of this app later, outside the request (a live stream's rights question)."""
    return current_app._get_current_object().app_context  # type: ignore[attr-defined,no-any-return]
