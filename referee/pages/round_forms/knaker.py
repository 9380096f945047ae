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

from flask_babel import gettext
from flask_babel import lazy_gettext as _l
from werkzeug.datastructures import MultiDict

from referee.engine import BadInput

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

#: Rule ID -> the form field group the error is shown next to ("events": the
#: game's result; "dots": the dot that was tapped, in that player's row).
ERROR_FIELDS: dict[str, str] = {
    "KN-7": "events", "KN-7.1": "events", "KN-7.3": "events",
    "KN-16.3": "events", "KN-16.8": "events",
    "KN-16": "dots", "KN-16.1": "dots", "KN-16.2": "dots", "KN-16.5": "dots", "KN-16.9": "dots",
}

#: Event kinds in the order the engine's contract names them.
KINDS: tuple[str, ...] = ("out", "lost", "disqualified")

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


def _int(raw: str | None) -> int | None:
    raw = (raw or "").strip()
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 4 else None  # not "²" (a digit to isdigit)


def parse(form: MultiDict[str, str], state: dict[str, Any], players: list[str]) -> dict[str, Any]:
    """What was tapped -> the API's round payload (a dot, or a game's events)."""
    if form.get("dot"):
        return {"dot": parse_dot(form.get("dot", ""), players)}
    return {"events": parse_events(form, players)}


def parse_dot(raw: str, players: list[str]) -> dict[str, Any]:
    """``"<seat>:<offence>[:<dots>]"`` -> the body of ``POST .../dots``."""
    parts = raw.split(":")
    seat = _int(parts[0])
    dot: dict[str, Any] = {
        "player": players[seat] if seat is not None and seat < len(players) else "",
        "offence": parts[1] if len(parts) > 1 else "",
    }
    if len(parts) > 2:
        n = _int(parts[2])
        dot["dots"] = n if n is not None else parts[2][:10]
    return dot


def parse_events(form: MultiDict[str, str], players: list[str]) -> list[dict[str, list[str]]]:
    """The per-player kind and step fields -> the game's events in order.

    Players with the same step and kind form one element (a tie, KN-7.3); in
    one step, ``out`` comes before ``lost`` and ``disqualified`` (the places
    do not depend on it: outs fill from the top, the others from the bottom).
    A player with a kind but no step comes after the numbered steps, alone.
    Players with no kind are still playing; the engine checks that at most
    one is left (KN-7.1).
    """
    keyed: list[tuple[int, int, int, str, str]] = []
    for pos, name in enumerate(players):
        kind = form.get(f"kind_{pos}", "")
        if kind not in KINDS:
            continue
        raw_step = (form.get(f"step_{pos}") or "").strip()
        step = _int(raw_step)
        if raw_step and (step is None or not 1 <= step <= len(players)):  # no option of the page sends it
            raise BadInput("events", gettext("The form could not be read; reload the page and try again."))
        order = step if step is not None else 10_000 + pos
        keyed.append((order, KINDS.index(kind), pos, kind, name))
    events: list[dict[str, list[str]]] = []
    last: tuple[int, int] | None = None
    for order, kind_no, _pos, kind, name in sorted(keyed):
        if (order, kind_no) == last:
            events[-1][kind].append(name)
        else:
            events.append({kind: [name]})
            last = (order, kind_no)
    return events
