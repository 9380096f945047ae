"""A request's idempotency key and fingerprint, read off Flask for :func:`referee.ledger.idempotency.bind`.

Why here: the ledger binds a key to a fingerprint and keeps the answer; what
a key and a fingerprint *are* for an HTTP request (the ``Idempotency-Key``
header or the ``form_token`` field, the method and path, the credential and
the body's meaning) is the web's, and the API and the pages read them alike.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from flask import request

from referee.ledger import idempotency
from referee.ledger.idempotency import Idem, clean_key

#: Form fields left out of a form's fingerprint: the key itself, the CSRF token (the offline queue signs it
#: anew) and the round number expected (the queue moves it when an earlier entry is refused; like the API's
#: ``Expected-Round`` header it guards the write, it is not what is written).
_UNBOUND_FIELDS = frozenset({"form_token", "csrf_token", "expected_seq"})


def form_key() -> str:
    """The page form's ``form_token`` as sent (for naming it back to the phone), or ``""``."""
    return (request.form.get("form_token") or "").strip()


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(hashlib.sha256(part).digest())
    return h.hexdigest()


def _body_digest() -> bytes:
    """The body as its meaning: parsed JSON in a canonical order, a form's fields sorted, else the bytes."""
    if request.form:
        fields = sorted((k, v) for k, v in request.form.items(multi=True) if k not in _UNBOUND_FIELDS)
        return json.dumps(fields, ensure_ascii=False).encode()
    data = request.get_json(silent=True)
    if data is not None:
        return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()
    return request.get_data(cache=True)


def fingerprint(credential: bytes) -> str:
    """What the request's key is bound to: its method and path, ``credential`` and its body's meaning."""
    return _digest(f"{request.method} {request.path}".encode(), credential, _body_digest())


def from_request(render: Callable[[Any], tuple[int, dict[str, Any]]], *, form: bool = False) -> Idem | None:
    """The request's key bound to its fingerprint, or None without a key.

    Raises :class:`~referee.ledger.idempotency.Replayed` when this request was answered before, and
    :class:`~referee.ledger.idempotency.KeyReused` when its key was first sent with another request.
    """
    if form:
        key, scope, credential = clean_key(form_key(), "form_token", where=""), "page", b""
    else:
        key, scope = clean_key(request.headers.get("Idempotency-Key")), "api"
        credential = request.headers.get("Authorization", "").encode()
    if key is None:
        return None
    return idempotency.bind(scope, key, fingerprint(credential), render)
