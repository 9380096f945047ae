"""Each game's round payload, state and referee answers as named OpenAPI component schemas.

Why named: a client generator (``openapi-python-client``, the test in
``tests/web/test_generated_client.py``) turns every component into a class;
inline alternatives of a ``oneOf`` get invented names that clash, and an
array without ``items`` stops it. So every game's shapes of ``shared/API.md``
get a name of their own (``SvangknackRound``, ``KulState``, ...), every array
its items, and the common parts one definition here.

A game's state lists the fields ``shared/API.md`` names and those a client
may read safely; a state may carry more (the pages' extras), so the states
stay open to additional properties. Each state requires a field no other
game's state has, so that a ``oneOf`` of the states is exact and a generated
client picks the right class when it reads an answer.
"""

from __future__ import annotations

from typing import Any

from referee import games

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


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def component(game: str, kind: str) -> str:
    """The component name of a game's shape: ``component("svangknack", "Round") == "SvangknackRound"``."""
    return game.capitalize() + kind


def _obj(props: dict[str, Any], required: tuple[str, ...] = (), *, closed: bool = False,
         description: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = list(required)
    if closed:
        out["additionalProperties"] = False
    if description:
        out["description"] = description
    return out


def _state(game: str, props: dict[str, Any], own: tuple[str, ...]) -> dict[str, Any]:
    """A game's state: the common fields of API.md plus the game's own (``own`` are required)."""
    common = {"dealer": NAME_OR_NULL, "finished": {"type": "boolean"}, "balances": PER_PLAYER_MONEY,
              "pot": MONEY}
    return _obj(common | props, ("dealer", "finished", "balances", *own),
                description=f"The state of a {games.TITLES[game]} match (shared/API.md); "
                            "balances sum to minus the pot.")


_CLOSED = {"anyOf": [_obj({"how": {"enum": ["split", "award", "carry"]}, "to": NAME_OR_NULL}), {"type": "null"}]}
_OPTIONS = {"type": "object", "description": "The match's options, defaults included (rules/)."}
_LAST = {"type": ["object", "null"], "description": "The last round's result, for the pages."}

ROUNDS: dict[str, dict[str, Any]] = {
    "svangknack": _obj({
        "svangare": {"type": "string"}, "participants": NAMES, "tricks": PER_PLAYER_INT,
        "redeal": {"type": "boolean"}, "new_stake": MONEY, "deal": ref("DealLog")}, closed=True,
        description="SK: svangare defaults to the player left of the dealer; tricks left out when the "
                    "svängare plays alone (SK-7); redeal, new_stake (SK-12, SK-13)."),
    "kul": _obj({"last_trick": {"type": "string"}, "deal": ref("DealLog")}, ("last_trick",), closed=True,
                description="Kul: who took the last trick (a mark)."),
    "schloapfer": _obj({"eyes": PER_PLAYER_INT, "deal": ref("DealLog")}, ("eyes",), closed=True,
                       description="Schloapfer: each playing player's eyes; a player left out passed (SL-4)."),
    "schwimmen": _obj({
        "ended_by": {"enum": ["knock", "31", "feuer"]}, "by": {"type": "string"},
        "hands": {"type": "object", "additionalProperties": {"type": "array", "items": CARD}},
        "points": {"type": "object", "additionalProperties": {"type": "number"}},
        "losers": NAMES}, ("ended_by", "by"), closed=True,
        description="Schwimmen: how the game ended and by whom, with hands, points or losers."),
    "knaker": _obj({"events": {"type": "array", "items": ref("KnakerEvent")}, "dot": ref("Dot")}, closed=True,
                   description="Knaker: the game's rounds of play in order; the last player left is implied."),
}

STATES: dict[str, dict[str, Any]] = {
    "svangknack": _state("svangknack", {
        "stake": MONEY, "trick_value": MONEY, "svangare": {"type": "string"}, "passed_svangare": {"type": "string"},
        "fresh_pot": {"type": "boolean"}, "round_no": {"type": "integer"}, "forced": {"type": "boolean"},
        "may_change_stake": {"type": "boolean"}, "carried_in": MONEY, "carried": MONEY_OR_NULL,
        "closed": _CLOSED, "options": _OPTIONS, "last": _LAST}, ("pot", "trick_value", "svangare", "fresh_pot")),
    "kul": _state("kul", {
        "marks": PER_PLAYER_INT, "winner": NAME_OR_NULL, "stake": MONEY, "marks_to_win": {"type": "integer"},
        "round_no": {"type": "integer"}, "last_trick": NAME_OR_NULL, "carried_in": MONEY,
        "carried": MONEY_OR_NULL, "closed": _CLOSED, "options": _OPTIONS}, ("pot", "marks", "marks_to_win")),
    "schloapfer": _state("schloapfer", {
        "players": {"type": "object", "additionalProperties": ref("SchloapferPlayer")},
        "loser": NAME_OR_NULL, "winner": NAME_OR_NULL, "winners": NAMES, "stake": MONEY,
        "scoring": {"type": "string"}, "options": _OPTIONS, "round_no": {"type": "integer"}, "in_match": NAMES,
        "forehand": NAME_OR_NULL, "strokes_at_stake": {"type": "integer"}, "last": _LAST},
        ("players", "loser", "scoring", "strokes_at_stake")),
    "schwimmen": _state("schwimmen", {
        "stake": MONEY, "players": {"type": "object", "additionalProperties": ref("SchwimmenPlayer")},
        "winner": NAME_OR_NULL, "winners": {"anyOf": [NAMES, {"type": "null"}]}, "game_no": {"type": "integer"},
        "values": {"type": ["object", "null"], "additionalProperties": {"type": ["number", "null"]}},
        "losers": NAMES, "went_under": NAMES, "ended_by": NAME_OR_NULL, "by": NAME_OR_NULL,
        "explanations": {"type": "object", "additionalProperties": {"type": "string"}},
        "direction": {"enum": ["clockwise", "counter-clockwise"]},
        "possible_values": {"type": "array", "items": {"type": "number"}},
        "closed": {"type": "boolean"}, "carried": {"type": "boolean"}},
        ("players", "losers", "game_no", "possible_values")),
    "knaker": _state("knaker", {
        "stake": MONEY, "payout": {"type": "string"}, "double_deck": {"type": "boolean"},
        "places": PER_PLAYER_INT, "standings": PER_PLAYER_INT, "dots": PER_PLAYER_INT,
        "carried_dots": PER_PLAYER_INT, "consequences": {"type": "object"}, "disqualified": NAMES,
        "game_no": {"type": "integer"}, "games_played": {"type": "integer"}, "last_game": _LAST},
        ("places", "standings", "dots", "games_played")),
}

#: The referee's questions and answers (shared/API.md "Referee"), named per game.
REFEREE: dict[str, dict[str, Any]] = {
    "SvangknackDealerQuestion": _obj({"draws": {"type": "object", "additionalProperties": CARD}}, ("draws",)),
    "SvangknackDealerAnswer": _obj({"dealer": {"type": "string"}}, ("dealer",)),
    "SchwimmenValueQuestion": _obj({"cards": {"type": "array", "items": CARD}, "deck": {"enum": [32, 36, 52]},
                                    "feuer": {"type": "boolean"}}, ("cards",)),
    "SchwimmenValueAnswer": _obj({"value": {"type": "number"},
                                  "kind": {"enum": ["suit", "three_of_a_kind", "31", "feuer"]},
                                  "suit": NAME_OR_NULL}, ("value", "kind")),
    "KnakerPlayQuestion": _obj({
        "pile": {"type": "array", "items": CARD}, "lays": {"type": "array", "items": {"type": "array", "items": CARD}},
        "source": {"enum": ["hand", "face_up", "face_down", "chance"]}, "instick": {"type": "boolean"},
        "last_card": {"type": "boolean"}, "dots": {"type": "integer"}, "double_deck": {"type": "boolean"},
        "handicaps": {"type": "array", "items": {"type": "string"}}}, ("pile", "lays")),
    "KnakerPlayAnswer": _obj({
        "legal": {"type": "boolean"}, "rule": {"type": "string"}, "reason": {"type": "string"},
        "effects": {"type": "array", "items": {"type": "string"}}, "again": {"type": "boolean"},
        "outcome": NAME_OR_NULL}, ("legal", "rule"),
        description="An illegal play answers 200 too, with legal=false, the rule and the reason."),
    "SchloapferEyesQuestion": _obj({"cards": {"type": "array", "items": CARD}, "trump": SUIT}, ("cards", "trump")),
    "SchloapferEyesAnswer": _obj({"total": {"type": "integer"}, "trump": SUIT, "cards": {
        "type": "array", "items": _obj({"card": {"type": "string"}, "eyes": {"type": "integer"},
                                        "trump": {"type": "boolean"}}, ("card", "eyes", "trump"))}},
        ("total", "trump", "cards")),
    "TricksQuestion": _obj({
        "game": {"enum": ["svangknack", "kul", "schloapfer"]}, "trump": SUIT, "players": NAMES,
        "leader": {"type": "string"}, "tricks": {"type": "array", "items": {"type": "array", "items": CARD}},
        "hands": {"type": "object", "additionalProperties": {"type": "array", "items": CARD}},
        "ask": _obj({"player": {"type": "string"}, "card": CARD}, ("player", "card"))},
        ("game", "players", "leader", "tricks")),
    "TricksAnswer": _obj({
        "legal": {"type": "boolean"}, "trick": {"type": "integer"}, "position": {"type": "integer"},
        "player": {"type": "string"}, "card": {"type": "string"}, "rule": {"type": "string"},
        "reason": {"type": "string"}, "winners": NAMES, "tricks_won": PER_PLAYER_INT, "eyes": PER_PLAYER_INT,
        "round": {"type": ["object", "null"], "description": "The round payload for POST "
                                                             "/api/matches/{match_id}/rounds once complete."},
        "playable": {"type": "array", "items": CARD}}, ("legal", "winners")),
    "TricksDisputeQuestion": _obj({
        "game": {"enum": ["svangknack", "kul", "schloapfer"]}, "trump": SUIT, "players": NAMES,
        "leader": {"type": "string", "description": "Who led this trick."},
        "trick": {"type": "array", "items": CARD, "minItems": 1, "description": "The trick as it lies, in play order."},
        "card": {**CARD, "description": "The card in question (default: the last of the trick)."},
        "known": {"type": "array", "items": {"enum": ["suit", "higher", "trump", "higher_trump", "second", "side"]},
                  "description": "Facts known of that player's hand; those the trick makes pointless are ignored."}},
        ("game", "players", "leader", "trick")),
    "TricksDisputeAnswer": _obj({
        "legal": {"type": "boolean"}, "rule": {"type": "string"}, "reason": {"type": "string"},
        "player": {"type": "string"}, "card": {"type": "string"}, "position": {"type": "integer"},
        "order": NAMES, "known": {"type": "array", "items": {"type": "string"}},
        "facts": {"type": "array", "items": _obj({"id": {"type": "string"}, "label": {"type": "string"}},
                                                 ("id", "label"))},
        "winner": NAME_OR_NULL}, ("legal", "rule", "reason", "player", "card", "position", "order", "known",
                                  "facts", "winner")),
}

#: Shapes the games' schemas share (named, so a generator makes one class of each).
PARTS: dict[str, dict[str, Any]] = {
    "KnakerEvent": _obj({"out": NAMES, "lost": NAMES, "disqualified": NAMES}, closed=True,
                        description="One round of play: who went out, lost (KN-7) or was disqualified."),
    "Dot": _obj({"player": {"type": "string"}, "offence": {"type": "string"},
                 "dots": {"type": "integer", "minimum": 1, "maximum": 4}}, ("player", "offence"), closed=True),
    "SchloapferPlayer": _obj({"points": {"type": "integer"}, "rings": {"type": "integer"},
                              "rings_total": {"type": "integer"}, "cancelled_rings": {"type": "integer"},
                              "status": {"enum": ["in", "finished", "out", "lost"]}}, ("points", "rings", "status")),
    "SchwimmenPlayer": _obj({"lives": {"type": "integer"}, "swimming": {"type": "boolean"},
                             "out": {"type": "boolean"}}, ("lives", "swimming", "out")),
}


def schemas() -> dict[str, Any]:
    """Every game's named components, plus ``RoundIn`` and ``State`` (one of the games')."""
    out: dict[str, Any] = dict(PARTS) | REFEREE
    for game in games.GAMES:
        out[component(game, "Round")] = ROUNDS[game]
        out[component(game, "State")] = STATES[game]
    out["RoundIn"] = {"description": "The game's round payload (shared/API.md): one of the games' rounds.",
                      "anyOf": [ref(component(g, "Round")) for g in games.GAMES]}
    out["State"] = {"description": "A match's state: the state of its game.",
                    "oneOf": [ref(component(g, "State")) for g in games.GAMES]}
    return out
