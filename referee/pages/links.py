"""The start page, the language switch and the links a phone opens: edit, view and a tournament table's.

A link hands a right to this phone's session (``phone_rights``); a wrong token is counted by the ledger.
"""

from __future__ import annotations

import re
from typing import Any

from flask import abort, redirect, render_template, request, session, url_for

from referee.ledger import rights
from referee.models import Night, db
from referee.pages import bp, phone_rights, secret_pages
from referee.pages.phone_rights import can_edit
from referee.web.caller import caller, grants


@bp.get("/")
def start() -> Any:
    found = (db.session.get(Night, i) for i in rights.edit_granted_ids(grants()))
    nights = [n for n in found if n is not None and can_edit(n)]
    return render_template("pages/start.html", nights=nights)


@bp.get("/lang/<code>")
def set_lang(code: str) -> Any:
    if code in ("en", "sv", "de"):
        session["lang"] = code
    return redirect(same_site(request.args.get("next", "/")))


#: A path of this site: one slash, then no second slash or backslash (``//host`` and ``/\\host`` are other sites
#: to a browser), and no whitespace or control character anywhere (browsers drop tabs and newlines, so
#: ``/\t/evil.com`` is ``//evil.com``; a newline in a header is refused by the server).
_SAME_SITE = re.compile(r"/(?![/\\])[^\s\\\x00-\x1f\x7f]*")


def same_site(target: str) -> str:
    """``target`` if it is a relative path of this site, else ``/`` (never an open redirect, never a 500)."""
    return target if _SAME_SITE.fullmatch(target) and target.isprintable() else "/"


@bp.get("/e/<token>")
@secret_pages.secret_address("token")
def edit_link(token: str) -> Any:
    found = rights.link(token, caller())  # 429 after too many wrong tokens; a wrong one is counted
    if found is None:
        abort(404)
    night, edit = found
    phone_rights.grant(night, edit)
    target = request.args.get("next", "")  # the table display's code opens the display itself (issue 28),
    if re.fullmatch(r"/matches/\d+/table|/tournaments/\d+/(?:hall|me)", target):  # the hall's, the players' view
        return redirect(target)
    return redirect(url_for("pages.night", night_id=night.id))


@bp.get("/t/<token>")
@secret_pages.secret_address("token")
def table_link(token: str) -> Any:
    """A tournament table's link (issue 30): this phone may enter, void and close that table's rounds only.

    The session keeps the table token's fingerprint under the match (a new
    token, the organiser's revoke, ends the grant) and the night's view right.
    """
    found = rights.table_link(token, caller())  # 429 after too many wrong tokens; a wrong one is counted
    if found is None:
        abort(404)
    phone_rights.grant_table(found)
    return redirect(url_for("pages.match", match_id=found.match_id))


@bp.get("/v/<token>")
def view_link(token: str) -> Any:
    return edit_link(token)
