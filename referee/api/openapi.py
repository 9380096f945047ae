"""``GET /api/openapi.json``: the OpenAPI 3.1 description of every endpoint.

Written by hand next to the routes so that the contract of ``shared/API.md``
and what we added to it are documented in one place; a test checks that every
API route appears here.

Over 400 lines as one piece: most of it is one literal, the paths of the
nights, matches and payments with their schemas, read top to bottom like the
contract; the other areas have their own modules (``openapi_games``,
``openapi_tournaments``, ``openapi_explain``, ``openapi_corrections``, ``openapi_ratings``), which
add their paths here.
"""

from __future__ import annotations

from typing import Any

from flask import jsonify

from referee.api import (
    bp,
    openapi_corrections,
    openapi_explain,
    openapi_fingerprint,
    openapi_games,
    openapi_ratings,
    openapi_tournaments,
)
from referee.api.openapi_games import CARD as _CARD
from referee.api.openapi_games import MONEY as _MONEY
from referee.api.openapi_games import NAMES as _NAMES
from referee.api.openapi_games import ref as _ref
from referee.engine.spec import SPECS
from referee.engine.vocab import CLOSE_HOWS, EventKind
from referee.models import MAX_ID

#: A night's language (``Night.language``): its sheets' language for a reader who asks for none.
_LANGUAGE: dict[str, Any] = {
    "type": "string", "enum": ["en", "sv", "de"],
    "description": "The language the night was created in: its sheets (settlement.pdf, protocol.pdf) use it "
                   "unless the request asks for another (?lang=, the language switch, Accept-Language). "
                   "On create: as given, else the request's Accept-Language; null for a night from before."}


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def _resp(desc: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"description": desc}
    if schema is not None:
        out |= _json(schema)
    return out


_ERRORS = {
    "400": _resp("Malformed request; field names the field. Any text of a request (a JSON string or key, a path "
                 "part, a query, a header) with a NUL or a lone surrogate is refused so, by every operation.",
                 _ref("BadRequest")),
    "401": _resp("No token.", _ref("Error")),
    "403": _resp("Wrong token.", _ref("Error")),
    "404": _resp("No such thing.", _ref("Error")),
    "409": _resp("Someone else changed the match first (with the fresh match as ``match``); or the match's "
                 "stored log no longer replays (``match_id``, ``round`` and ``rule`` name the event the engine "
                 "refuses); or the match is a table of a finished tournament, whose rounds are final "
                 "(``tournament`` names it; docs/rules.md).", _ref("Error")),
    "413": _resp("Request body too large.", _ref("Error")),
    "422": _resp("A rule forbids it.", _ref("RuleError")),
    "429": _resp("Too many wrong tokens from this address; see Retry-After.", _ref("Error")),
    "503": _resp("Database busy or unavailable; retry.", _ref("Error")),
    "507": _resp("The database cannot store anything (disk full or read-only); nothing was saved. "
                 "Retrying does not help until an operator fixes it.", _ref("Error")),
}

#: Ids are 32-bit database integers; a larger (or negative) number in a URL is a 404.
_DB_ID = {"type": "integer", "minimum": 0, "maximum": MAX_ID}
_ID = {"name": "night_id", "in": "path", "required": True, "schema": _DB_ID}
_MID = {"name": "match_id", "in": "path", "required": True, "schema": _DB_ID}
_SEQ = {"name": "seq", "in": "path", "required": True, "schema": _DB_ID}
_IDEM = {"name": "Idempotency-Key", "in": "header", "required": False,
         "schema": {"type": "string", "maxLength": 100},
         "description": "The same request sent again with its key (same method, path, credential and body) makes "
                        "no second change and answers the first answer again: its status and body, with the "
                        "header Idempotent-Replayed: true. The key is bound to that first request: sent with "
                        "another body, path or credential it is a 422 (field Idempotency-Key). A longer key is "
                        "a 400."}
#: The header of a replayed answer (issue 31.3).
_REPLAYED = {"Idempotent-Replayed": {"description": "true when this is the first answer to the same request, "
                                                    "sent again with its Idempotency-Key (nothing was changed).",
                                     "schema": {"type": "string", "enum": ["true"]}}}
