"""Schloapfer's eye counter (SL-2): tap the cards of a player's tricks, see the eyes.

``GET /referee/schloapfer/eyes`` shows the 36-card Jass deck and the trump
picker; ``POST`` counts (so it works without JavaScript); the page's script
asks ``POST /api/referee/schloapfer/eyes`` on every tap instead. The eyes
themselves come from the engine (:func:`referee.engine.schloapfer.eye_count`).

Opened from a match's deal form (``?match=<id>&pos=<seat>`` plus what the
form held, ``eyes_<seat>``/``pass_<seat>``), the page links back to the deal
form with the count filled into that player's row and the other rows kept.
"""

from __future__ import annotations

import re
from typing import Any

from flask import render_template, request
from flask_babel import gettext as _

from referee import ledger
from referee.engine import BadInput
from referee.engine.schloapfer import DECK_RANKS, EyeCount, eye_count
from referee.messages import explain
from referee.pages import bp
from referee.pages.phone_rights import can_edit
from referee.pages.referee import SUIT_BUTTONS, opened_match

#: Ranks from the highest in eyes down, as a player sorts a pile to count it.
RANKS: tuple[str, ...] = tuple(reversed(DECK_RANKS))
_CARRY = re.compile(r"(eyes|pass)_[0-9]{1,2}")


def _carry(values: Any) -> dict[str, str]:
    """The deal form's other rows (``eyes_<seat>``, ``pass_<seat>``), kept for the way back."""
    out: dict[str, str] = {}
    for key in values:
        if _CARRY.fullmatch(key):
            value = str(values.get(key, ""))[:6]
            if value:
                out[key] = value
    return out


@bp.route("/referee/schloapfer/eyes", methods=["GET", "POST"])
def schloapfer_eyes() -> Any:
    values = request.form if request.method == "POST" else request.args
    match = opened_match(values.get("match"), "schloapfer")
    pos_raw = values.get("pos", "")
    pos = int(pos_raw) if pos_raw.isascii() and pos_raw.isdigit() and len(pos_raw) < 4 else None
    trump = (values.get("trump") or "").upper()
    chosen = [c.upper() for c in values.getlist("card")][:36]
    count: EyeCount | None = None
    error = ""
    if request.method == "POST":
        if trump not in ("S", "H", "D", "C"):
            error = _("Pick the trump suit first (SL-2).")
        else:
            try:
                count = eye_count(chosen, trump)
            except BadInput as exc:
                error = explain(exc)
    targets: list[tuple[int, str]] = []
    if match is not None and can_edit(match.night, match.id) and match.status != "closed":
        state = ledger.state_of(match)
        in_match = [i for i, s in enumerate(state.status) if s == "in"]
        targets = [(i, match.seats[i]) for i in in_match]
        if pos is not None and pos in in_match:  # the row the counter was opened from first
            targets.sort(key=lambda t: t[0] != pos)
    carry = _carry(values)
    per_card = {c.card: c.eyes for c in count.cards} if count else {}
    return render_template(
        "pages/schloapfer_eyes.html", match=match, pos=pos, trump=trump, chosen=set(chosen), count=count,
        per_card=per_card, error=error, suits=SUIT_BUTTONS, ranks=RANKS, targets=targets, carry=carry,
    ), 422 if error else 200
