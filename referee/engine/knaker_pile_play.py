"""Knaker's pile referee, its question and answer: the records, the request's parser and its JSON.

What is asked (:class:`Play`: a pile and the lays of one turn) and what is
answered (:class:`Verdict`, one :class:`Step` per combination) are plain
records; :func:`parse_play` reads the request of ``POST
/api/referee/knaker/play`` (its shape is in :mod:`referee.engine.knaker_pile`'s
docstring) and refuses what cannot be with :class:`~referee.engine.BadInput`,
before any rule is asked. :func:`play_json` writes a play back.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.engine import BadInput, Msg, show
from referee.engine.cards import Card, parse_card
from referee.engine.records import expect_bool, expect_int, expect_object, expect_str

SOURCES: tuple[str, ...] = ("hand", "face_up", "face_down", "chance")
HANDICAPS: tuple[str, ...] = ("no_insticks", "hexa_kajak")
MAX_DOTS = 99


# --- records -----------------------------------------------------------------

@dataclass(frozen=True)
class PileCard:
    """One card of the discard pile and whether the asking player laid it."""

    card: Card
    by_self: bool = False


@dataclass(frozen=True)
class Lay:
    """Cards laid together (in this order) from one source."""

    cards: tuple[Card, ...]
    source: str = "hand"


@dataclass(frozen=True)
class Play:
    """The question: this turn on this pile."""

    pile: tuple[PileCard, ...]
    lays: tuple[Lay, ...]
    instick: bool = False
    last_card: bool = False
    dots: int = 0
    double_deck: bool = False
    handicaps: tuple[str, ...] = ()


@dataclass(frozen=True)
class Step:
    """One combination of the turn (one lay, or a lay and its extensions)."""

    lays: tuple[int, ...]
    rule: str
    why: Msg
    flip: bool
    again: bool

    @property
    def reason(self) -> str:
        """The reason in English (:func:`~referee.engine.knaker_pile.verdict_json` translates it)."""
        return str(self.why)


@dataclass(frozen=True)
class Verdict:
    """The answer: legal or not, the deciding rule and what happens."""

    legal: bool
    rule: str
    why: Msg
    effects: tuple[str, ...] = ()
    again: bool = False
    outcome: str | None = None
    outcome_rule: str | None = None
    lay_index: int | None = None
    steps: tuple[Step, ...] = ()
    pile: tuple[PileCard, ...] = ()

    @property
    def reason(self) -> str:
        """The reason in English (:func:`~referee.engine.knaker_pile.verdict_json` translates it)."""
        return show(self.why)


# --- parsing -----------------------------------------------------------------

def parse_play(data: Mapping[str, Any]) -> Play:
    """The API request as a :class:`Play`; :class:`BadInput` for a malformed one."""
    obj = expect_object(data, "play", ("pile", "lays", "source", "instick", "last_card", "dots",
                                       "double_deck", "handicaps"), required=("pile", "lays"))
    source = _parse_source(obj.get("source", "hand"), "source")
    double_deck = expect_bool(obj.get("double_deck", False), "double_deck")
    pile = _parse_pile(obj["pile"])
    lays = _parse_lays(obj["lays"], source)
    dots = expect_int(obj.get("dots", 0), "dots")
    if not 0 <= dots <= MAX_DOTS:
        raise BadInput("dots", "dots must be from 0 to %(most)s.", most=MAX_DOTS)
    handicaps = _parse_handicaps(obj.get("handicaps", []))
    if "hexa_kajak" in handicaps and not double_deck:
        raise BadInput("handicaps", "The hexa-kajak handicap exists only with a double deck (KN-17.2.6).")
    play = Play(pile=pile, lays=lays, instick=expect_bool(obj.get("instick", False), "instick"),
                last_card=expect_bool(obj.get("last_card", False), "last_card"), dots=dots,
                double_deck=double_deck, handicaps=handicaps)
    _check_deck(play)
    return play


def _parse_source(value: object, field: str) -> str:
    text = expect_str(value, field, 20)
    if text not in SOURCES:
        raise BadInput(field, "%(name)s must be one of: %(choices)s.", name=field, choices=", ".join(SOURCES))
    return text


def _parse_pile(value: object) -> tuple[PileCard, ...]:
    if not isinstance(value, list):
        raise BadInput("pile", "pile must be a list of cards, bottom to top.")
    out = []
    for item in value:
        if isinstance(item, Mapping):
            entry = expect_object(item, "pile", ("card", "by"), required=("card",))
            by = expect_str(entry.get("by", "other"), "pile.by", 10)
            if by not in ("self", "other"):
                raise BadInput("pile.by", "by must be \"self\" or \"other\".")
            out.append(PileCard(parse_card(entry["card"], "pile"), by == "self"))
        else:
            out.append(PileCard(parse_card(item, "pile")))
    if any(pc.card.rank == "10" for pc in out):
        raise BadInput("pile", "A 10 flips the pile (KN-4.1), so the pile cannot hold one; start from an empty pile.")
    return tuple(out)


def _parse_lays(value: object, default_source: str) -> tuple[Lay, ...]:
    if not isinstance(value, list) or not value:
        raise BadInput("lays", "lays must be a non-empty list of lays, each a list of cards.")
    lays = []
    for item in value:
        source = default_source
        cards: object = item
        if isinstance(item, Mapping):
            entry = expect_object(item, "lays", ("cards", "source"), required=("cards",))
            cards = entry["cards"]
            source = _parse_source(entry.get("source", default_source), "lays.source")
        if not isinstance(cards, list) or not cards:
            raise BadInput("lays", "Each lay must be a non-empty list of cards.")
        lays.append(Lay(tuple(parse_card(c, "lays") for c in cards), source))
    return tuple(lays)


def _parse_handicaps(value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise BadInput("handicaps", "handicaps must be a list.")
    names = [expect_str(v, "handicaps", 20) for v in value]
    for name in names:
        if name not in HANDICAPS:
            raise BadInput("handicaps", "handicaps may hold only: %(choices)s.", choices=", ".join(HANDICAPS))
    return tuple(h for h in HANDICAPS if h in names)


def _check_deck(play: Play) -> None:
    """No card more often than the deck holds (KN-1/KN-17: 3 jokers per deck, 2 black 1 red)."""
    decks = 2 if play.double_deck else 1
    limit = {"XB": 2 * decks, "XR": decks}
    counts = Counter(pc.card.code for pc in play.pile)
    counts.update(c.code for lay_ in play.lays for c in lay_.cards)
    for code, n in sorted(counts.items()):
        most = limit.get(code, decks)
        if n > most:
            if play.double_deck:
                raise BadInput("lays", "%(card)s appears %(n)s times in pile and lays, but a double deck holds "
                                       "%(most)s.", card=code, n=n, most=most)
            raise BadInput("lays", "%(card)s appears %(n)s times in pile and lays, but one deck holds %(most)s.",
                           card=code, n=n, most=most)


def play_json(play: Play) -> dict[str, Any]:
    """The canonical request of a play (``parse_play`` of it gives the play back)."""
    return {
        "pile": pile_json(play.pile),
        "lays": [{"cards": [c.code for c in lay_.cards], "source": lay_.source} for lay_ in play.lays],
        "source": "hand",
        "instick": play.instick,
        "last_card": play.last_card,
        "dots": play.dots,
        "double_deck": play.double_deck,
        "handicaps": list(play.handicaps),
    }


def pile_json(pile: tuple[PileCard, ...]) -> list[Any]:
    """A pile in the request's notation: plain codes, objects for cards laid by ``self``."""
    return [{"card": pc.card.code, "by": "self"} if pc.by_self else pc.card.code for pc in pile]


__all__ = [
    "HANDICAPS", "MAX_DOTS", "SOURCES", "Lay", "PileCard", "Play", "Step", "Verdict", "parse_play", "pile_json",
    "play_json",
]
