"""The table display of a match: a tablet or laptop in the middle of the table.

``GET /matches/<id>/table`` (the view right is enough) shows the game at a
glance in type readable from two metres, one card per player with what
matters in that game, and the last round; ``static/js/live.js`` keeps it
current through the night's live stream. Read only: nothing here writes.
"""

from __future__ import annotations

from typing import Any

from flask import abort, render_template, request, url_for
from flask_babel import gettext as _
from markupsafe import Markup

from referee import ledger, round_forms
from referee.engine.spec import spec
from referee.models import Match
from referee.pages import bp, guest_pages
from referee.pages.filters import qr_svg
from referee.pages.phone_rights import can_view


@bp.get("/matches/<int:match_id>/table")
def match_table(match_id: int) -> Any:
    try:
        match = ledger.get_match(match_id)
    except ledger.NotFound:
        abort(404)
    if not can_view(match.night):  # a tablet that never opened the night's link: say how to get in
        abort(403, _("This device may not see this game night yet. On the game leader's phone, open the "
                     "match and scan the table display's QR code (under the history) with this device; "
                     "or open the view link the leader shared."))
    return guest_pages.page(match, lambda: (_display(match), 200))


def table_link(match: Match) -> str:
    """The table display's address that also gives the view right: the night's view link, then the display.

    A tablet in the middle of the table has no session yet; scanning this one code lets it in and opens
    the display (issue 28), instead of "no access" and a second link to find.
    """
    base = request.host_url.rstrip("/")
    return base + url_for("pages.view_link", token=match.night.view_token,
                          next=url_for("pages.match_table", match_id=match.id))


@bp.app_template_global("table_qr")
def table_qr(match: Match) -> tuple[str, Markup]:
    """The table display's link and its QR code, for the leader's match page (templates/pages/_table_qr.html)."""
    link = table_link(match)
    return link, qr_svg(link)


def _display(match: Match) -> str:
    money = ledger.night_money(match.night)
    state = ledger.state_of(match)
    view = spec(match.game).state_json(state, money)
    last = next((r for r in ledger.recent_rounds(match, 5) if not r.void), None)
    return render_template("pages/table.html", match=match, night=match.night, state=state, view=view,
                           players=rows(match.game, state, view), last=last,
                           summary_template=f"pages/summary_{match.game}.html")


def rows(game: str, state: Any, view: dict[str, Any]) -> list[dict[str, Any]]:
    """One card per player: the balance, the game's marks (X, lives, dots), a number and tags.

    What a game shows on the card is its page module's ``table_card`` (:mod:`referee.round_forms`).
    """
    out = []
    extra = view.get("players") if isinstance(view.get("players"), dict) else {}
    for name, balance in zip(state.players, state.balances, strict=True):
        row: dict[str, Any] = {"name": name, "balance": balance, "marks": "", "number": None, "tags": []}
        me = extra.get(name, {}) if isinstance(extra, dict) else {}
        if name == view.get("dealer"):
            row["tags"].append(_("deals"))
        card = round_forms.MODULES[game].table_card(name, me, view) if game in round_forms.MODULES else {}
        row["marks"] = card.get("marks", "")
        row["number"] = card.get("number")
        row["tags"] += card.get("tags", [])
        out.append(row)
    return out
