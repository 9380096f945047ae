"""The tournaments' part of the OpenAPI document (API.md "Tournaments", issue 30): schemas and paths.

Kept apart from :mod:`referee.api.openapi` (which merges it in) so that
module stays small; the operation builder is passed in, not imported, so
the two modules do not import each other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.api.openapi_games import MONEY, NAMES, ref
from referee.ledger.tournaments import MAX_SERIES_MINUTES
from referee.models import MAX_ID

_TID = {"name": "tournament_id", "in": "path", "required": True,
        "schema": {"type": "integer", "minimum": 0, "maximum": MAX_ID}}
_TABLE = {"name": "number", "in": "path", "required": True,
          "schema": {"type": "integer", "minimum": 0, "maximum": MAX_ID}}

#: How each series is seated (API.md "Tournaments"; issue 47.3).
SEATING = {"enum": ["draw", "standings", "rating"], "description": (
    "draw: every series from the seed (the default). standings (series format): from series 2 on, by the "
    "standings, best together. rating (a tournament in a group: group_token): by the group's ratings of the "
    "game (GET /api/groups/{group_token}/ratings) as they are when the series is drawn; series format best "
    "together, knockout spread (the best-rated at table 1, the next at table 2, ...); players without a rating "
    "after those with one, by the draw. 400 on seating for rating without a group_token.")}

OPERATION_IDS = {
    "/api/tournaments": "create_tournament", "/api/tournaments/{tournament_id}": "get_tournament",
    "/api/tournaments/{tournament_id}/next": "next_series",
    "/api/tournaments/{tournament_id}/tables/{number}/revoke": "revoke_table_token",
    "/api/tournaments/{tournament_id}/players": "late_player",
    "/api/tournaments/{tournament_id}/players/{name}/withdraw": "withdraw_player",
}
_NAME = {"name": "name", "in": "path", "required": True, "schema": {"type": "string", "minLength": 1,
                                                                    "maxLength": 40}}


def _table(token: bool) -> dict[str, Any]:
    props: dict[str, Any] = {"table": {"type": "integer"}, "match": {"type": "integer"}, "players": NAMES,
                             "finished": {"type": "boolean"},
                             "numbers": {"type": "object", "additionalProperties": {"type": "object"},
                                         "description": "In the view: each player's count as it stands now, by "
                                                        "the game (Schwimmen lives, swimming, out; Kul marks "
                                                        "and balance; Knaker points and dots; the others "
                                                        "balance, a decimal string)."},
                             "ahead": {**NAMES, "description": "In the view: whom the table's ranking puts "
                                                               "first now."},
                             "through": {**NAMES, "description": "In the view of a knockout, once the table "
                                                                 "is finished: who goes on."}}
    if token:
        props["table_token"] = {"type": "string", "description": "The table leader's edit right for this "
                                                                 "match only (shown to the organiser only)."}
    return {"type": "object", "required": ["table", "match", "players"], "properties": props}


def schemas() -> dict[str, Any]:
    standing = {"type": "object", "required": ["player", "place", "result", "matches"], "properties": {
        "player": {"type": "string"}, "place": {"type": "integer", "minimum": 1}, "result": MONEY,
        "matches": {"type": "integer"},
        "out_in_series": {"type": ["integer", "null"], "description": "Knockout only: the series the player "
                                                                      "went out in; null while in, and for "
                                                                      "the champion."}}}
    entrant = {"type": "object", "required": ["player", "joined_series", "left_series"], "properties": {
        "player": {"type": "string"},
        "joined_series": {"type": "integer", "minimum": 1, "description": "The first series the player may be "
                                                                          "seated in: 1, or later for a late "
                                                                          "player."},
        "left_series": {"type": ["integer", "null"], "description": "The series the player withdrew in (not "
                                                                    "seated after it; in a knockout out in "
                                                                    "it); null while in."}}}
    prize = {"type": "object", "required": ["player", "place", "amount"], "properties": {
        "player": {"type": "string"}, "place": {"type": "integer"}, "amount": MONEY}}
    return {
        "TournamentIn": {"type": "object", "additionalProperties": False,
                         "required": ["name", "currency", "game", "players", "table_size"], "properties": {
                             "name": {"type": "string", "minLength": 1, "maxLength": 100},
                             "currency": {"type": "string"}, "game": {"type": "string"}, "players": NAMES,
                             "table_size": {"type": "integer", "minimum": 1, "maximum": 16},
                             "series": {"type": "integer", "minimum": 1, "maximum": 50},
                             "format": {"enum": ["series", "knockout"]},
                             "advance": {"type": "integer", "minimum": 1},
                             "stake": MONEY, "options": {"type": "object"}, "entry_fee": MONEY,
                             "prizes": {"type": "array", "items": {"type": "integer", "minimum": 1}},
                             "seed": {"type": "string", "minLength": 1, "maxLength": 100},
                             "seating": SEATING,
                             "series_minutes": {"type": "integer", "minimum": 1, "maximum": MAX_SERIES_MINUTES,
                                                "description": "A series' time limit in minutes (optional): "
                                                               "the view's ends_at, the hall's countdown. It "
                                                               "decides nothing; a table past it is shown as "
                                                               "late."},
                             "leader": {"type": "string", "description": "Who holds the prize pool and collects "
                                                                         "in the leader plan (?plan=leader); a "
                                                                         "player or not."},
                             "group": {"type": "string"}, "group_token": {"type": "string"},
                             "date": {"type": "string", "format": "date"}, "place": {"type": "string"}}},
        "TournamentCreated": {"type": "object", "required": ["id", "night", "edit_token", "view_token", "seed",
                                                             "series", "tables"], "properties": {
            "id": {"type": "integer"}, "night": {"type": "integer"}, "edit_token": {"type": "string"},
            "view_token": {"type": "string"}, "group_token": {"type": "string"}, "seed": {"type": "string"},
            "series": {"type": "integer"}, "of": {"type": "integer"},
            "tables": {"type": "array", "items": ref("TournamentTableWithToken")}}},
        "TournamentTable": _table(False),
        "TournamentTableWithToken": _table(True),
        "TournamentStanding": standing,
        "TournamentPlayer": entrant,
        "TournamentPrize": prize,
        "Tournament": {"type": "object", "required": ["id", "night", "name", "game", "format", "series", "of",
                                                      "finished", "tables", "standings", "prizes"], "properties": {
            "id": {"type": "integer"}, "night": {"type": "integer"}, "name": {"type": "string"},
            "game": {"type": "string"}, "format": {"enum": ["series", "knockout"]},
            "series": {"type": "integer"}, "of": {"type": "integer"}, "finished": {"type": "boolean"},
            "currency": {"type": "string"}, "table_size": {"type": "integer"}, "advance": {"type": "integer"},
            "stake": MONEY, "entry_fee": MONEY, "pool": MONEY,
            "prize_split": {"type": "array", "items": {"type": "integer"}}, "seating": SEATING,
            "seed": {"type": "string", "description": "Shown to the organiser only."},
            "series_minutes": {"type": ["integer", "null"], "description": "The time limit of a series, "
                                                                           "minutes; null without one."},
            "ends_at": {"type": ["string", "null"], "format": "date-time", "description": (
                "When the current series' time is up (ISO 8601, UTC): the moment it was drawn plus "
                "series_minutes; null without a limit and once finished. It decides nothing.")},
            "tables": {"type": "array", "items": ref("TournamentTableWithToken"),
                       "description": "The current series; table_token only in the organiser's answer."},
            "standings": {"type": "array", "items": ref("TournamentStanding")},
            "players": {"type": "array", "items": ref("TournamentPlayer"),
                        "description": "An addition: everyone who entered (drawn at creation or came late), in "
                                       "the night's order, with when each may first be seated and left."},
            "prizes": {"type": "array", "items": ref("TournamentPrize")}}},
        "TournamentNext": {"type": "object", "required": ["id", "series", "finished", "tables"], "properties": {
            "id": {"type": "integer"}, "series": {"type": "integer"}, "of": {"type": "integer"},
            "finished": {"type": "boolean"}, "tables": {"type": "array", "items": ref("TournamentTableWithToken")},
            "standings": {"type": "array", "items": ref("TournamentStanding")},
            "prizes": {"type": "array", "items": ref("TournamentPrize")}}},
        "StillPlaying": {"type": "object", "required": ["error"], "properties": {
            "error": {"type": "string"}, "tables": {"type": "array", "items": {"type": "integer"}}}},
        "TableToken": {"type": "object", "required": ["table", "match", "table_token"], "properties": {
            "table": {"type": "integer"}, "match": {"type": "integer"}, "table_token": {"type": "string"}}},
    }


def paths(op: Callable[..., dict[str, Any]], idem: dict[str, Any], view: dict[str, Any]) -> dict[str, Any]:
    """The tournaments' paths, built with :func:`referee.api.openapi._op`."""
    nxt = op("The organiser draws the next series (201), or after the last one finishes the tournament (200: "
             "the full view, fees and prizes now in the night's settlement). 403 before 409; 409 with the "
             "numbers of the tables still playing.", "Finished", ref("Tournament"), params=[_TID, idem])
    nxt["responses"]["201"] = {"description": "The next series' tables.", "content": {
        "application/json": {"schema": ref("TournamentNext")}}}
    nxt["responses"]["409"] = {"description": "Tables still playing, or the tournament is finished.",
                               "content": {"application/json": {"schema": ref("StillPlaying")}}}
    return {
        "/api/tournaments": {"post": op(
            "Create a tournament: a night, its players and the first series' seat draw (no credentials).",
            "Created", ref("TournamentCreated"), body=ref("TournamentIn"), params=[idem], auth=False,
            status="201", errors=("400", "404", "413", "422", "429", "503", "507"))},
        "/api/tournaments/{tournament_id}": {"get": op(
            "A tournament: the current tables, standings across tables and, once finished, the prizes "
            "(view, edit or a table token).", "The tournament", ref("Tournament"), params=[_TID, view])},
        "/api/tournaments/{tournament_id}/next": {"post": nxt},
        "/api/tournaments/{tournament_id}/tables/{number}/revoke": {"post": op(
            "A new token for a table of the current series; the old one stops working (the night's revoke "
            "ends every table token).", "The new token", ref("TableToken"), params=[_TID, _TABLE])},
        "/api/tournaments/{tournament_id}/players": {"post": op(
            "A late player (organiser): in series format seated from the next series on, owing the fee; 409 in "
            "a knockout (its bracket is drawn at creation), during the last series, or once finished. A name "
            "already in the tournament is a 400 on name.", "Registered", ref("TournamentPlayer"),
            body={"type": "object", "additionalProperties": False, "required": ["name"],
                  "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 40}}},
            params=[_TID, idem], status="201")},
        "/api/tournaments/{tournament_id}/players/{name}/withdraw": {"post": op(
            "A player leaves (organiser): not seated again; in series format keeps the place the results give, "
            "in a knockout goes out in the series in play, below everyone still at a table in it. The fee stays "
            "paid. A second call changes nothing; 404 for a name not in the tournament, 409 once finished.",
            "The tournament (the organiser's view)", ref("Tournament"), params=[_TID, _NAME, idem])},
    }
