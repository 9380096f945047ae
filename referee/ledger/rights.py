"""Who may do what: one check for every token a request brings, and the count of wrong ones (issue 25.2).

Every door asks :func:`night_access` (pages, API, sheets) or :func:`group`
(group tokens) and gets an :class:`Access`: a :class:`Right` on the night
and, for a right limited to one match, that match.

Rights come two ways: a phone's grants in its signed session cookie (the
pages; the edit grant is the edit token's fingerprint, so a revoke ends it)
and a token in the request (``Authorization: Bearer``, ``?view=``, the
``/e/`` and ``/v/`` links, a group token). Every reader of a token goes
through :func:`counted`: a token that opens nothing is counted
(:mod:`referee.ledger.ratelimit`), and an address with too many wrong tokens
gets :class:`TooManyWrong` (429) for each further wrong one; a right token is
never refused for its neighbours' mistakes. So ``?view=<wrong>`` on a sheet, a
wrong ``group_token`` when a night is created and a wrong link all count alike.

The ledger reads no request and no session (issue 48.1): a door passes the
caller (:class:`~referee.ledger.ratelimit.Caller`: its address and the
limiter) and, for a phone, its grants as a plain mapping (the pages pass
Flask's session, a script a dict); the web layer builds both
(``referee/web/caller.py``) and maps :class:`TooManyWrong` to a 429.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Mapping, MutableMapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, TypeVar

from referee.engine import N_
from referee.ledger import nights, tables
from referee.ledger.ratelimit import Caller
from referee.models import MAX_ID, Group, Night, TournamentTable, db

T = TypeVar("T")


class Right(IntEnum):
    """What a request may do with a night: nothing, read, or read and write."""

    NONE = 0
    VIEW = 1
    EDIT = 2


class TooManyWrong(Exception):
    """Too many wrong tokens from this address: 429 with ``Retry-After: wait`` (``referee/errors.py``).

    ``message`` is a template (translated by the web layer with ``n=wait``), not a sentence in a language.
    """

    message = N_("Too many wrong links from this phone; try again in %(n)s seconds.")

    def __init__(self, wait: int) -> None:
        super().__init__(wait)
        self.wait = wait


def counted(look_up: Callable[[], T | None], caller: Caller) -> T | None:
    """``look_up()`` of a token ``caller`` brought; a miss counts, and is refused while this address is blocked.

    A token that opens something is never refused (issue 44.5): one prankster's
    30 wrong links must not lock out every phone behind the same router. Only
    wrong tokens meet the 429, so a guesser's answers stay refusals; a right
    guess is 1 in 2**192 (docs/reliability.md, "Rights and safety").
    """
    found = look_up()
    if found is not None:
        return found
    limiter, address = caller.limiter, caller.address
    wait = limiter.retry_after(address)
    if wait:
        raise TooManyWrong(wait)
    limiter.count(address)
    return None


def fingerprint(token: str) -> str:
    """What a phone's session keeps of an edit token (not the token itself)."""
    return hashlib.sha256(token.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Access:
    """What a request may do with a night: its :class:`Right`, and the one match it is limited to.

    ``match_id`` is ``None`` for a right on the whole night. A right limited
    to one match (a tournament's table token, issue 30: edit for that match
    only) may edit that match and nothing else of the night, and read the
    night as the view token does. Doors ask :meth:`may_view` or
    :meth:`may_edit` with the match a write is for (``None``: a write to the
    night itself), never compare rights.
    """

    right: Right = Right.NONE
    match_id: int | None = None

    def may_view(self) -> bool:
        return self.right is not Right.NONE

    def may_edit(self, match_id: int | None = None) -> bool:
        """Whether the request may write to the night (``match_id=None``) or to that match of it."""
        if self.right is not Right.EDIT:
            return False
        return self.match_id is None or self.match_id == match_id

    def rank(self) -> tuple[Right, bool]:
        """Order of two rights on one night: the higher right, then the one not limited to a match."""
        return self.right, self.match_id is None


NO_ACCESS = Access()

#: The session keys of a phone's grants: ``{night id: fingerprint of the edit token}``, ``[night id, ...]``
#: (view) and ``{match id: fingerprint of the table token}``. Written and read here only.
EDIT_GRANTS, VIEW_GRANTS, TABLE_GRANTS = "edit", "view", "table"

#: A phone keeps the newest this many grants of each kind: the signed cookie stays small.
KEPT_GRANTS = 50

#: A phone's grants as its session keeps them (the pages pass Flask's session; a script, a dict).
Grants = Mapping[str, Any]


def grant_night(grants: MutableMapping[str, Any], night: Night, edit: bool) -> None:
    """Give this phone the right of ``night``'s edit or view link (kept in its ``grants`` for good).

    The edit grant is the edit token's fingerprint, so a revoke (a new token)
    ends it; a night granted again moves to the newest place.
    """
    if edit:
        _keep_newest(grants, EDIT_GRANTS, str(night.id), fingerprint(night.edit_token))
    else:
        views = grants.get(VIEW_GRANTS, [])
        ids = [i for i in views if isinstance(i, int)] if isinstance(views, list) else []
        if night.id not in ids:
            grants[VIEW_GRANTS] = (ids + [night.id])[-KEPT_GRANTS:]


def grant_table(grants: MutableMapping[str, Any], table: TournamentTable) -> None:
    """Give this phone the right of a table's ``/t/`` link: that table's match, and reading the night.

    Both rights are the one grant (the table token's fingerprint), so the
    organiser's revoke ends both (issue 45.3: a separate view grant outlived
    it). A phone leads one table at a time: the newest grant of a night
    counts (:func:`_phone_tables`), so a leader who moved tables leads the new one.
    """
    _keep_newest(grants, TABLE_GRANTS, str(table.match_id), fingerprint(table.token))


def _keep_newest(grants: MutableMapping[str, Any], kind: str, key: str, value: str) -> None:
    kept = grants.get(kind, {})
    kept = dict(kept) if isinstance(kept, dict) else {}
    kept.pop(key, None)
    kept[key] = value
    grants[kind] = dict(list(kept.items())[-KEPT_GRANTS:])


def edit_granted_ids(grants: Grants) -> list[int]:
    """The nights this phone was given the edit link of, newest first (whether the grant still holds or not)."""
    edits = grants.get(EDIT_GRANTS, {})
    return [int(i) for i in reversed(edits) if str(i).isdigit()] if isinstance(edits, dict) else []


def phone_access(night: Night, grants: Grants) -> Access:
    """The right this phone's ``grants`` hold on ``night`` (no token read, nothing counted).

    A table leader's grant (the ``/t/`` link, issue 30) is the edit right for
    that table's match while its token opens it, and the night's view right
    until the table is revoked.
    """
    edits = grants.get(EDIT_GRANTS, {})
    held = edits.get(str(night.id), "") if isinstance(edits, dict) else ""
    if isinstance(held, str) and held and hmac.compare_digest(held, fingerprint(night.edit_token)):
        return Access(Right.EDIT)
    led, reads = _phone_tables(night, grants)
    if led is not None:
        return Access(Right.EDIT, led)
    views = grants.get(VIEW_GRANTS, [])
    return Access(Right.VIEW) if reads or (isinstance(views, list) and night.id in views) else NO_ACCESS


def _phone_tables(night: Night, grants: Grants) -> tuple[int | None, bool]:
    """The match of ``night`` whose table this phone leads, if any, and whether it holds a table link there at all.

    A grant counts while its fingerprint is the table's token's and the table
    is not revoked; it leads while the token opens the table. A phone leads
    one table at a time: of several live grants in one night (a leader who
    moved tables) the newest counts (``/t/`` re-inserts its grant last).
    """
    led = grants.get(TABLE_GRANTS, {})
    if not isinstance(led, dict):
        return None, False
    held = [(int(match_id), value) for match_id, value in led.items()
            if isinstance(value, str) and value and str(match_id).isdigit() and int(match_id) <= MAX_ID]
    tables_held = tables.held_tables_of_night(night.id, [match_id for match_id, _value in held])  # one query
    reads = False
    for match_id, value in reversed(held):
        table, opens = tables_held.get(match_id, (None, False))
        if table is not None and hmac.compare_digest(value, fingerprint(table.token)):
            if opens:
                return table.match_id, True
            reads = True
    return None, reads


def token_access(night: Night, token: str) -> Access:
    """The right ``token`` gives on ``night`` (constant-time comparisons).

    A tournament's table token (issue 30) is the edit right for its own
    table's match, and reads what the view token reads.
    """
    if hmac.compare_digest(token.encode(), night.edit_token.encode()):
        return Access(Right.EDIT)
    if hmac.compare_digest(token.encode(), night.view_token.encode()):
        return Access(Right.VIEW)
    grant = tables.table_grant(token)
    if grant is not None and grant[1] == night.id:
        return Access(Right.EDIT, grant[2])
    return NO_ACCESS


def still_opens(night_id: int, token: str,
                context: Callable[[], AbstractContextManager[object]]) -> Callable[[], bool]:
    """Whether ``token`` still opens the night, asked later by a live stream (:func:`referee.web.sse.stream`).

    The stream outlives its request and holds no database session while it
    waits, so each question opens a context of its own (``context``: the
    web layer passes its app's ``app_context``) and a session, and gives them
    back. It is :func:`token_access` (not counted: a link revoked while its
    stream was open is not a wrong guess), so a revoked edit link, a table's
    new token or a finished tournament end the stream as they end every
    other door.
    """
    def opens() -> bool:
        with context():
            try:
                night = db.session.get(Night, night_id)
                return night is not None and token_access(night, token).may_view()
            finally:
                db.session.remove()

    return opens


def _opening(night: Night, token: str) -> Access | None:
    """``token``'s access to ``night`` when it opens it, else None (a miss :func:`counted` counts)."""
    access = token_access(night, token)
    return access if access.may_view() else None


def night_access(night: Night, token: str | None, caller: Caller, *, grants: Grants | None) -> Access:
    """The one rights check of a night, for every door: the phone's ``grants`` (when given), else the
    caller's token, counted (a wrong token counts towards :class:`TooManyWrong`).

    The API passes ``grants=None``: it authenticates with tokens only (its
    writes are not protected against cross-site requests as forms are).
    The pages pass no token: a phone's rights are its session's grants (the
    ``/e/``, ``/v/`` and ``/t/`` links give them). The sheets pass both.
    """
    held = phone_access(night, grants) if grants is not None else NO_ACCESS
    if held.may_edit() or not token:
        return held
    given = counted(lambda: _opening(night, token), caller)
    return max(held, given or NO_ACCESS, key=Access.rank)


def link(token: str, caller: Caller) -> tuple[Night, bool] | None:
    """The night an ``/e/`` or ``/v/`` link opens and whether it may write (counted)."""
    return counted(lambda: nights.night_by_token(token[:64]), caller)


def table_link(token: str, caller: Caller) -> TournamentTable | None:
    """The table a ``/t/`` link opens (counted)."""
    return counted(lambda: tables.table_by_token(token[:64]), caller)


def group(token: str, caller: Caller) -> Group | None:
    """The group a group token opens (counted): its link, its API, and a night created into it."""
    return counted(lambda: nights.group_by_token(token), caller)
