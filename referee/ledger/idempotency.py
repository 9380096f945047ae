"""Idempotency keys: one path for every write of the API and of the pages (issue 25.1, issue 31.3).

A write sent with a key (the ``Idempotency-Key`` header of the API, the
``form_token`` of a page form, which the phone's offline queue resends) is
made once; the same request sent again gets the first answer again. A key is
bound to what it was first sent with, its *fingerprint*: the method and path,
the credential (the ``Authorization`` header, or none), and a digest of the
body. The same key with another fingerprint is :class:`KeyReused` (422, as
payment APIs answer), never someone else's answer.

Where the answer is kept: table ``idempotent_replies`` (scope, key, status,
body), one row per key, written in the write's own transaction, so that the
change and its answer are stored together or not at all. The scope is
``api`` for every API write and ``page`` for every page form, so a key names
one request wherever it is sent. The row's ``body`` holds the fingerprint
and the answer: ``{"fingerprint": ..., "reply": ...}``.

Concurrent requests with one key: on SQLite each write looks for the key
again inside its write transaction (:func:`recheck`, called by
:func:`referee.ledger.tx.writing`), after the writer lock; on PostgreSQL
(no second look: the request's first one was moments before) the second
insert of the key waits for the first and fails on the unique ``(scope,
key)``, and the write looks again once rolled back. Either way the later
requests get the first answer.

A replay is :class:`Replayed`: the first answer's status and body, with the
header ``Idempotent-Replayed: true`` in the API.

The ledger reads no request (issue 48.1): :func:`bind` takes the key, its
scope and the fingerprint as plain values; ``referee/web/idempotent.py``
reads them off a request (header or form field, method, path, credential, body).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from referee.engine import N_, BadInput
from referee.models import IdempotentReply, db

#: The longest key accepted (the column's width); a longer one is refused, never cut.
MAX_KEY = 100
#: The header a replayed answer carries.
REPLAYED_HEADER = "Idempotent-Replayed"


@dataclass
class Idem:
    """A write's key, its fingerprint, and how to render the write's result as ``(status, body)``.

    ``render`` runs inside the write's transaction; the answer it gives is
    stored with the change and kept here in ``answer`` for the first reply.
    """

    scope: str
    key: str
    render: Callable[[Any], tuple[int, dict[str, Any]]] = field(compare=False)
    fingerprint: str = ""
    answer: tuple[int, dict[str, Any]] | None = field(default=None, compare=False)


class Replayed(Exception):
    """The key's write was made before: here is its first answer."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(status)
        self.status = status
        self.body = body


class KeyReused(BadInput):
    """The key was first sent with another request: 422 in the API (a refused form on the pages)."""

    def __init__(self, field_name: str = "Idempotency-Key") -> None:
        super().__init__(field_name, N_("This key was already used for another request; "
                                        "send a new key with each new request."))


def clean_key(value: str | None, field_name: str = "Idempotency-Key", where: str | None = None) -> str | None:
    """A key as sent (None when there is none); a too long or unprintable one is a 400, never cut.

    ``where`` is the error's field (a page shows an error of a hidden field, ``form_token``, as the form's).
    """
    if value is None or value == "":
        return None
    at = field_name if where is None else where
    if len(value) > MAX_KEY:
        raise BadInput(at, "%(field)s is longer than %(n)s characters.", field=field_name, n=MAX_KEY)
    if not value.isprintable():
        raise BadInput(at, "%(field)s must be printable text.", field=field_name)
    return value


def bind(scope: str, key: str | None, fingerprint: str,
         render: Callable[[Any], tuple[int, dict[str, Any]]]) -> Idem | None:
    """A write's ``key`` bound to the ``fingerprint`` of what it was sent with, or None without a key.

    Plain values: the web layer reads the key off the request and computes
    the fingerprint (``referee/web/idempotent.py``); a script passes its own.
    Raises :class:`Replayed` when this write was answered before, and
    :class:`KeyReused` when its key was first sent with another fingerprint.
    """
    if key is None:
        return None
    idem = Idem(scope=scope, key=key, render=render, fingerprint=fingerprint)
    recheck(idem)
    return idem


def recheck(idem: Idem | None) -> None:
    """Raise :class:`Replayed` (or :class:`KeyReused`) if the key's write is already stored; else nothing."""
    if idem is None:
        return
    row = db.session.scalar(select(IdempotentReply).where(IdempotentReply.scope == idem.scope,
                                                          IdempotentReply.key == idem.key))
    if row is None:
        return
    kept = json.loads(row.body)
    if not isinstance(kept, dict) or kept.get("fingerprint") != idem.fingerprint:
        raise KeyReused("" if idem.scope == "page" else "Idempotency-Key")  # a page: the form's error
    raise Replayed(row.status, kept["reply"])


@contextmanager
def guard(idem: Idem | None) -> Iterator[None]:
    """A keyed write that fails looks for its key once more: a twin sent at once may have made it.

    On PostgreSQL two requests with one key run side by side: the second
    may find the write already made by the first (a closed match, a round
    number taken, a payment no longer open, the key's row taken) and fail
    for that reason. If the first has committed, its answer is the answer.
    """
    try:
        yield
    except Replayed:
        raise
    except Exception:
        if idem is None:
            raise
        twin = _twin(idem)
        if twin is not None:
            raise twin from None
        raise


def _twin(idem: Idem) -> Exception | None:
    """The key's stored answer as :class:`Replayed` (or :class:`KeyReused`), looked up afresh; None if none."""
    db.session.rollback()
    try:
        recheck(idem)
    except (Replayed, KeyReused) as found:
        return found
    except Exception:  # the database is away: the write's own error stands
        return None
    finally:
        db.session.rollback()
    return None


def store(idem: Idem | None, result: Any) -> None:
    """Keep the write's answer with its key, in the write's own transaction (the caller's ``writing()``)."""
    if idem is None:
        return
    idem.answer = idem.render(result)
    status, body = idem.answer
    db.session.add(IdempotentReply(scope=idem.scope, key=idem.key, status=status,
                                   body=json.dumps({"fingerprint": idem.fingerprint, "reply": body})))
    db.session.flush()  # a concurrent twin's row is met here (PostgreSQL waits for it), inside the write


def answer(idem: Idem | None, render: Callable[[Any], tuple[int, dict[str, Any]]],
           result: Any) -> tuple[int, dict[str, Any]]:
    """The first answer of a write: the one stored with its key, else ``render(result)``."""
    if idem is not None and idem.answer is not None:
        return idem.answer
    return render(result)
