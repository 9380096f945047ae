"""The ratings' part of the OpenAPI document (API.md "Groups", ``ratings``; issue 47), merged in by
:mod:`referee.api.openapi` (the operation builder is passed in, so the two modules do not import each other)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.api.openapi_games import ref

OPERATION_IDS = {"/api/groups/{group_token}/ratings": "get_group_ratings"}

_FIGURE = {"type": "string", "pattern": r"^-?\d+\.\d\d$", "description": "Two decimals."}


def schemas() -> dict[str, Any]:
    rated = {"type": "object", "required": ["player", "rating", "mu", "sigma", "matches", "trend"], "properties": {
        "player": {"type": "string"},
        "rating": _FIGURE | {"description": "The conservative figure, mu - 3 sigma (openskill's ordinal)."},
        "mu": _FIGURE, "sigma": _FIGURE, "matches": {"type": "integer", "minimum": 1},
        "trend": {"type": "array", "items": _FIGURE,
                  "description": "The rating after each night the player played this game."}}}
    return {"Rated": rated,
            "Ratings": {"type": "object", "additionalProperties": {"type": "array", "items": ref("Rated")},
                        "description": "Per game with a finished match, its players best first."}}


def paths(op: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    return {"/api/groups/{group_token}/ratings": {"get": op(
        "Each player's skill rating per game, from every finished match of the group's nights in the order "
        "played (night date, then night and match creation), ranked by the game's own ranking of the match "
        "(the stake never matters), rated with openskill's Plackett-Luce model. The group token is the "
        "credential; a wrong one is a 404.", "The ratings", ref("Ratings"),
        params=[{"name": "group_token", "in": "path", "required": True, "schema": {"type": "string"}}],
        auth=False, errors=("400", "404", "429", "503"))}}
