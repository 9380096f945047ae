"""Knaker's round form: a game's result in the order things happened, or one dot.

The match page has one form with two kinds of submit:

- a dot button (``dot = "<seat>:<offence>"``, or ``"<seat>:other:<n>"`` for
  the leader's 1 to 4 dots) saves one dot round at once (KN-16);
- "Save game" sends the game's events. Each player has three fields, which
  the page's script fills from the big buttons and which are plain selects
  without JavaScript: ``kind_<seat>`` (out / lost / disqualified, empty while
  still playing), ``step_<seat>`` (the order: 1 for the first round of play
  in which something happened; players with the same step and kind tie,
  KN-7.3) and ``reason_<seat>`` (why a player lost). The engine has no field
  for the reason, so it is shown on the page only and never stored.

:func:`parse` never raises: whatever was tapped becomes a payload and the
engine says what is wrong with it, citing the rule.
"""

from __future__ import annotations

from typing import Any

from flask_babel import lazy_gettext as _l

from referee.round_parse.knaker import ERROR_FIELDS, KINDS, parse, parse_dot, parse_events

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

__all__ = ["CHOICE_TEXT", "CONSEQUENCE_TEXT", "ERROR_FIELDS", "KINDS", "OFFENCE_TEXT", "OPTION_TEXT", "REASONS",
           "parse", "parse_dot", "parse_events"]