_EXPECTED = {"name": "Expected-Round", "in": "header", "required": False,
             "schema": {"type": "string", "pattern": "^[0-9]{1,9}$"},
             "description": "The number this round should get; if someone else entered it first, 409."}
_VIEW = {"name": "view", "in": "query", "required": False, "schema": {"type": "string"},
         "description": "The night's view token (reads only)."}


def _op(summary: str, ok: str, schema: dict[str, Any] | None, *, body: dict[str, Any] | None = None,
        params: list[dict[str, Any]] | None = None, auth: bool = True, status: str = "200",
        errors: tuple[str, ...] = ("400", "401", "403", "404", "409", "413", "422", "503", "507")) -> dict[str, Any]:
    op: dict[str, Any] = {"summary": summary, "parameters": params or [],
                          "responses": {status: _resp(ok, schema)} | {k: _ERRORS[k] for k in errors}}
    if body is not None:
        op["requestBody"] = {"required": True} | _json(body)
    if _IDEM in op["parameters"]:
        op["responses"][status]["headers"] = _REPLAYED
        op["responses"]["422"] = _resp("A rule forbids it (with its rule), or the Idempotency-Key was first sent "
                                       "with another request (field Idempotency-Key).",
                                       {"anyOf": [_ref("RuleError"), _ref("BadRequest")]})
    if not auth:
        op["security"] = []
    else:  # every operation that checks a token also counts wrong ones (rate limit)
        op["responses"]["429"] = _ERRORS["429"]
    return op


def _no_leader(op: dict[str, Any]) -> dict[str, Any]:
    """The settlement's 409: the leader plan of a night without a leader (never routed through a player)."""
    op["responses"]["409"] = _resp("?plan=leader on a night without a leader (field: leader): the plan is never "
                                   "routed through whoever was listed first.", _ref("BadRequest"))
    return op


def _live(op: dict[str, Any]) -> dict[str, Any]:
    """The stream answers ``text/event-stream``: ``change`` events whose data is a LiveChange."""
    event = {"type": "object", "required": ["event", "data"], "properties": {
        "event": {"enum": ["change", "state"]}, "id": {"type": "string", "pattern": "^[0-9]+$"},
        "data": {"type": "string", "description": 'JSON: {"night", "match", "what", "round_no", "version"}'}}}
    op["responses"]["200"]["content"] = {"text/event-stream": {"schema": event}}
    op["responses"]["429"] = _resp("Too many wrong tokens from this address, or as many live streams open as this "
                                   "server keeps (in all, for the night, for the token, or for the address); see "
                                   "Retry-After.",
                                   _ref("Error"))
    return op


#: Each path's operation id (each path has one operation): the function name a generated client gives it.
OPERATION_IDS = {
    "/api/openapi.json": "get_openapi", "/api/docs": "get_api_docs", "/api/nights": "create_night",
    "/api/nights/{night_id}": "get_night", "/api/nights/{night_id}/revoke": "revoke_edit_token",
    "/api/nights/{night_id}/players": "add_player", "/api/nights/{night_id}/live": "live_stream",
    "/api/nights/{night_id}/settlement": "get_settlement", "/api/nights/{night_id}/matches": "create_match",
    "/api/matches/{match_id}": "get_match", "/api/matches/{match_id}/rounds": "enter_round",
    "/api/matches/{match_id}/dots": "give_dots",
    "/api/matches/{match_id}/close": "close_match", "/api/nights/{night_id}/payments": "record_payment",
    "/api/nights/{night_id}/payments/{payment_id}/void": "void_payment",
    "/api/nights/{night_id}/carry": "carry_debts",
    "/api/nights/{night_id}/players/{name}/details": "set_payment_details",
    "/api/nights/{night_id}/export.json": "export_night", "/api/groups/{group_token}": "get_group",
    "/api/import": "import_night", "/api/referee/svangknack/dealer": "svangknack_dealer",
    "/api/referee/schwimmen/value": "schwimmen_value", "/api/referee/knaker/play": "knaker_play",
    "/api/referee/tricks": "tricks", "/api/referee/schloapfer/eyes": "schloapfer_eyes",
    "/api/referee/tricks/dispute": "tricks_dispute",
}


