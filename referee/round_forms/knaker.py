"""Knaker's round form in the page's words: option names, why a player lost, the offences and consequences.

The form itself (a dot button or "Save game" with the players' kind, step
and reason fields) is read by :mod:`referee.offline.round_parse.knaker`, which is
pure so that the phone's engine reads it too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from referee.engine.knaker import OFFENCES
from referee.offline.round_parse.knaker import ERROR_FIELDS, KINDS, parse, parse_dot, parse_events

OPTION_TEXT: dict[str, tuple[Any, Any]] = {
    "payout": (_l("Payout"), _l("Money per game: none (standings only), last pays (the last place pays the "
                                "stake to every other player) or pot (everyone stakes, the first place takes "
                                "it) (KN-L).")),
    "double_deck": (_l("Double deck"), _l("Two decks, 110 cards, for up to 12 players (KN-17).")),
}

#: What the new-match form shows for each option value (never the code).
CHOICE_TEXT: dict[str, dict[Any, Any]] = {
    "payout": {"none": _l("none"), "loser_pays": _l("last pays"), "pot": _l("pot")},
}

#: Why a player lost (KN-7, KN-13.2, KN-13.4): shown on the page only.
REASONS: dict[str, Any] = {
    "two": _l("on a 2"),
    "flip": _l("on a flip (vändning)"),
    "seven_on_two": _l("7 over a 2"),
    "bang_blow": _l("bang-and-blow failed"),
}

#: The offences the leader can tap, with the page's wording (the engine's
#: ``OFFENCES`` holds the dots and rules). ``other`` takes 1 to 4 dots.
OFFENCE_TEXT: dict[str, Any] = {
    "ordinary": _l("Ordinary cheat (drew wrongly, peeked at a face-down card, …)"),
    "swap_face_down": _l("Swapped face-down cards"),
    "turn_face_down": _l("Turned a face-down card face up"),
    "throw_last_card": _l("Threw away the last card"),
    "denial": _l("Denied a cheat, then found guilty"),
    "giffelcheat": _l("Giffelcheat (hid cards, other gross cheat)"),
    "other": _l("Another cheat"),
    "spectator": _l("Spectator pointed out a cheat (next game)"),
    "bad_loser": _l("Left after a majority decision, dålig förlorare (next game)"),
}

#: The consequence ids of the engine's state (KN-16.8, KN-16.3) in the page's words.
CONSEQUENCE_TEXT: dict[str, Any] = {
    "none": _l("no dots"),
    "warning": _l("warning"),
    "no_ladders": _l("no ladders"),
    "pick_up_pile": _l("picks up the pile, no ladders"),
    "disqualified": _l("disqualified"),
}

def page_text() -> dict[str, Any]:
    """The page's and the protocol's wording of offences, lost reasons and consequences, and the offences'
    dots and rules (``game_text("knaker")`` in the templates)."""
    offences = [{"name": name, "label": OFFENCE_TEXT[name], "dots": o.dots, "rule": o.rule,
                 "fixed": o.fixed, "next_game": o.next_game} for name, o in OFFENCES.items()]
    return {"offences": offences, "offence": OFFENCE_TEXT,
            "dots": {name: o.dots for name, o in OFFENCES.items() if o.dots is not None},
            "reasons": REASONS, "consequence": CONSEQUENCE_TEXT, "kinds": KINDS}


def table_card(name: str, me: Mapping[str, Any], view: Mapping[str, Any]) -> dict[str, Any]:
    """The table display's card of a player (``referee.pages.table``): a dot per penalty dot, the standings."""
    return {"marks": "\N{BLACK CIRCLE}" * int(view["dots"].get(name, 0)),
            "number": (_("Standings"), view["standings"].get(name, 0))}


__all__ = [
    "CHOICE_TEXT",
    "CONSEQUENCE_TEXT",
    "ERROR_FIELDS",
    "KINDS",
    "OFFENCE_TEXT",
    "OPTION_TEXT",
    "REASONS",
    "page_text",
    "parse",
    "parse_dot",
    "parse_events",
    "table_card",
]
