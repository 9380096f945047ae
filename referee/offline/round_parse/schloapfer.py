"""Schloapfer's deal form read (pure): for each player in the match, "passed" or the eyes taken."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

#: Rule ID -> the form field group the error is shown next to. A malformed
#: count (``BadInput`` on ``eyes.<name>``) is shown in that player's row.
ERROR_FIELDS: dict[str, str] = {
    "SL-4": "eyes", "SL-12": "eyes", "SL-13": "eyes",
    "SL-9": "deal", "SL-10": "deal", "SL-11": "deal",
}

_NUMBER = re.compile(r"-?[0-9]{1,9}")


def _value(raw: str) -> int | str:
    """A typed count as a whole number; anything else stays text for the engine to reject."""
    text = raw.strip()
    return int(text) if _NUMBER.fullmatch(text) else text[:20]


def parse(form: Mapping[str, str], state: dict[str, Any], players: list[str]) -> dict[str, Any]:
    """What was tapped -> ``{"eyes": {name: n}}``; a player left out passed.

    Only the players still in the match are read. "Passed" wins over a count
    typed in the same row (the page's script clears the count). The one
    player who did not pass, with no count typed, wins without play: that is
    the payload's 0 (SL-4, SL-12). An empty or garbled count is passed on as
    text, so the engine's shape check names the player (the page shows it in
    that row) and nothing is stored.
    """
    playing: list[tuple[str, str]] = []
    for name in state.get("in_match", []):
        if name not in players:
            continue
        pos = players.index(name)
        if form.get(f"pass_{pos}") == "on":
            continue
        playing.append((name, form.get(f"eyes_{pos}", "")))
    if len(playing) == 1 and not playing[0][1].strip():
        return {"eyes": {playing[0][0]: 0}}
    return {"eyes": {name: _value(raw) for name, raw in playing}}


def fields(payload: Mapping[str, Any], state: dict[str, Any], players: list[str]) -> dict[str, str]:
    """The inverse of :func:`parse`: a stored payload -> the form's fields (the correct page's prefill); a
    player in the match with no eyes passed."""
    eyes = payload.get("eyes") or {}
    form: dict[str, str] = {}
    for name in state.get("in_match", []):
        if name not in players:
            continue
        pos = players.index(name)
        if name in eyes:
            form[f"eyes_{pos}"] = str(eyes[name])
        else:
            form[f"pass_{pos}"] = "on"
    return form
