"""Schwimmen's round form read (pure): how the game ended, then the losers, the values or the cards."""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

#: Rule ID -> the form field group the error is shown next to. BadInput
#: errors carry their own field ("by", "hands.Anna", "points.Bo").
ERROR_FIELDS: dict[str, str] = {
    "SW-4": "entry", "SW-5": "ended_by", "SW-6": "entry", "SW-10": "entry",
}

ENTRIES = ("losers", "points", "hands")

_SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "♤": "S", "♡": "H", "♢": "D", "♧": "C"}
_RANK = r"(?:10|[2-9JQKAT])"
_CARD = re.compile(rf"({_RANK})([SHDC])|([SHDC])({_RANK})")
_GLUED = re.compile(rf"(?:{_RANK}[SHDC]|[SHDC]{_RANK})+")
#: More text than any hand needs is cut off (the engine then says what is wrong).
MAX_TEXT = 60


def card_codes(text: str) -> list[str]:
    """Typed cards into the API's codes: "AC KC 9C", "ac,kc,9c", "A♣ K♣ 9♣", "♣A", "TC", "ACKC9C".

    A token that is no card is passed on unchanged, so the engine names it.
    """
    cleaned = text[:MAX_TEXT]
    for symbol, letter in _SUIT_SYMBOLS.items():
        cleaned = cleaned.replace(symbol, letter)
    codes: list[str] = []
    for token in re.split(r"[\s,;/]+", cleaned.strip()):
        if not token:
            continue
        upper = token.upper()
        found = list(_CARD.finditer(upper)) if _GLUED.fullmatch(upper) else []
        if not found or "".join(m.group(0) for m in found) != upper:
            codes.append(token)
            continue
        for m in found:
            rank, suit = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
            codes.append(("10" if rank == "T" else rank) + suit)
    return codes


def number(text: str) -> Any:
    """A typed value into a JSON number: "30", "30.5", "30,5", "30½"; other text passes unchanged."""
    raw = text.strip()[:20]
    cleaned = raw.replace("½", ".5").replace(",", ".").replace(" ", "")
    if cleaned.startswith(".5"):
        cleaned = "0" + cleaned
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        return raw
    if not value.is_finite() or abs(value) > 1000:  # no hand is worth more than 32
        return raw
    return int(value) if value == value.to_integral_value() else float(value)


def parse(form: Mapping[str, str], state: dict[str, Any], players: list[str]) -> dict[str, Any]:
    """What was tapped -> the API's round payload (SW-10).

    Only players still in the match are read. For a Feuer game with nothing
    entered the payload names no result: every other player loses (SW-5).
    """
    ended_by = form.get("ended_by", "")
    payload: dict[str, Any] = {"ended_by": ended_by, "by": form.get("by", "")}
    playing = [(pos, name) for pos, name in enumerate(players)
               if not state["players"].get(name, {}).get("out")]
    entry = form.get("entry", "losers")
    result: dict[str, Any] | list[str]
    if entry == "hands":
        result = {name: card_codes(form.get(f"hand_{pos}", "")) for pos, name in playing
                  if form.get(f"hand_{pos}", "").strip()}
    elif entry == "points":
        result = {name: number(form.get(f"points_{pos}", "")) for pos, name in playing
                  if form.get(f"points_{pos}", "").strip()}
    else:
        entry = "losers"
        result = [name for pos, name in playing if form.get(f"loser_{pos}") == "on"]
    if result or ended_by != "feuer":
        payload[entry] = result
    return payload


def fields(payload: Mapping[str, Any], state: dict[str, Any], players: list[str]) -> dict[str, str]:
    """The inverse of :func:`parse`: a stored payload -> the form's fields (the correct page's prefill)."""
    form = {"ended_by": str(payload.get("ended_by", "")), "by": str(payload.get("by", ""))}
    for entry in ENTRIES:
        if entry in payload:
            form["entry"] = entry
    result: Any = payload.get(form.get("entry", "losers")) or []
    for pos, name in enumerate(players):
        if name not in result:
            continue
        if form.get("entry") == "hands":
            form[f"hand_{pos}"] = " ".join(result[name])
        elif form.get("entry") == "points":
            form[f"points_{pos}"] = str(result[name])
        else:
            form[f"loser_{pos}"] = "on"
    return form
