"""Schwimmen's hand referee: what three cards are worth (SW-2, SW-3) and which values a deck can make (SW-4).

A question of its own (``POST /api/referee/schwimmen/value`` and the value
page) that the match also asks when a game is entered by hands: it knows the
decks, the card values and the suits' order, nothing of a match. Values
are held as integers of *half points* (30½ = 61) so no float is ever summed;
at the JSON edge a whole value is an int and 30½ the number 30.5. The set of
possible values comes from looking at every hand of the deck rather than
from a typed-in list.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from referee.engine import BadInput, RuleViolation
from referee.engine.cards import RANKS, SUIT_SYMBOLS, SUITS, Card, card_msg, parse_cards
from referee.engine.records import expect_bool, expect_object

DECKS: tuple[int, ...] = (32, 36, 52)
#: Ranks of each deck (SW-1).
DECK_RANKS: dict[int, tuple[str, ...]] = {
    32: ("7", "8", "9", "10", "J", "Q", "K", "A"),
    36: ("6", "7", "8", "9", "10", "J", "Q", "K", "A"),
    52: RANKS,
}
#: Card values (SW-2).
CARD_VALUES: dict[str, int] = {**{r: int(r) for r in RANKS[:9]}, "J": 10, "Q": 10, "K": 10, "A": 11}
#: Suit ranking for ``higher_hand`` (SW-6): clubs > spades > hearts > diamonds.
SUIT_ORDER: dict[str, int] = {"D": 0, "H": 1, "S": 2, "C": 3}

THIRTY_AND_A_HALF = 61  # half points
THIRTY_ONE = 62
FEUER = 64
TWENTY = 40


@dataclass(frozen=True)
class HandValue:
    """A hand's value in half points, its kind, and its scoring suit or rank."""

    half_points: int
    kind: str  # "suit" | "three_of_a_kind" | "31" | "feuer"
    suit: str | None = None  # for "suit" and "31"
    rank: str | None = None  # for "three_of_a_kind" and "feuer"

    @property
    def value(self) -> int | float:
        """The value as a JSON number: ``30`` or ``30.5``."""
        return as_number(self.half_points)

    @property
    def tiebreak(self) -> int:
        """Ranks equal values under ``higher_hand`` (SW-6): the suit, or the rank."""
        if self.suit is not None:
            return SUIT_ORDER[self.suit]
        return RANKS.index(self.rank) if self.rank is not None else 0


def as_number(half: int) -> int | float:
    """Half points as a JSON number: ``30`` or ``30.5``."""
    return half // 2 if half % 2 == 0 else half / 2


def value_or_none(half: int | None) -> int | float | None:
    """:func:`as_number`, or None for a value not known."""
    return None if half is None else as_number(half)


def half_text(half: int) -> str:
    """Half points for people: ``"30½"``, ``"31"``."""
    return f"{half // 2}½" if half % 2 else str(half // 2)


def deck_cards(deck: int) -> frozenset[Card]:
    """The cards of one of the decks of SW-1."""
    return frozenset(Card(r, s) for r in DECK_RANKS[deck] for s in SUITS)


def rate(cards: Sequence[Card], feuer: bool = True) -> HandValue:
    """The value of three cards (SW-2, SW-3), without checking the deck."""
    ranks = {c.rank for c in cards}
    if len(cards) == 3 and len(ranks) == 1:
        rank = cards[0].rank
        if rank == "A" and feuer:
            return HandValue(FEUER, "feuer", rank=rank)
        return HandValue(THIRTY_AND_A_HALF, "three_of_a_kind", rank=rank)
    totals = dict.fromkeys(SUITS, 0)
    for c in cards:
        totals[c.suit] += CARD_VALUES[c.rank]
    best, _, suit = max((t, SUIT_ORDER[s], s) for s, t in totals.items())
    return HandValue(2 * best, "31" if best == 31 else "suit", suit=suit)


def hand_value(cards: Sequence[Card], deck: int = 32, feuer: bool = True) -> HandValue:
    """The value of a hand of ``deck`` (SW-3); RuleViolation SW-10 for a hand that is not one."""
    check_hand(cards, deck, None)
    return rate(cards, feuer)


def check_hand(cards: Sequence[Card], deck: int, player: str | None) -> None:
    """SW-10 checks of one hand: ``player`` whose hand it is, ``None`` for the referee's "this hand"."""
    if len(cards) != 3:
        if player is None:
            raise RuleViolation("SW-10", "This hand must have exactly three cards, not %(n)s.", n=len(cards))
        raise RuleViolation("SW-10", "%(player)s's hand must have exactly three cards, not %(n)s.",
                            player=player, n=len(cards))
    allowed = deck_cards(deck)
    for c in cards:
        if c not in allowed:
            raise RuleViolation("SW-10", "%(card)s is not a card of the %(deck)s-card deck.", card=card_msg(c),
                                deck=deck)
    if len(set(cards)) != 3:
        if player is None:
            raise RuleViolation("SW-10", "This hand holds the same card twice.")
        raise RuleViolation("SW-10", "%(player)s's hand holds the same card twice.", player=player)


def value_json(hv: HandValue) -> dict[str, Any]:
    """The referee endpoint's answer: ``{"value": 30, "kind": "suit", "suit": "C"}``."""
    return {"value": hv.value, "kind": hv.kind, "suit": hv.suit}


def explain(cards: Sequence[Card], feuer: bool = True) -> str:
    """How a hand counts, for people: ``"♣ A K 9 = 30"``."""
    hv = rate(cards, feuer)
    if hv.suit is None:
        ranks = " ".join(c.rank for c in cards)
        what = "Feuer" if hv.kind == "feuer" else "three of a kind"
        return f"{ranks} ({what}) = {half_text(hv.half_points)}"
    scoring = sorted((c for c in cards if c.suit == hv.suit),
                     key=lambda c: (CARD_VALUES[c.rank], RANKS.index(c.rank)), reverse=True)
    return f"{SUIT_SYMBOLS[hv.suit]} {' '.join(c.rank for c in scoring)} = {half_text(hv.half_points)}"


@cache
def possible_values(deck: int = 32, feuer: bool = True) -> tuple[int, ...]:
    """Every value (half points) some three cards of ``deck`` make (SW-4), ascending."""
    cards = sorted(deck_cards(deck))
    return tuple(sorted({rate(h, feuer).half_points for h in itertools.combinations(cards, 3)}))


def parse_value_request(data: object) -> tuple[tuple[Card, ...], int, bool]:
    """The referee request ``{"cards": ["AC", "KC", "9C"], "deck": 32}``.

    ``deck`` defaults to 32 and the optional ``feuer`` (the option of SW-3) to true.
    """
    body = expect_object(data, "request", ("cards", "deck", "feuer"), required=("cards",))
    cards = parse_cards(body["cards"], "cards")
    deck = body.get("deck", 32)
    if isinstance(deck, bool) or deck not in DECKS:
        raise BadInput("deck", "deck must be 32, 36 or 52.")
    feuer = expect_bool(body.get("feuer", True), "feuer")
    return cards, int(deck), feuer


__all__ = [
    "CARD_VALUES", "DECKS", "DECK_RANKS", "FEUER", "SUIT_ORDER", "THIRTY_AND_A_HALF", "THIRTY_ONE", "TWENTY",
    "HandValue", "as_number", "check_hand", "deck_cards", "explain", "half_text", "hand_value", "parse_value_request",
    "possible_values", "rate", "value_json", "value_or_none",
]
