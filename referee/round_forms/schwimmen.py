"""Schwimmen's round form: how the game ended, then the losers, the values or the cards.

The fastest path is two taps before "Save": who ended the game (knock is
preselected) and who lost a life. Two deeper paths, chosen by the ``entry``
radio: each player's value, or each player's three cards. Cards are plain text
per player ("AC KC 9C"; the picker in ``static/js/schwimmen.js`` only fills
these fields), so the form works without JavaScript. The engine computes the
values and the losers; nothing here knows a rule.

Field names: ``ended_by`` (knock / 31 / feuer), ``by`` (a name), ``entry``
(losers / points / hands), and per seat position ``loser_<pos>``,
``points_<pos>``, ``hand_<pos>``. Players who are out get no fields and are
left out of the payload.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from referee.offline.round_parse.schwimmen import ENTRIES, ERROR_FIELDS, MAX_TEXT, card_codes, number, parse

OPTION_TEXT: dict[str, tuple[Any, Any]] = {
    "deck": (_l("Deck"), _l("32 cards (Skat deck, A K Q J 10 9 8 7), 52 cards for many players, or 36 cards "
                            "(Swiss Jass deck with the sixes, played counter-clockwise) (SW-1).")),
    "feuer": (_l("Feuer"), _l("Three aces are Feuer: they count 32, end the game at once and every other "
                              "player loses a life (SW-3, SW-5).")),
    "ties": (_l("Equal lowest values"), _l("All lose: everyone with the lowest value loses a life. "
                                          "Higher hand: the higher suit (clubs, spades, hearts, diamonds) or "
                                          "rank wins the tie (SW-6).")),
    "losers": (_l("Who loses a life"), _l("The lowest hand, or everyone with 20 or less plus the lowest above "
                                          "20, but never the best hand (SW-6).")),
    "lives": (_l("Lives"), _l("Lives each player starts with (matches or coins); after the last one a player "
                              "swims, and goes under at the next loss (SW-7).")),
    "simultaneous_out": (_l("Everyone goes under at once"),
                         _l("All survive: they all win and share the pot. Stechen: they play a deciding game, "
                            "each swimming (SW-8).")),
    "pay_per_life": (_l("Pay per life"), _l("Every lost life also costs the stake into the pot (SW-9).")),
}

#: What the new-match form shows for each option value (never the code).
CHOICE_TEXT: dict[str, dict[Any, Any]] = {
    "deck": {32: _l("32 cards"), 36: _l("36 cards"), 52: _l("52 cards")},
    "ties": {"all_lose": _l("all lose"), "higher_hand": _l("higher hand")},
    "losers": {"lowest": _l("the lowest hand"), "twenty_or_less": _l("20 or less")},
    "simultaneous_out": {"all_survive": _l("all survive"), "stechen": "Stechen"},
}

def table_card(name: str, me: Mapping[str, Any], view: Mapping[str, Any]) -> dict[str, Any]:
    """The table display's card of a player (``referee.pages.table``): ♥ per life, schwimmt, out."""
    tags = ["schwimmt"] if me.get("swimming") else []  # the game's own word (a game term stays in its language)
    tags += [_("out")] if me.get("out") else []
    return {"marks": "\N{BLACK HEART SUIT}" * int(me.get("lives", 0)), "tags": tags}


__all__ = ["CHOICE_TEXT", "ENTRIES", "ERROR_FIELDS", "MAX_TEXT", "OPTION_TEXT", "card_codes", "number", "parse",
           "table_card"]
