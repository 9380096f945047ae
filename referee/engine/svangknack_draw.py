"""Svängknack's draw for the first dealer (SK-3): everyone draws a card, the highest deals first.

A question of its own (``POST /api/referee/svangknack/dealer``), asked
before a match exists: it reads names and cards and answers a name. The
match (:mod:`referee.engine.svangknack`) starts from the dealer it is given.
"""

from __future__ import annotations

from collections.abc import Mapping

from referee.engine import BadInput, RuleViolation
from referee.engine.cards import RANKS, Card, card_msg, parse_card
from referee.engine.records import expect_object

#: Suit order for the SK-3 draw, highest first (bridge order).
_SUIT_ORDER = ("S", "H", "D", "C")


def parse_draws(data: object) -> dict[str, Card]:
    """``{"draws": {"Anna": "QH", ...}}`` into names -> cards (shape only)."""
    obj = expect_object(data, "body", ("draws",), required=("draws",))
    draws = obj["draws"]
    if not isinstance(draws, Mapping):
        raise BadInput("draws", "draws must be an object: player name -> card.")
    out: dict[str, Card] = {}
    for name, code in draws.items():
        if not isinstance(name, str) or not name.strip() or len(name) > 200:
            raise BadInput("draws", "Each draw needs a player name.")
        out[name] = parse_card(code, f"draws.{name[:40]}")
    return out


def card_strength(card: Card) -> tuple[int, int]:
    """SK-3 order: rank A K Q ... 2, then suit spades > hearts > diamonds > clubs."""
    return RANKS.index(card.rank), len(_SUIT_ORDER) - _SUIT_ORDER.index(card.suit)


def first_dealer(draws: Mapping[str, Card]) -> str:
    """The player with the highest drawn card deals first (SK-3)."""
    if len(draws) < 2:
        raise RuleViolation("SK-3", "At least two players must draw a card to find the first dealer (SK-3).")
    seen: dict[Card, str] = {}
    for name, card in draws.items():
        if card.is_joker:
            raise RuleViolation("SK-3", "%(name)s drew a joker; Svängknack is played without jokers (SK-3).",
                                  name=name)
        if card in seen:
            raise RuleViolation("SK-3", "%(first)s and %(name)s cannot both have drawn %(card)s "
                                        "from one deck (SK-3).", first=seen[card], name=name, card=card_msg(card))
        seen[card] = name
    return max(draws, key=lambda name: card_strength(draws[name]))


__all__ = [
    "card_strength", "first_dealer", "parse_draws",
]