def document() -> dict[str, Any]:
    """The whole OpenAPI document."""
    deal = _ref("DealLog")  # an addition: the trick referee's deal, judged again and stored with the round
    players_money = {"type": "object", "additionalProperties": _MONEY,
                     "description": "Per player (never the pot: see pots and pot_account)."}
    party = {"from": {"type": ["string", "null"], "description": "The paying player; null when the pot pays."},
             "to": {"type": ["string", "null"], "description": "The paid player; null when paid into the pot "
                                                              "(or for an opening or carry_out row)."},
             "from_pot": {"type": "boolean", "description": "The pot pays (money the game leader holds)."},
             "to_pot": {"type": "boolean", "description": "Paid into the pot (held by the game leader)."}}
    schemas: dict[str, Any] = {
        "Money": _MONEY,
        "Error": {"type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]},
        "BadRequest": {"type": "object", "properties": {"error": {"type": "string"}, "field": {"type": "string"}},
                       "required": ["error"]},
        "RuleError": {"type": "object", "properties": {"error": {"type": "string"}, "rule": {"type": "string"}},
                      "required": ["error", "rule"]},
        "NightIn": {"type": "object", "required": ["name", "currency", "players"], "additionalProperties": False,
                    "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 100},
                                   "currency": {"type": "string", "description": "ISO 4217 code"},
                                   "players": _NAMES, "group": {"type": "string"},
                                   "group_token": {"type": "string"},
                                   "date": {"type": "string", "format": "date"}, "place": {"type": "string"},
                                   "leader": {"type": "string", "description": "Who collects and pays out "
                                                                               "(?plan=leader), a player or not; "
                                                                               "without one ?plan=leader is a "
                                                                               "409."},
                                   "language": _LANGUAGE}},
        "Night": {"type": "object", "required": ["id", "name", "currency", "players", "balances", "matches"],
                  "properties": {"id": {"type": "integer"}, "name": {"type": "string"},
                                 "currency": {"type": "string"}, "players": _NAMES,
                                 "date": {"type": ["string", "null"]}, "place": {"type": "string"},
                                 "leader": {"type": "string"}, "group": {"type": "string"},
                                 "language": {**_LANGUAGE, "type": ["string", "null"],
                                              "enum": [*_LANGUAGE["enum"], None]},
                                 "pots": {**_MONEY, "description": "Money still in pots (open matches, carried "
                                                                   "pots): not any player's yet."},
                                 "balances": players_money,
                                 "matches": {"type": "array", "items": _ref("NightMatch")},
                                 "edit_token": {"type": "string"}, "view_token": {"type": "string"},
                                 "group_token": {"type": "string"}} | openapi_fingerprint.NIGHT_FIELDS},
        "NightMatch": {"type": "object", "required": ["id", "game", "players", "status"], "properties": {
            "id": {"type": "integer"}, "game": {"enum": list(SPECS)}, "players": _NAMES,
            "status": {"type": "string"}}},
        "Settlement": {"type": "object", "required": ["balances", "transfers", "result", "pots", "pot_account"],
                       "properties": {
            "balances": {**players_money, "description": "What each player still receives (+) or pays (-); "
                                                         "with pot_account.open they sum to zero."},
            "result": {**players_money, "description": "The night's result per player."},
            "opening": players_money, "paid": players_money, "carried_out": players_money,
            "pots": {**_MONEY, "description": "The night's result in pots: money still in a pot (an open match, "
                                              "a carried pot), held by the game leader."},
            "pot_account": _ref("PotAccount"),
            "per_match": {"type": "array", "items": _ref("MatchBalances")},
            "plan": {"enum": ["fewest", "leader"]}, "settled": {"type": "boolean"},
            "payments": {"type": "array", "items": _ref("Payment")},
            "exact": {"type": "boolean"}, "note": {"type": "string"},
            "transfers": {"type": "array", "items": _ref("Transfer")}}},
        "PotAccount": {"type": "object", "required": ["result", "opening", "paid", "carried_out", "open"],
                       "description": "The pots as one account of the settlement (never a player): what the "
                                      "night's matches left in pots, opened with, paid, carried out, and what "
                                      "is still open (+: the pots still receive, -: they still pay out).",
                       "properties": {k: _MONEY for k in ("result", "opening", "paid", "carried_out", "open")}},
        "Transfer": {"type": "object", "required": ["from", "to", "from_pot", "to_pot", "amount"],
                     "properties": party | {"amount": _MONEY, "payer_owes": _MONEY, "payee_is_owed": _MONEY}},
        "MatchBalances": {"type": "object", "required": ["match", "game", "balances"], "properties": {
            "match": {"type": "integer"}, "game": {"enum": list(SPECS)}, "balances": players_money}},
        "MatchIn": {"type": "object", "required": ["game", "players"], "additionalProperties": False,
                    "properties": {"game": {"enum": list(SPECS)}, "players": _NAMES,
                                   "dealer": {"type": "string"}, "stake": _MONEY,
                                   "options": {"type": "object", "description": "The game's options (rules/)."}}},
        "Match": {"type": "object", "required": ["id", "game", "state", "rounds"], "properties": {
            "id": {"type": "integer"}, "night": {"type": "integer"}, "game": {"enum": list(SPECS)},
            "players": _NAMES, "first_dealer": {"type": ["string", "null"]}, "stake": _MONEY,
            "options": {"type": "object"}, "status": {"type": "string"}, "state": _ref("State"),
            "rounds": {"type": "array", "items": _ref("RoundLog")}}},
        "RoundLog": {"type": "object", "required": ["round", "kind", "payload", "void"], "properties": {
            "round": {"type": "integer"}, "kind": {"enum": [kind.value for kind in EventKind]},
            "payload": {"type": "object", "description": "The round payload as entered (or the close, the dot)."},
            "void": {"type": "boolean"}, "void_reason": {"type": ["string", "null"]},
            "created_at": {"type": "string"}, "deal": {"anyOf": [deal, {"type": "null"}]},
            "facts": {"type": ["object", "null"], "description": "Who dealt, the svängare, who passed: what "
                                                               "replay keeps (issue 42)."},
            "corrects": {"type": ["integer", "null"]}, "corrected_by": {"type": ["integer", "null"]}}},
        "DealLog": {"type": "object", "required": ["players", "leader", "tricks"], "additionalProperties": False,
                    "description": "Svängknack, Kul, Schloapfer: the deal a round was taken from (the tricks "
                                   "request of POST /api/referee/tricks without game, plus its winners). On "
                                   "round entry the server judges it: a broken rule is a 422 with the rule; a "
                                   "deal that is incomplete, or whose verdict round is not the posted round "
                                   "(Svängknack: the leader is the svängare), is a 400 with field deal. "
                                   "Stored with the round, shown in the match's rounds and in the protocol.",
                    "properties": {"trump": {"enum": ["S", "H", "D", "C"]}, "players": _NAMES,
                                   "leader": {"type": "string"},
                                   "tricks": {"type": "array", "items": {"type": "array", "items": _CARD}},
                                   "winners": _NAMES}},
        "RoundOut": {"type": "object", "required": ["round", "state"],
                     "properties": {"round": {"type": "integer"}, "state": _ref("State")}},
        "StateOut": {"type": "object", "required": ["state"], "properties": {"state": _ref("State")}},
        "Payment": {"type": "object", "required": ["id", "kind", "from", "to", "from_pot", "to_pot", "amount"],
                    "properties": {"id": {"type": "integer"}, "kind": {"enum": ["payment", "opening", "carry_out"]},
                                   **party, "amount": _MONEY, "void": {"type": "boolean"},
                                   "void_reason": {"type": ["string", "null"]}, "created_at": {"type": "string"}}},
        "PaymentIn": {"type": "object", "required": ["amount"], "additionalProperties": False,
                      "description": "from and to name players; a payment into (out of) the pot gives "
                                     "to_pot (from_pot) true instead of to (from), as a transfer of the "
                                     "settlement does (its from, to, from_pot and to_pot may be sent as they are).",
                      "properties": {"from": {"type": ["string", "null"]}, "to": {"type": ["string", "null"]},
                                     "from_pot": {"type": "boolean"}, "to_pot": {"type": "boolean"},
                                     "amount": _MONEY}},
        "Group": {"type": "object", "required": ["name", "nights", "standings"], "properties": {
            "name": {"type": "string"},
            "nights": {"type": "array", "items": {
                "type": "object", "required": ["id", "name", "date", "currency", "result"], "properties": {
                    "id": {"type": "integer"}, "name": {"type": "string"}, "date": {"type": "string"},
                    "currency": {"type": "string"}, "pots": _MONEY,
                    "result": {"type": "object", "additionalProperties": _MONEY},
                    "matches": {"type": "object", "additionalProperties": {"type": "integer"}}}}},
            "standings": {"type": "object", "description": "Per currency, per player.", "additionalProperties": {
                "type": "object", "additionalProperties": {
                    "type": "object", "required": ["result", "nights", "matches"],
                    "properties": {"result": _MONEY, "nights": {"type": "integer"},
                                   "matches": {"type": "integer"}}}}},
            "games": {"type": "object", "description": "Per game, per player: Kul pots won, Schloapfer "
                                                       "matches lost, Schwimmen wins, Knaker games, first "
                                                       "places and dots."}}},
    } | openapi_games.schemas()
    paths: dict[str, Any] = {
        "/api/openapi.json": {"get": _op("This document.", "OpenAPI 3.1", {"type": "object"}, auth=False,
                                         errors=("400",))},
        "/api/docs": {"get": {"summary": "This document as a reference to read (Swagger UI, make api-docs).",
                              "security": [], "parameters": [], "responses": {
                                  "200": {"description": "The reference page.", "content": {"text/html": {}}},
                                  "400": _ERRORS["400"],
                                  "503": {"description": "The viewer is not installed on this server; the "
                                                         "page says so.", "content": {"text/html": {}}}}}},
        "/api/nights": {"post": _op("Create a night (no credentials); answers with its tokens.", "Created",
                                    _ref("Night"), body=_ref("NightIn"), params=[_IDEM], auth=False,
                                    status="201", errors=("400", "404", "413", "429", "503", "507"))},
        "/api/nights/{night_id}": {"get": _op("A night, its matches and each player's net.", "The night",
                                              _ref("Night"), params=[_ID, _VIEW])},
        "/api/nights/{night_id}/revoke": {"post": _op(
            "A new edit token; the old one stops working (also for the phones holding it).", "The new token",
            {"type": "object", "required": ["edit_token"], "properties": {"id": {"type": "integer"},
                                                                         "edit_token": {"type": "string"}}},
            params=[_ID])},
        "/api/nights/{night_id}/players": {"post": _op(
            "Add a player to the night.", "The night", _ref("Night"), status="201", params=[_ID, _IDEM],
            body={"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}})},
        "/api/nights/{night_id}/live": {"get": _live(_op(
            "The night's live stream (Server-Sent Events): an opening change event, then one per write "
            "(id: the night's version; reconnect with Last-Event-ID for what was missed); ': ping' comments.",
            "The event stream", None, params=[_ID, _VIEW, {
                "name": "Last-Event-ID", "in": "header", "required": False,
                "schema": {"type": "string", "pattern": "^[0-9]{1,9}$"},
                "description": "The last version received: the stream opens with what was missed since."},
                {"name": "match", "in": "query", "required": False, "schema": _DB_ID,
                 "description": "Only this match's changes and the night-wide ones."},
                {"name": "state", "in": "query", "required": False, "schema": {"enum": ["1"]},
                 "description": "With match: after each change of the match, a 'state' event whose data is "
                                '{"match", "version", "state"} (state: as GET /api/matches/<id> answers it).'}],
            errors=("400", "401", "403", "404")))},
        "/api/nights/{night_id}/settlement": {"get": _no_leader(_op(
            "What is still open and the plan with the fewest transfers (or ?plan=leader).", "Settlement",
            _ref("Settlement"),
            params=[_ID, _VIEW, {"name": "plan", "in": "query", "required": False,
                                 "schema": {"enum": ["fewest", "leader"]}}]))},
        "/api/nights/{night_id}/matches": {"post": _op(
            "Start a match.", "Created", _ref("Match"), body=_ref("MatchIn"), params=[_ID, _IDEM],
            status="201")},
        "/api/matches/{match_id}": {"get": _op("A match: state and log.", "The match", _ref("Match"),
                                               params=[_MID, _VIEW])},
        "/api/matches/{match_id}/rounds": {"post": _op(
            "Enter a round (the game's payload).", "Created", _ref("RoundOut"), body=_ref("RoundIn"),
            params=[_MID, _IDEM, _EXPECTED], status="201")},
        "/api/matches/{match_id}/dots": {"post": _op(
            "Knaker: penalty dots (KN-16).", "Created", _ref("RoundOut"), body=_ref("Dot"),
            params=[_MID, _IDEM, _EXPECTED], status="201")},
        "/api/matches/{match_id}/close": {"post": _op(
            "Close the match; a pot is split, awarded or carried (SK-14).", "New state", _ref("StateOut"),
            body={"type": "object", "properties": {"pot": {"enum": list(CLOSE_HOWS)},
                                                   "to": {"type": "string"}}}, params=[_MID, _IDEM])},
        "/api/nights/{night_id}/payments": {"post": _op(
            "A transfer of either plan paid, fully or partly (an event: voidable, never edited); the game leader "
            "(?plan=leader) may be paid and pay out even when not a player.", "Created",
            {"type": "object", "properties": {"payment": _ref("Payment"), "settlement": _ref("Settlement")}},
            body=_ref("PaymentIn"),
            params=[_ID, _IDEM], status="201")},
        "/api/nights/{night_id}/payments/{payment_id}/void": {"post": _op(
            "Void a payment (or both halves of a carried debt).", "The settlement",
            {"type": "object", "properties": {"settlement": _ref("Settlement")}},
            body={"type": "object", "properties": {"reason": {"type": "string"}}},
            params=[_ID, {"name": "payment_id", "in": "path", "required": True, "schema": _DB_ID}, _IDEM])},
        "/api/nights/{night_id}/carry": {"post": _op(
            "Carry what is still open to a later night of the group in the same currency (opening balances "
            "there); another currency is a 400 naming both.", "The settlement",
            {"type": "object", "properties": {"settlement": _ref("Settlement")}},
            body={"type": "object", "required": ["to_night"], "properties": {"to_night": {"type": "integer"}}},
            params=[_ID, _IDEM])},
        "/api/nights/{night_id}/players/{name}/details": {"post": _op(
            "A player's Swish number and/or IBAN with the account holder (validated); `bank` names the IBAN's "
            "bank where schwifty's registry knows it.", "The details",
            {"type": "object", "properties": {"name": {"type": "string"}, "swish": {"type": "string"},
                                              "iban": {"type": "string"}, "holder": {"type": "string"},
                                              "bank": {"type": ["string", "null"]}}},
            body={"type": "object", "additionalProperties": False,
                  "properties": {"swish": {"type": "string"}, "iban": {"type": "string"},
                                 "holder": {"type": "string"}}},
            params=[_ID, {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}])},
        "/api/nights/{night_id}/export.json": {"get": _op(
            "The night as JSON: everything needed to rebuild it (version 3; a tournament's night adds "
            "`tournament`: its tables by match number, seats, entries, fee, prizes, the series time limit, and "
            "the seed for the edit token only).", "The export", {"type": "object"},
            params=[_ID, _VIEW])},
        "/api/groups/{group_token}": {"get": _op(
            "A group's nights with each night's result, and standings per currency (the group token is the "
            "credential; a wrong one is a 404). Additions: per night pots and matches played, per game brags.",
            "The group", _ref("Group"),
            params=[{"name": "group_token", "in": "path", "required": True, "schema": {"type": "string"}}],
            auth=False, errors=("400", "404", "429", "503"))},
        "/api/import": {"post": _op(
            "Import a night export into a new group (checked and replayed first). A tournament's night "
            "(export version 3) is re-created with its tournament and new tokens: the answer adds "
            "`tournament` (its new id) and the current series' `tables` with their new table tokens.",
            "Created", {"allOf": [_ref("Night"), {"type": "object", "properties": {
                "tournament": {"type": "integer"},
                "tables": {"type": "array", "items": _ref("TournamentTableWithToken")}}}]},
            body={"type": "object"}, params=[_IDEM], auth=False, status="201",
            errors=("400", "413", "422", "429", "503", "507"))},
        "/api/referee/svangknack/dealer": {"post": _op(
            "SK-3: who deals first from the drawn cards.", "The dealer", _ref("SvangknackDealerAnswer"),
            body=_ref("SvangknackDealerQuestion"), auth=False, errors=("400", "413", "422"))},
        "/api/referee/schwimmen/value": {"post": _op(
            "SW-2/SW-3: the value of a hand.", "The value", _ref("SchwimmenValueAnswer"),
            body=_ref("SchwimmenValueQuestion"), auth=False, errors=("400", "413", "422"))},
        "/api/referee/knaker/play": {"post": _op(
            "Knaker part B: may this be laid on this pile? Illegal plays answer 200 with legal=false.",
            "The verdict", _ref("KnakerPlayAnswer"), body=_ref("KnakerPlayQuestion"), auth=False,
            errors=("400", "413"))},
        "/api/referee/tricks": {"post": _op(
            "SK-15, KU-3, SL-14: the trick rules of a deal, played or in progress; who won each trick. "
            "A broken rule answers 200 with legal=false and the first broken card.",
            "The verdict", _ref("TricksAnswer"), body=_ref("TricksQuestion"), auth=False, errors=("400", "413"))},
        "/api/referee/tricks/dispute": {"post": _op(
            "An addition (issue 28): SK-15, KU-3, SL-14 for an argument about one card of one trick, given facts "
            "known of the player's hand. Legal or not it answers 200 with the rule and the reason, and offers the "
            "facts that could change the verdict.",
            "The verdict", _ref("TricksDisputeAnswer"), body=_ref("TricksDisputeQuestion"), auth=False,
            errors=("400", "413"))},
        "/api/referee/schloapfer/eyes": {"post": _op(
            "SL-2: the eyes of a set of cards for a trump suit.", "The eyes", _ref("SchloapferEyesAnswer"),
            body=_ref("SchloapferEyesQuestion"), auth=False, errors=("400", "413"))},
    }
    paths |= openapi_tournaments.paths(_op, _IDEM, _VIEW)
    schemas |= openapi_tournaments.schemas()
    paths |= openapi_explain.paths(_op, _VIEW)
    schemas |= openapi_explain.schemas()
    paths |= openapi_corrections.paths(_op, _MID, _SEQ, _IDEM)
    schemas |= openapi_corrections.schemas()
    paths |= openapi_fingerprint.paths(_op, _ID, _VIEW)
    schemas |= openapi_fingerprint.schemas()
    paths |= openapi_ratings.paths(_op)
    schemas |= openapi_ratings.schemas()
    ids = (OPERATION_IDS | openapi_tournaments.OPERATION_IDS | openapi_explain.OPERATION_IDS
           | openapi_corrections.OPERATION_IDS | openapi_fingerprint.OPERATION_IDS | openapi_ratings.OPERATION_IDS)
    for path in ("/api/nights", "/api/tournaments", "/api/import"):  # each creates a night (referee/bounds.py)
        paths[path]["post"]["responses"]["429"] = _resp(
            "This address has created as many nights and tournaments within the hour as one address may "
            "(CREATIONS_PER_HOUR), or too many wrong tokens from it; see Retry-After.", _ref("Error"))
    for path, operations in paths.items():
        for operation in operations.values():
            operation["operationId"] = ids[path]
    return {
        "openapi": "3.1.0",
        "info": {"title": "referee", "version": "1.0",
                 "description": "The game-night referee's JSON API (contract: shared/API.md)."},
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {"edit": {"type": "http", "scheme": "bearer",
                                         "description": "The night's edit token (reads also accept the view token)."},
                                "view": {"type": "apiKey", "in": "query", "name": "view"}},
        },
        "security": [{"edit": []}, {"view": []}],
    }


@bp.get("/openapi.json")
def openapi() -> object:
    return jsonify(document())
