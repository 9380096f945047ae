"""The JSON Schema pieces of the API's shapes that every game's spec builds its round and state from.

Pure data (no Flask, no OpenAPI machinery): each :class:`~referee.engine.spec.GameSpec`
says its round payload and state with these, and :mod:`referee.api.openapi_games`
names them as components. Kept here, below the registry, so that a game's
shapes are written in its spec entry and nowhere else.
"""

from __future__ import annotations

from typing import Any

MONEY: dict[str, Any] = {"type": "string", "pattern": r"^-?\d+(\.\d+)?$",
                         "description": "Minor-unit exact amount, e.g. \"12.50\"."}
NAMES: dict[str, Any] = {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 40}}
CARD: dict[str, Any] = {"type": "string",
                        "description": "Rank 2-10 J Q K A + suit S H D C, or XR/XB (jokers)."}
NAME_OR_NULL: dict[str, Any] = {"type": ["string", "null"]}
MONEY_OR_NULL: dict[str, Any] = {"anyOf": [MONEY, {"type": "null"}]}
PER_PLAYER_MONEY: dict[str, Any] = {"type": "object", "additionalProperties": MONEY}
PER_PLAYER_INT: dict[str, Any] = {"type": "object", "additionalProperties": {"type": "integer"}}
SUIT: dict[str, Any] = {"enum": ["S", "H", "D", "C"]}
CLOSED: dict[str, Any] = {"anyOf": [{"type": "object", "properties": {
    "how": {"enum": ["split", "award", "carry"]}, "to": NAME_OR_NULL}}, {"type": "null"}]}
OPTIONS: dict[str, Any] = {"type": "object", "description": "The match's options, defaults included (rules/)."}
LAST: dict[str, Any] = {"type": ["object", "null"], "description": "The last round's result, for the pages."}


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def obj(props: dict[str, Any], required: tuple[str, ...] = (), *, closed: bool = False,
        description: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = list(required)
    if closed:
        out["additionalProperties"] = False
    if description:
        out["description"] = description
    return out


def state(props: dict[str, Any], own: tuple[str, ...]) -> dict[str, Any]:
    """A game's state: the common fields of API.md plus the game's own (``own`` are required).

    Open to more properties (the pages' extras); ``own`` should hold a field
    no other game's state has, so that a ``oneOf`` of the states is exact.
    """
    common = {"dealer": NAME_OR_NULL, "finished": {"type": "boolean"}, "balances": PER_PLAYER_MONEY,
              "pot": MONEY}
    return obj(common | props, ("dealer", "finished", "balances", *own))
