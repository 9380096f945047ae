"""Playing cards in the contract's notation, shared by every game.

Notation: rank ``2``-``10``, ``J``, ``Q``, ``K``, ``A`` followed by a suit
``S`` ``H`` ``D`` ``C`` (``10H``, ``QS``); jokers ``XR`` (red) and ``XB``
(black). Lower case is accepted. Which cards a game's deck holds is the
game's business; this module only reads and writes the notation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from referee.engine import N_, BadInput, Msg, msg

RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
SUIT_SYMBOLS: dict[str, str] = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
JOKERS: tuple[str, ...] = ("XR", "XB")
#: Each rank and suit as a word, for a card's spoken name (:func:`card_msg`): catalog entries, so the
#: name is in the reader's language wherever it is shown (server or the phone's engine).
RANK_WORDS: dict[str, str] = {
    "2": N_("two"), "3": N_("three"), "4": N_("four"), "5": N_("five"), "6": N_("six"), "7": N_("seven"),
    "8": N_("eight"), "9": N_("nine"), "10": N_("ten"), "J": N_("jack"), "Q": N_("queen"), "K": N_("king"),
    "A": N_("ace"),
}
SUIT_WORDS: dict[str, str] = {"S": N_("spades"), "H": N_("hearts"), "D": N_("diamonds"), "C": N_("clubs")}


@dataclass(frozen=True, order=True)
class Card:
    """One card. Jokers have rank ``"X"`` and suit ``"R"`` or ``"B"``."""

    rank: str
    suit: str

    @property
    def is_joker(self) -> bool:
        return self.rank == "X"

    @property
    def is_black(self) -> bool:
        """Spades, clubs and the black joker."""
        return self.suit in ("S", "C", "B")

    @property
    def code(self) -> str:
        """The contract's notation (``"10H"``, ``"XR"``)."""
        return f"{self.rank}{self.suit}"

    @property
    def label(self) -> str:
        """For people: ``"10♥"``, ``"joker (red)"``."""
        if self.is_joker:
            return "joker (red)" if self.suit == "R" else "joker (black)"
        return f"{self.rank}{SUIT_SYMBOLS[self.suit]}"

    def __str__(self) -> str:
        return self.code


def card_msg(card: Card) -> Msg:
    """A card's name in words ("ten of spades", "spader tio", "Pik Zehn"), kept as a message until shown.

    Why words: a screen reader reads "10S" or "10♠" as letters and symbols; a
    verdict or a button's accessible name must say the card. The order of rank
    and suit is the catalog's (``"%(rank)s of %(suit)s"``), so each language
    says it its own way.
    """
    if card.is_joker:
        return msg(N_("joker (red)") if card.suit == "R" else N_("joker (black)"))
    return msg(N_("%(rank)s of %(suit)s"), rank=msg(RANK_WORDS[card.rank]), suit=msg(SUIT_WORDS[card.suit]))


def card_name(card: Card | str, translate: Callable[[str], str] = str) -> str:
    """:func:`card_msg` as text in the language of ``translate`` (a card or its code)."""
    return card_msg(parse_card(card) if isinstance(card, str) else card).text(translate)


def rank_name(rank: str, translate: Callable[[str], str] = str) -> str:
    """A rank in words ("ten", "knekt", "Dame"): the accessible name of a rank button."""
    return translate(RANK_WORDS[rank])


def parse_card(text: object, field: str = "cards") -> Card:
    """Read one card; :class:`referee.engine.BadInput` for anything else."""
    if not isinstance(text, str):
        raise BadInput(field, "A card must be written as text like \"10H\"; got %(text)s.", text=repr(text)[:40])
    code = text.strip().upper()
    if code in JOKERS:
        return Card("X", code[1])
    rank, suit = code[:-1], code[-1:]
    if rank not in RANKS or suit not in SUITS:
        raise BadInput(field, "%(text)s is not a card (write rank then suit, like 10H, QS, 7C, XR).",
                       text=repr(text[:12]))
    return Card(rank, suit)


def parse_cards(items: object, field: str = "cards") -> tuple[Card, ...]:
    """Read a JSON list of cards."""
    if not isinstance(items, list):
        raise BadInput(field, "%(name)s must be a list of cards.", name=field)
    return tuple(parse_card(item, field) for item in items)


def full_deck(ranks: Iterable[str] = RANKS, jokers: int = 0) -> tuple[Card, ...]:
    """Every card of the given ranks in the four suits, plus jokers.

    With ``jokers=3`` (Knaker) there are two black and one red.
    """
    cards = [Card(r, s) for s in SUITS for r in ranks]
    joker_suits = ("B", "R", "B")
    cards.extend(Card("X", joker_suits[k % 3]) for k in range(jokers))
    return tuple(cards)


__all__ = ["JOKERS", "RANKS", "RANK_WORDS", "SUITS", "SUIT_SYMBOLS", "SUIT_WORDS", "Card", "card_msg", "card_name",
           "full_deck", "parse_card", "parse_cards", "rank_name"]
