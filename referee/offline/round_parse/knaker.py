"""Knaker's round form read (pure): a game's result in the order things happened, or one dot.

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

from collections.abc import Mapping
from typing import Any

from referee.engine import BadInput

#: Rule ID -> the form field group the error is shown next to ("events": the
#: game's result; "dots": the dot that was tapped, in that player's row).
ERROR_FIELDS: dict[str, str] = {
    "KN-7": "events", "KN-7.1": "events", "KN-7.3": "events",
    "KN-16.3": "events", "KN-16.8": "events",
    "KN-16": "dots", "KN-16.1": "dots", "KN-16.2": "dots", "KN-16.5": "dots", "KN-16.9": "dots",
}

#: Event kinds in the order the engine's contract names them.
KINDS: tuple[str, ...] = ("out", "lost", "disqualified")


def _int(raw: str | None) -> int | None:
    raw = (raw or "").strip()
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 4 else None  # not "²" (a digit to isdigit)


def parse(form: Mapping[str, str], state: dict[str, Any], players: list[str]) -> dict[str, Any]:
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


def parse_events(form: Mapping[str, str], players: list[str]) -> list[dict[str, list[str]]]:
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
            raise BadInput("events", "The form could not be read; reload the page and try again.")
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


def fields(payload: Mapping[str, Any], state: dict[str, Any], players: list[str]) -> dict[str, str]:
    """The inverse of :func:`parse`: a stored payload -> the form's fields (the correct page's prefill).

    A dot becomes its button's value; a game's events become each player's kind and step (one step per event,
    the players of a tie sharing it)."""
    dot = payload.get("dot")
    if isinstance(dot, Mapping):
        seat = players.index(dot["player"]) if dot.get("player") in players else ""
        extra = f":{dot['dots']}" if "dots" in dot else ""
        return {"dot": f"{seat}:{dot.get('offence', '')}{extra}"}
    form: dict[str, str] = {}
    for step, event in enumerate(payload.get("events") or [], start=1):
        for kind, names in event.items():
            for name in names:
                if name in players:
                    pos = players.index(name)
                    form[f"kind_{pos}"], form[f"step_{pos}"] = kind, str(step)
    return form
