"""The group page and the season sheet: standings, nights in order, brags, the season chart.

Two ways in, the same page:

- ``/groups/<group token>`` (and ``.../season.pdf``): the group link. The
  token in the URL is the credential; a wrong one is a 404 that names
  nothing and counts as a wrong token (429 after too many).
- ``/nights/<id>/season`` (and ``.../season.pdf``): from a night of the
  group, for any phone that may view that night. The group token is never
  shown there to a phone without the night's edit right: the group token
  also adds nights to the group (and so takes its carried pots), which a
  guest's view link must not hand on.
"""

from __future__ import annotations

from typing import Any

from flask import Response, abort, render_template, request, url_for

from referee.ledger import ratings, rights, season
from referee.models import Group, Night
from referee.pages import _night, bp
from referee.pages.phone_rights import can_edit, can_view
from referee.pages.secret_pages import secret_address
from referee.reports import pdf_response, readable_night, render_pdf
from referee.web.caller import caller


def _group(token: str) -> Group:
    group = rights.group(token, caller())  # 429 after too many wrong tokens; a wrong one is counted
    if group is None:
        abort(404)
    return group


def _page(group: Group, night: Night | None, token: str | None) -> Any:
    s = season.season(group)
    sheet = url_for("pages.group_sheet", group_token=token) if token else url_for(
        "pages.night_season_sheet", night_id=night.id if night else 0)
    share = None
    if token or (night is not None and can_edit(night)):
        share = request.host_url.rstrip("/") + url_for("pages.group_page", group_token=group.token)
    return render_template("pages/group.html", s=s, group=group, from_night=night, sheet_url=sheet,
                           share_url=share, can_view=can_view, rating_table=ratings.group_table(group),
                           rating_days={row.night.id: row.day for row in s.nights}, figure=ratings.figure)


def _sheet(group: Group) -> Response:
    s = season.season(group)
    html = render_template("reports/season.html", s=s, group=group, night={"name": group.name})
    return pdf_response(render_pdf(html), f"season-{group.id}.pdf")


@bp.get("/groups/<group_token>")
@secret_address("group_token")
def group_page(group_token: str) -> Any:
    return _page(_group(group_token), None, group_token)


@bp.get("/groups/<group_token>/season.pdf")
@secret_address("group_token")
def group_sheet(group_token: str) -> Response:
    return _sheet(_group(group_token))


@bp.get("/nights/<int:night_id>/season")
def night_season(night_id: int) -> Any:
    nt = _night(night_id)
    return _page(nt.group, nt, None)


@bp.get("/nights/<int:night_id>/season.pdf")
def night_season_sheet(night_id: int) -> Response:
    # like every sheet: a phone with rights, or ?view= / Bearer
    return _sheet(readable_night(night_id).group)
