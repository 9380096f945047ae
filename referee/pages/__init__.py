"""The phone pages: server-rendered, one form per action, no rule arithmetic.

This module is the blueprint's face: the blueprint, the rights hooks every page shares and the lookups of a
night or match a phone may see; the routes live in their own modules (``links``, ``nights``, ``matches``,
``settlement``, ...), named one by one at the end.

Rights: the phone that creates a night keeps its edit right in the signed
session cookie; the edit link (``/e/<token>``) hands it to a second phone,
the view link (``/v/<token>``) lets guests look.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, flash

from referee import ledger
from referee.engine.spec import SPECS, title
from referee.models import Match, Night
from referee.pages import phone_rights, secret_pages
from referee.pages.phone_rights import can_edit, require

bp = Blueprint("pages", __name__)

# --- rights ------------------------------------------------------------------

# Every blueprint's pages (a tournament's too): what this phone may do there, and whether the answer holds a secret,
# go out with the answer for the service worker (static/sw.js).
bp.after_app_request(phone_rights.right_headers)
bp.app_url_defaults(secret_pages.note)
bp.after_app_request(secret_pages.mark)


def _night(night_id: int, edit: bool = False) -> Night:
    try:
        night = ledger.get_night(night_id)
    except ledger.NotFound:
        abort(404)
    require(night, edit)
    return night


def _match(match_id: int, edit: bool = False) -> Match:
    try:
        match = ledger.get_match(match_id)
    except ledger.NotFound:
        abort(404)
    require(match.night, edit, match.id)
    return match


@bp.app_context_processor
def _context() -> dict[str, Any]:
    from flask_babel import get_locale

    return {"can_edit": can_edit, "game_title": title, "game_spec": SPECS.get,
            "lang": str(get_locale() or "en")}


def _field_error(form: Any, field: str, message: str) -> None:
    target = getattr(form, field, None)
    if target is None or not hasattr(target, "errors"):
        flash(message, "error")
        return
    target.errors = [*list(target.errors or []), message]


# The modules that register their routes, filters and hooks on bp, named one by one (no package scan):
# imported last, as they take ``bp`` and the helpers above from this module.
from referee.pages import (  # noqa: E402,F401,I001
    addresses, filters, game_log, kul_next, links, matches, nights, offline, season, settlement, table)
from referee.pages.referee import knaker_pile, schloapfer_eyes, schwimmen_value, trick_dispute, tricks  # noqa: E402,F401
