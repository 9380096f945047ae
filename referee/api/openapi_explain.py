"""The explained balance's part of the OpenAPI document (API.md, Nights, ``explain``; issue 46).

Kept apart from :mod:`referee.api.openapi` (which merges it in), as the
tournaments' part is: the operation builder is passed in, not imported.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.api.openapi_games import MONEY, ref
from referee.models import MAX_ID

OPERATION_IDS = {"/api/nights/{night_id}/players/{name}/explain": "explain_balance"}

_KINDS = ["stake", "round", "close", "fee", "prize", "payment", "carry"]


def schemas() -> dict[str, Any]:
    line = {"type": "object", "required": ["kind", "amount", "why"], "properties": {
        "kind": {"enum": _KINDS, "description": "stake: a match's opening stake; round, close: an event of the "
                                                "match's log (void rounds have none); fee, prize: a finished "
                                                "tournament's; payment, carry: what settles the result."},
        "match": {"type": "integer", "description": "The match (stake, round and close lines)."},
        "game": {"type": "string"},
        "round": {"type": "integer", "description": "The event's number in the match's log."},
        "amount": MONEY,
        "rule": {"type": "string", "description": "The rule that moved the money (IDs as in rules/)."},
        "why": {"type": "string", "description": "In the request's language, naming the rule."}}}
    return {"ExplainLine": line, "Explanation": {
        "type": "object", "required": ["player", "balance", "lines"], "properties": {
            "player": {"type": "string"},
            "balance": {**MONEY, "description": "What is open, as the settlement's balances: the lines' sum."},
            "result": {**MONEY, "description": "An addition: the settlement's result, the sum of the stake, "
                                               "round, close, fee and prize lines."},
            "lines": {"type": "array", "items": ref("ExplainLine"),
                      "description": "In the order things happened."}}}}


def paths(op: Callable[..., dict[str, Any]], view: dict[str, Any]) -> dict[str, Any]:
    """The path, built with :func:`referee.api.openapi._op`."""
    night = {"name": "night_id", "in": "path", "required": True,
             "schema": {"type": "integer", "minimum": 0, "maximum": MAX_ID}}
    name = {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
    return {"/api/nights/{night_id}/players/{name}/explain": {"get": op(
        "Why a player's balance is what it is, line by line, in the order things happened (view or edit "
        "token); 404 for a name that is no player of the night.", "The lines", ref("Explanation"),
        params=[night, name, view], errors=("400", "401", "403", "404", "409", "503"))}}
