"""Schloapfer's deal form: for each player in the match, "passed" or the eyes taken.

Field names use the seat index in the match (``eyes_<pos>``, ``pass_<pos>``),
so the eye counter can carry a count back into the form by URL
(``/matches/<id>?eyes_<pos>=<n>``). The checks of SL-13 stay in the engine;
this module only turns what was tapped into the API's payload.
"""

from __future__ import annotations

import re
from typing import Any

from flask_babel import lazy_gettext as _l
from werkzeug.datastructures import MultiDict

OPTION_TEXT: dict[str, tuple[Any, Any]] = {
    "scoring": (_l("Scoring"), _l("Loser pays: the last player left pays the stake to every other player (SL-9). "
                                  "Pot: everyone pays the stake into a pot, every ring costs one more stake, the "
                                  "first to five points takes the pot (SL-10).")),
    "two_strokes_with_three": (_l("Two strokes with three players"),
                               _l("With exactly three players in the match, two strokes are at stake in a deal "
                                  "instead of one (SL-5).")),
    "ring_limit": (_l("Ring limit"), _l("A player whose rings in total (cancelled or not) pass this number is out "
                                        "(SL-11). Leave empty for no limit.")),
    "turned_trump": (_l("Trumps turned from the stock"),
                     _l("The top card of the stock fixes trumps and the dealer may pass too (SL-12; at most five "
                        "players).")),
}

#: What the new-match form shows for each option value (never the code).
CHOICE_TEXT: dict[str, dict[Any, Any]] = {"scoring": {"loser_pays": _l("loser pays"), "pot": _l("pot")}}

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


def parse(form: MultiDict[str, str], state: dict[str, Any], players: list[str]) -> dict[str, Any]:
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
