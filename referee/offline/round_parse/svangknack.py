"""Svängknack's round form read (pure): tap who knocked and the tricks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Rule ID -> the form field group the error is shown next to.
ERROR_FIELDS: dict[str, str] = {
    "SK-7": "tricks", "SK-8": "tricks", "SK-9": "tricks", "SK-10": "knock",
    "SK-11": "passed", "SK-12": "redeal", "SK-13": "new_stake", "SK-2": "new_stake",
}


def parse(form: Mapping[str, str], state: dict[str, Any], players: list[str]) -> dict[str, Any]:
    """What was tapped -> the API's round payload; a player with a trick count, 0 included, has knocked.

    A 0 tapped is a player who played and took no trick: bet (SK-9), not a
    player who stayed out (issue 26).

    The svängare is the player left of the dealer, or the next one when the
    sväng was passed (SK-11); the svängare always takes part.
    """
    passed = form.get("passed") == "on"
    svangare = state["passed_svangare"] if passed else state["svangare"]
    tricks: dict[str, int | str] = {}
    participants = [svangare]
    for pos, name in enumerate(players):
        raw = form.get(f"tricks_{pos}", "").strip()
        knocked = form.get(f"knock_{pos}") == "on" or raw != "" or state.get("forced")
        if knocked and name not in participants:
            participants.append(name)
        if raw:  # a count no button sends ("abc", "²") goes on as text: the engine names it, nothing is stored
            tricks[name] = int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 4 else raw[:20]
    payload: dict[str, Any] = {"svangare": svangare, "participants": participants}
    if len(participants) > 1 or tricks:
        payload["tricks"] = {n: tricks.get(n, 0) for n in participants} | tricks
    if form.get("redeal") == "on":
        payload["redeal"] = True
    stake = (form.get("new_stake") or "").strip()
    if stake:
        payload["new_stake"] = stake
    return payload


def fields(payload: Mapping[str, Any], state: dict[str, Any], players: list[str]) -> dict[str, str]:
    """The inverse of :func:`parse`: a stored payload -> the form's fields, as if tapped (the correct page's
    prefill, issue 42). ``state`` is the state the round was played on: its svängare tells a passed sväng."""
    form: dict[str, str] = {}
    if payload.get("svangare") not in (None, state.get("svangare")):
        form["passed"] = "on"
    participants = list(payload.get("participants") or [])
    tricks = payload.get("tricks") or {}
    for pos, name in enumerate(players):
        if name in participants and name != payload.get("svangare"):
            form[f"knock_{pos}"] = "on"
        if name in tricks:
            form[f"tricks_{pos}"] = str(tricks[name])
    if payload.get("redeal"):
        form["redeal"] = "on"
    if payload.get("new_stake"):
        form["new_stake"] = str(payload["new_stake"])
    return form
