"""Each game's round payload, state and referee answers as named OpenAPI component schemas.

Why named: a client generator (``openapi-python-client``, the test in
``tests/web/test_generated_client.py``) turns every component into a class;
inline alternatives of a ``oneOf`` get invented names that clash, and an
array without ``items`` stops it. So every game's shapes of ``shared/API.md``
get a name of their own (``SvangknackRound``, ``KulState``, ...), every array
its items, and the common parts one definition (:mod:`referee.engine.api_shapes`).

A game's round and state are its spec's (:attr:`~referee.engine.spec.GameSpec.round_schema`,
``state_schema`` and the parts they name, ``schema_parts``): a game that is
registered is described, with nothing listed here. A game's state lists the
fields ``shared/API.md`` names and those a client may read safely; a state may
carry more (the pages' extras), so the states stay open to additional
properties. Each state requires a field no other game's state has, so that a
``oneOf`` of the states is exact and a generated client picks the right class
when it reads an answer.
"""

from __future__ import annotations

from typing import Any

from referee.engine.api_shapes import CARD, MONEY, NAME_OR_NULL, NAMES, PER_PLAYER_INT, SUIT, obj, ref
from referee.engine.spec import SPECS

__all__ = ["CARD", "MONEY", "NAMES", "component", "ref", "schemas"]

#: The games the trick referee plays (their specs' ``trick_hand``).
TRICK_GAMES = tuple(name for name, game in SPECS.items() if game.has_tricks)


def component(game: str, kind: str) -> str:
    """The component name of a game's shape: ``component("svangknack", "Round") == "SvangknackRound"``."""
    return game.capitalize() + kind


#: The referee's questions and answers (shared/API.md "Referee"), named per game.
REFEREE: dict[str, dict[str, Any]] = {
    "SvangknackDealerQuestion": obj({"draws": {"type": "object", "additionalProperties": CARD}}, ("draws",)),
    "SvangknackDealerAnswer": obj({"dealer": {"type": "string"}}, ("dealer",)),
    "SchwimmenValueQuestion": obj({"cards": {"type": "array", "items": CARD}, "deck": {"enum": [32, 36, 52]},
                                    "feuer": {"type": "boolean"}}, ("cards",)),
    "SchwimmenValueAnswer": obj({"value": {"type": "number"},
                                  "kind": {"enum": ["suit", "three_of_a_kind", "31", "feuer"]},
                                  "suit": NAME_OR_NULL}, ("value", "kind")),
    "KnakerPlayQuestion": obj({
        "pile": {"type": "array", "items": CARD}, "lays": {"type": "array", "items": {"type": "array", "items": CARD}},
        "source": {"enum": ["hand", "face_up", "face_down", "chance"]}, "instick": {"type": "boolean"},
        "last_card": {"type": "boolean"}, "dots": {"type": "integer"}, "double_deck": {"type": "boolean"},
        "handicaps": {"type": "array", "items": {"type": "string"}}}, ("pile", "lays")),
    "KnakerPlayAnswer": obj({
        "legal": {"type": "boolean"}, "rule": {"type": "string"}, "reason": {"type": "string"},
        "effects": {"type": "array", "items": {"type": "string"}}, "again": {"type": "boolean"},
        "outcome": NAME_OR_NULL}, ("legal", "rule"),
        description="An illegal play answers 200 too, with legal=false, the rule and the reason."),
    "SchloapferEyesQuestion": obj({"cards": {"type": "array", "items": CARD}, "trump": SUIT}, ("cards", "trump")),
    "SchloapferEyesAnswer": obj({"total": {"type": "integer"}, "trump": SUIT, "cards": {
        "type": "array", "items": obj({"card": {"type": "string"}, "eyes": {"type": "integer"},
                                        "trump": {"type": "boolean"}}, ("card", "eyes", "trump"))}},
        ("total", "trump", "cards")),
    "TricksQuestion": obj({
        "game": {"enum": list(TRICK_GAMES)}, "trump": SUIT, "players": NAMES,
        "leader": {"type": "string"}, "tricks": {"type": "array", "items": {"type": "array", "items": CARD}},
        "hands": {"type": "object", "additionalProperties": {"type": "array", "items": CARD}},
        "ask": obj({"player": {"type": "string"}, "card": CARD}, ("player", "card"))},
        ("game", "players", "leader", "tricks")),
    "TricksAnswer": obj({
        "legal": {"type": "boolean"}, "trick": {"type": "integer"}, "position": {"type": "integer"},
        "player": {"type": "string"}, "card": {"type": "string"}, "rule": {"type": "string"},
        "card_name": {"type": "string", "description": "The card said in words in the asker's language."},
        "reason": {"type": "string"}, "winners": NAMES, "tricks_won": PER_PLAYER_INT, "eyes": PER_PLAYER_INT,
        "round": {"type": ["object", "null"], "description": "The round payload for POST "
                                                             "/api/matches/{match_id}/rounds once complete."},
        "playable": {"type": "array", "items": CARD}}, ("legal", "winners")),
    "TricksDisputeQuestion": obj({
        "game": {"enum": list(TRICK_GAMES)}, "trump": SUIT, "players": NAMES,
        "leader": {"type": "string", "description": "Who led this trick."},
        "trick": {"type": "array", "items": CARD, "minItems": 1, "description": "The trick as it lies, in play order."},
        "card": {**CARD, "description": "The card in question (default: the last of the trick)."},
        "known": {"type": "array", "items": {"enum": ["suit", "higher", "trump", "higher_trump", "second", "side"]},
                  "description": "Facts known of that player's hand; those the trick makes pointless are ignored."}},
        ("game", "players", "leader", "trick")),
    "TricksDisputeAnswer": obj({
        "legal": {"type": "boolean"}, "rule": {"type": "string"}, "reason": {"type": "string"},
        "player": {"type": "string"}, "card": {"type": "string"}, "position": {"type": "integer"},
        "card_name": {"type": "string", "description": "The card said in words in the asker's language."},
        "order": NAMES, "known": {"type": "array", "items": {"type": "string"}},
        "facts": {"type": "array", "items": obj({"id": {"type": "string"}, "label": {"type": "string"}},
                                                 ("id", "label"))},
        "winner": NAME_OR_NULL}, ("legal", "rule", "reason", "player", "card", "position", "order", "known",
                                  "facts", "winner")),
}

def schemas() -> dict[str, Any]:
    """Every game's named components, plus ``RoundIn`` and ``State`` (one of the games')."""
    out: dict[str, Any] = dict(REFEREE)
    for name, game in SPECS.items():
        out |= {part: dict(shape) for part, shape in game.schema_parts.items()}
        out[component(name, "Round")] = dict(game.round_schema)
        out[component(name, "State")] = dict(game.state_schema) | {
            "description": f"The state of a {game.title} match (shared/API.md); balances sum to minus the pot."}
    out["RoundIn"] = {"description": "The game's round payload (shared/API.md): one of the games' rounds.",
                      "anyOf": [ref(component(g, "Round")) for g in SPECS]}
    out["State"] = {"description": "A match's state: the state of its game.",
                    "oneOf": [ref(component(g, "State")) for g in SPECS]}
    return out
