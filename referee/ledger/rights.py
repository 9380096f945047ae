"""Who may do what: one check for every token a request brings, and the count of wrong ones (issue 25.2).

Rights come two ways: a phone's grants in its signed session cookie (the
pages; the edit grant is the edit token's fingerprint, so a revoke ends it)
and a token in the request (``Authorization: Bearer``, ``?view=``, the
``/e/`` and ``/v/`` links, a group token). Every reader of a token goes
through :func:`counted`: an address with too many wrong tokens gets
:class:`TooManyWrong` (429) before any look-up, and a token that opens
nothing is counted (:mod:`referee.ledger.ratelimit`). So ``?view=<wrong>`` on a
sheet, a wrong ``group_token`` when a night is created and a wrong link all
count alike.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from enum import IntEnum
from typing import TypeVar

from flask import session
from flask_babel import gettext as _
from werkzeug.exceptions import TooManyRequests

from referee.ledger import nights, ratelimit
from referee.models import Group, Night

T = TypeVar("T")


class Right(IntEnum):
    """What a request may do with a night: nothing, read, or read and write."""

    NONE = 0
    VIEW = 1
    EDIT = 2


class TooManyWrong(TooManyRequests):
    """Too many wrong tokens from this address (429 with ``Retry-After``)."""

    def __init__(self, wait: int) -> None:
        super().__init__(_("Too many wrong links from this phone; try again in %(n)s seconds.", n=wait),
                         retry_after=wait)
        self.wait = wait


def counted(look_up: Callable[[], T | None]) -> T | None:
    """``look_up()`` of a token the request brought, refused while this address is blocked; a miss counts."""
    limiter, address = ratelimit.limiter(), ratelimit.client_key()
    wait = limiter.retry_after(address)
    if wait:
        raise TooManyWrong(wait)
    found = look_up()
    if found is None:
        limiter.failed(address)
    return found


def fingerprint(token: str) -> str:
    """What a phone's session keeps of an edit token (not the token itself)."""
    return hashlib.sha256(token.encode()).hexdigest()[:32]


def phone_right(night: Night) -> Right:
    """The right this phone's session holds on ``night`` (no token read, nothing counted)."""
    grants = session.get("edit", {})
    held = grants.get(str(night.id), "") if isinstance(grants, dict) else ""
    if isinstance(held, str) and held and hmac.compare_digest(held, fingerprint(night.edit_token)):
        return Right.EDIT
    views = session.get("view", [])
    return Right.VIEW if isinstance(views, list) and night.id in views else Right.NONE


def token_right(night: Night, token: str) -> Right:
    """The right ``token`` gives on ``night`` (constant-time comparisons)."""
    if hmac.compare_digest(token.encode(), night.edit_token.encode()):
        return Right.EDIT
    if hmac.compare_digest(token.encode(), night.view_token.encode()):
        return Right.VIEW
    return Right.NONE


def night_right(night: Night, token: str | None, *, phone: bool) -> Right:
    """The one rights check of a night: the phone's grant (when ``phone``), else the request's token, counted.

    The API passes ``phone=False``: it authenticates with tokens only (its
    writes are not protected against cross-site requests as forms are).
    """
    held = phone_right(night) if phone else Right.NONE
    if held is Right.EDIT or not token:
        return held
    given = counted(lambda: token_right(night, token) or None)
    return max(held, given or Right.NONE)


def link(token: str) -> tuple[Night, bool] | None:
    """The night an ``/e/`` or ``/v/`` link opens and whether it may write (counted)."""
    return counted(lambda: nights.night_by_token(token[:64]))


def group(token: str) -> Group | None:
    """The group a group token opens (counted): its link, its API, and a night created into it."""
    return counted(lambda: nights.group_by_token(token))
