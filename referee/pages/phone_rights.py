"""This phone's rights in the pages: the ledger's one check, asked once per request and night.

Why one module: every page, the guests' kept pages and the offline round
form ask what this phone may do with a night; asked here, they share one
answer per request (a page's templates ask :func:`can_edit` many times, and
each answer reads the phone's table grants) and see a grant or a revoke made
in this request at once. The grants themselves (what the session keeps) are
the ledger's (:func:`referee.ledger.rights.grant_night`, ``grant_table``).
"""

from __future__ import annotations

from flask import Response, abort, g
from flask_babel import gettext as _
from sqlalchemy import event
from sqlalchemy.orm import Session

from referee.ledger import rights
from referee.models import Night, TournamentTable
from referee.web.caller import caller, granted, grants


def access(night: Night) -> rights.Access:
    """This phone's access to ``night``: the one rights check, with the session's grants only.

    Kept in ``g`` under the night and its edit token (a revoke in this
    request is a new key), and forgotten when this request changes the
    phone's grants (:func:`grant`) or commits a write (a table's match closed
    may end a tournament and its grants).
    """
    kept: dict[tuple[int, str], rights.Access] = g.setdefault("phone_rights", {})
    key = (night.id, night.edit_token)
    if key not in kept:
        kept[key] = rights.night_access(night, None, caller(), grants=grants())
    return kept[key]


@event.listens_for(Session, "after_commit")
def _forget(*_session: Session) -> None:
    """A write or a grant may change what this phone may do: the next question asks the ledger again."""
    if g:  # False outside an app context (a commit of the command line, of a test's setup)
        g.pop("phone_rights", None)


def can_edit(night: Night, match_id: int | None = None) -> bool:
    """Whether this phone may change the night (``match_id=None``) or that match of it."""
    return access(night).may_edit(match_id)


def can_view(night: Night) -> bool:
    return access(night).may_view()


def require(night: Night, edit: bool, match_id: int | None = None) -> None:
    """Go on only if this phone may see (``edit``: change) the night or that match of it, else 403."""
    found = access(night)
    # goes out with the answer (right_headers), allowed or not
    g.page_right = (night.id, _right_word(found, match_id), match_id)
    if found.may_edit(match_id) if edit else found.may_view():
        return
    if edit and found.match_id is not None:  # a table's link: say what it may do (issue 45.3)
        abort(403, _("This phone leads one tournament table: it may enter, void and close that table's rounds "
                     "only. Ask the organiser for anything else."))
    if edit:
        abort(403, _("This phone may not change this game night. Ask the game leader for the edit link."))
    abort(403, _("This phone may not see this game night. Open the link the game leader shared."))


def grant(night: Night, edit: bool) -> None:
    """Give this phone the night's edit or view right (its ``/e/`` or ``/v/`` link)."""
    rights.grant_night(grants(), night, edit)
    granted()
    _granted(night)


def grant_table(table: TournamentTable) -> None:
    """Give this phone a tournament table's right (its ``/t/`` link): that match, and the night's view."""
    rights.grant_table(grants(), table)
    granted()
    _granted(table.tournament.night)


def _granted(night: Night) -> None:
    _forget()
    kept = g.get("page_right")
    if kept is not None and kept[0] == night.id:  # a right changed in this request (a revoke): the new one
        g.page_right = (night.id, _right_word(access(night), kept[2]), kept[2])


def _right_word(found: rights.Access, match_id: int | None) -> str:
    return "edit" if found.may_edit(match_id) else "view" if found.may_view() else "none"


def right_headers(resp: Response) -> Response:
    """Which night a page is of and what this phone may do there (``X-Referee-Night``, ``X-Referee-Right``).

    Why: the service worker (static/sw.js) keeps copies of pages for when
    there is no network; when a page of a night says this phone may now do
    less there (a revoked edit link, a cookie gone: ``view`` or ``none``),
    it drops the copies it kept with more, whoever uses the phone later.

    The right is the one :func:`require` found (kept in ``g``, updated by
    :func:`grant`), so this hook reads no row: an answer whose database went
    away during the request (a 503) gets its headers as well.
    """
    kept = g.pop("page_right", None)
    if kept is None:
        return resp
    night_id, right, _match_id = kept
    resp.headers["X-Referee-Night"] = str(night_id)
    resp.headers["X-Referee-Right"] = right
    return resp
