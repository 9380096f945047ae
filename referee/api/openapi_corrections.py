"""The voids' and corrections' part of the OpenAPI document (API.md "Matches", issue 42): schemas and paths.

Kept apart from :mod:`referee.api.openapi` (which merges it in) so that
module stays small; the operation builder and the shared parameters are
passed in, not imported, so the two modules do not import each other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.api.openapi_games import MONEY, ref

OPERATION_IDS = {
    "/api/matches/{match_id}/rounds/{seq}/void": "void_round",
    "/api/matches/{match_id}/rounds/{seq}/correct": "correct_round",
}

_DRY_RUN = {"type": "boolean", "description": "Nothing is written; the answer is the state and changes it would give."}


def schemas() -> dict[str, Any]:
    before_after = {"type": "array", "items": MONEY, "minItems": 2, "maxItems": 2,
                    "description": "[before, after]"}
    return {
        "Change": {"type": "object", "required": ["round", "balances"], "properties": {
            "round": {"type": "integer", "description": "A later round's place in the order of play."},
            "balances": {"type": "object", "additionalProperties": before_after,
                         "description": "Each changed player's balance in the match after that round."},
            "pot": before_after}},
        "ChangesOut": {"type": "object", "required": ["state", "changes"], "properties": {
            "state": ref("State"),
            "changes": {"type": "array", "items": ref("Change"),
                        "description": "One entry per later round after which a balance or the pot differs; "
                                       "[] when nothing later changes."}}},
    }


def paths(op: Callable[..., dict[str, Any]], mid: dict[str, Any], seq: dict[str, Any],
          idem: dict[str, Any]) -> dict[str, Any]:
    return {
        "/api/matches/{match_id}/rounds/{seq}/void": {"post": op(
            "Void a round (the deal never happened); the match is recomputed without it, every later round "
            "with the dealer, svängare and passes it was entered with. 422 with the rule if a later round no "
            "longer holds.", "New state and changed later rounds", ref("ChangesOut"),
            body={"type": "object", "additionalProperties": False,
                  "properties": {"reason": {"type": "string"}, "dry_run": _DRY_RUN}},
            params=[mid, seq, idem])},
        "/api/matches/{match_id}/rounds/{seq}/correct": {"post": op(
            "Correct a round (it was played, entered wrong): the new entry takes its place in the order of "
            "play with its dealer; the old one stays, marked corrected. 422 with the rule if the new entry or "
            "a later round no longer holds.", "New state and changed later rounds", ref("ChangesOut"),
            body={"type": "object", "required": ["round"], "additionalProperties": False,
                  "properties": {"round": {"type": "object", "description": "The game's round payload."},
                                 "reason": {"type": "string"}, "dry_run": _DRY_RUN}},
            params=[mid, seq, idem])},
    }
