"""The night's fingerprint in the OpenAPI document (API.md "Nights", issue 46.2): its fields and its events.

Kept apart from :mod:`referee.api.openapi` (which merges it in, as it does
:mod:`referee.api.openapi_tournaments`) so that module stays small; the
operation builder is passed in, not imported.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.api.openapi_games import MONEY, ref

OPERATION_IDS = {"/api/nights/{night_id}/events": "night_events"}

_HEX = {"type": "string", "pattern": "^[0-9a-f]{64}$"}

#: What the Night schema adds: the chain's last link and its length.
NIGHT_FIELDS: dict[str, Any] = {
    "fingerprint": {**_HEX, "description": "SHA-256 (hex) of the chain of the night's events in the order they "
                                           "were written (each event's canonical JSON with its time and its "
                                           "match's number, hashed with the previous link); sheets and protocols "
                                           "print its first 16 characters."},
    "events": {"type": "integer", "minimum": 0, "description": "An addition: how many events the chain holds."},
}


def schemas() -> dict[str, Any]:
    return {
        "NightEvent": {"type": "object", "required": ["number", "event", "at", "link", "what"], "properties": {
            "number": {"type": "integer", "minimum": 1, "description": "The event's place in the chain."},
            "event": {"type": "string", "description": "match, round, close (any kind of a match's log), "
                                                       "void, payment, opening, carry_out or prize."},
            "at": {"type": ["string", "null"], "description": "When it was written (ISO 8601, UTC); null for a "
                                                              "void written before void times were kept."},
            "link": _HEX, "what": {"type": "string", "description": "The event in the request's language."},
            "match": {"type": "integer", "description": "The match's number in the night (1 = first)."},
            "round": {"type": "integer"}, "payment": {"type": "integer", "description": "The payment's number "
                                                                                         "in the night."},
            "from": {"type": ["string", "null"]}, "to": {"type": ["string", "null"]},
            "from_pot": {"type": "boolean"}, "to_pot": {"type": "boolean"}, "amount": MONEY}},
        "NightEvents": {"type": "object", "required": ["fingerprint", "count", "known", "events"], "properties": {
            "fingerprint": _HEX, "count": {"type": "integer", "minimum": 0},
            "known": {"type": ["boolean", "null"], "description": "Whether the chain still passes through the "
                                                                  "fingerprint given as since (null without one)."},
            "events": {"type": "array", "items": ref("NightEvent")}}},
    }


def paths(op: Callable[..., dict[str, Any]], night_id: dict[str, Any], view: dict[str, Any]) -> dict[str, Any]:
    after = {"name": "after", "in": "query", "required": False, "schema": {"type": "string", "pattern": "^[0-9]{1,9}$"},
             "description": "How many of the chain's events the client saw; those after are listed."}
    since = {"name": "since", "in": "query", "required": False, "schema": {"type": "string"},
             "description": "The fingerprint the client saw (then the answer's known tells whether it still holds)."}
    return {"/api/nights/{night_id}/events": {"get": op(
        "An addition (issue 46.2): the events of the night's hash chain after the first `after`, each with its "
        "link and in words: what changed since a phone last looked.", "The events", ref("NightEvents"),
        params=[night_id, view, after, since])}}
