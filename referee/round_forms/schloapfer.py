"""Schloapfer's deal form: for each player in the match, "passed" or the eyes taken.

Field names use the seat index in the match (``eyes_<pos>``, ``pass_<pos>``),
so the eye counter can carry a count back into the form by URL
(``/matches/<id>?eyes_<pos>=<n>``). The checks of SL-13 stay in the engine;
this module only turns what was tapped into the API's payload.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from referee.offline.round_parse.schloapfer import ERROR_FIELDS, parse

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

def table_card(name: str, me: Mapping[str, Any], view: Mapping[str, Any]) -> dict[str, Any]:
    """The table display's card of a player (``referee.pages.table``): ✕ per ring, the points, out."""
    return {"marks": "\N{MULTIPLICATION X}" * int(me.get("rings", 0)), "number": (_("Points"), me.get("points", 0)),
            "tags": [_("out")] if me.get("status") not in (None, "in") else []}


__all__ = ["CHOICE_TEXT", "ERROR_FIELDS", "OPTION_TEXT", "parse", "table_card"]
