"""Schloapfer's eye counter (SL-2): the eyes of the cards a player took in a deal, for the table to add up.

A question of its own (``POST /api/referee/schloapfer/eyes`` and the eye
counter page), apart from the match: it reads cards and a trump suit and
answers each card's eyes and the total; the match itself only ever sees the
eyes the table entered (:mod:`referee.engine.schloapfer`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from referee.engine import BadInput
from referee.engine.cards import SUITS, Card, full_deck, parse_card
from referee.engine.records import expect_object, expect_str

#: The 36-card Jass deck: 6 to ace in four suits.
DECK_RANKS: tuple[str, ...] = ("6", "7", "8", "9", "10", "J", "Q", "K", "A")
DECK: tuple[Card, ...] = full_deck(DECK_RANKS)
#: Eyes in the whole deck, whatever the trump (SL-2).
TOTAL_EYES = 152
_EYES: dict[str, int] = {"A": 11, "K": 4, "Q": 3, "J": 2, "10": 10}
_TRUMP_EYES: dict[str, int] = {"J": 20, "9": 14}


@dataclass(frozen=True)
class CardEyes:
    card: str
    eyes: int
    trump: bool


@dataclass(frozen=True)
class EyeCount:
    trump: str
    cards: tuple[CardEyes, ...]
    total: int


def card_eyes(card: Card, trump: str) -> int:
    """SL-2: the eyes of one card of the Jass deck with ``trump`` as trumps."""
    if card.suit == trump and card.rank in _TRUMP_EYES:
        return _TRUMP_EYES[card.rank]
    return _EYES.get(card.rank, 0)


def _trump(value: object) -> str:
    suit = expect_str(value, "trump", 10).strip().upper()
    if suit not in SUITS:
        raise BadInput("trump", "trump must be a suit: S, H, D or C.")
    return suit


def eye_count(cards: Iterable[Card | str], trump: str) -> EyeCount:
    """Per-card eyes and the total; ``BadInput`` for cards outside the deck or repeated."""
    suit = _trump(trump)
    seen: set[Card] = set()
    out: list[CardEyes] = []
    for item in cards:
        card = item if isinstance(item, Card) else parse_card(item, "cards")
        if card not in DECK:
            raise BadInput("cards", "%(card)s is not in the 36-card Jass deck (6 to ace).", card=card.code)
        if card in seen:
            raise BadInput("cards", "%(card)s is listed twice.", card=card.code)
        seen.add(card)
        out.append(CardEyes(card=card.code, eyes=card_eyes(card, suit), trump=card.suit == suit))
    return EyeCount(trump=suit, cards=tuple(out), total=sum(c.eyes for c in out))


def count_eyes(cards: Iterable[Card | str], trump: str) -> int:
    """SL-2: the eyes of a set of cards (the whole deck is 152 for every trump)."""
    return eye_count(cards, trump).total


def parse_eyes_request(data: object) -> tuple[tuple[Card, ...], str]:
    """``{"cards": ["JH", "9H"], "trump": "H"}`` into cards and trump suit (shape, deck, repeats)."""
    obj = expect_object(data, "request", {"cards", "trump"}, {"cards", "trump"})
    raw = obj["cards"]
    if not isinstance(raw, list):
        raise BadInput("cards", "cards must be a list of cards.")
    trump = _trump(obj["trump"])
    cards = tuple(parse_card(c, "cards") for c in raw)
    eye_count(cards, trump)  # deck and repeat checks
    return cards, trump


def eye_count_json(count: EyeCount) -> dict[str, Any]:
    """The eye counter's answer: the total and each card's eyes."""
    return {
        "total": count.total,
        "trump": count.trump,
        "cards": [{"card": c.card, "eyes": c.eyes, "trump": c.trump} for c in count.cards],
    }


__all__ = [
    "DECK", "DECK_RANKS", "TOTAL_EYES", "CardEyes", "EyeCount", "card_eyes", "count_eyes", "eye_count",
    "eye_count_json", "parse_eyes_request",
]
