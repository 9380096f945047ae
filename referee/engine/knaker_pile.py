"""Knaker, part B: the pile referee — "may I lay this here?" answered with the rule.

Digest ``rules/knaker.md`` part B (KN-3 ... KN-17.2.6; the 17.2.x numbers are
the seed's: 17.2.1 single kajak ... 17.2.6 hexa kajak). Unlike the game
modules this is not a match: it is one pure question, ``judge(play)``.

Request (``POST /api/referee/knaker/play``), read by :func:`parse_play`::

    {"pile": ["5H", "5S", "7C"],          # bottom to top
     "lays": [["5D"]],                     # the turn: lays in order, each laid together
     "source": "hand",                     # hand | face_up | face_down | chance
     "instick": false, "last_card": false, "dots": 0, "double_deck": false,
     "handicaps": []}                      # optional: "no_insticks", "hexa_kajak"

Only ``pile`` and ``lays`` are required; the rest default as shown. Extensions:

- a pile entry may be ``{"card": "KS", "by": "self"}`` (``by``: ``other``, the
  default, or ``self``); who laid a card matters only for the hexa-kajak
  handicap (KN-17.2.6: court cards and aces laid *by others*);
- a lay may be ``{"cards": ["6H", "8D"], "source": "face_up"}`` to give its
  own source (KN-6.1: face-up cards extending a combination begun from the
  hand); a plain list takes the top-level ``source``.

Answer (:func:`verdict_json`): ``legal``, ``rule`` (the rule that makes the
play legal, or the most specific rule it breaks), ``reason`` (one sentence),
``effects`` (``flip`` if the pile was flipped during the turn; the knäker or
kajak level now on top: ``knaker`` ``double_knaker`` ``triple_knaker``
``fripple_knaker`` / ``kajak`` ... ``hexa_kajak``; ``trippelknug`` while that
restriction is in force), ``again`` (the player lays again), ``outcome``
(``out``/``lost`` when ``last_card``, else null) plus ``outcome_rule``,
``lay`` (index of the offending lay), ``steps`` (one per combination laid)
and ``pile`` (the pile after the turn: what :func:`lay` returns).

Decisions where the digest is silent (tested, and in the report):

1. The pile is taken as given (its history is not re-judged), except that it
   may not hold a 10 (a 10 always flips, KN-4.1) and the card counts must fit
   the deck (BadInput).
2. A turn: a lay that does not earn ``again`` (a 2, a 7 on a 2, a flip) ends
   the turn. A following lay is accepted only as an *extension*: together with
   the cards laid since the last ``again`` it must form one valid combination,
   judged as if laid at once (KN-6.1's "(5, 5) from hand then (6, 8)
   face-up", KN-9's right to add cards). Likewise a lay that is illegal on its
   own may be completed by the next lays of the turn (KN-10.3: the plays that
   complete a fripple knäker are allowed "during that move"; a ladder laid in
   two taps). If nothing mends it, the error of the combination is reported
   (for cards that extend nothing: KN-3, or KN-6.1 for face-up cards). Chance
   and face-down cards never extend. A legal turn's ``rule``/``reason`` are
   those of its last combination; ``steps`` has each combination's.
3. Sources move forward within a turn: hand/chance, then face-up (KN-6.1),
   then face-down (KN-6.2). A face-down card is turned and laid alone, one per
   lay (KN-6.2); a chance is exactly one card (KN-3.2), never an instick.
4. 7s are transparent everywhere (KN-13): in same-rank runs (the digest's
   KN-4.2 decision), in knäker/kajak runs (``joker, 7, joker`` is a double
   knäker), for a trippelknug, for the fripple knäker and for the card that
   counts. A 7 only "acts as a 2" (KN-13.2) when the card that counts beneath
   it is a 2. Consequently the API example ``["5H","5S","7C"] + 5D`` makes
   three 5s, not four: no flip (digest over the example).
5. Combinations are checked at their first ranked card: leading 7s of a
   ladder are transparent, so ``(7, 8, 9)`` needs the 8 to go on the pile. A
   ladder or kåk whose first group is too low is refused citing KN-12/KN-15.
6. A set is one rank; cards of two ranks that are not a kåk are refused with
   KN-3.1, three or more ranks are judged as a ladder (KN-12 ... KN-12.4).
   Ladder order: 3 4 5 6 (7) 8 9 J Q K A joker 3 ..., a rank may not come back
   (no full wrap-around); repeats must be adjacent.
7. A kåk (KN-15) is exactly 3+2 or 2+3 cards of two ordinary ranks (no 7s,
   2s, 10s or jokers) laid lower group first (the seed: "the lowest is laid
   first"). Like a ladder it counts as its top group and never flips.
8. Trippelknug (KN-14): the restriction covers every card laid while it is
   in force, i.e. any leading 7s and the first other card of the lay; a red
   king on it makes four kings and flips.
9. Fripple knäker (KN-10.3): the top six ranked cards are three jokers and
   three 3s (single deck only; with a double deck kajaks never combine with
   3s, KN-17.2, and a kajak may never go on a 3). Only a set of jokers or 3s
   completing it is excused from KN-10/KN-10.2. The last face-down 3 laid on
   it is legal, does not flip (even if four 3s end up in a row) and goes out.
10. Nothing can lie on a triple knäker except 10s and three or four 3s: a 2
    or 7 there cites KN-10.2, on a double knäker a 7 cites KN-10.1 (the level
    rule decides; KN-13.1 is cited for legal 7s).
11. Instick (KN-11): exactly one lay, a set of the rank that counts on top
    (beneath 7s), from the hand; jokers may be sticked in on a joker. It must
    also pass every placement rule. Face-up insticks cite KN-6.1.
12. Dots (KN-16.8): from 3 dots no ladders; from 5 dots the player is
    disqualified and may not lay at all (KN-16.8). 4 dots (picking up the pile)
    is table conduct. ``dots`` accepts 0..99 (part A does not cap dots).
13. The hexa-kajak handicap exists only with a double deck (BadInput
    otherwise); it applies to the card that counts (beneath 7s) when that is
    J, Q, K or A laid by another player.
14. Last card (KN-7, KN-13.4): ``lost`` exactly when the last lay earns
    ``again`` (a 2, a 7 on a 2, a flip, an instick flip), else ``out``.
15. ``lay(play)`` takes the pile from the play itself (one input, no chance
    of a mismatch) and marks the cards of the turn as laid by ``self`` when the
    player lays again, else by ``other`` (the next question comes from the
    next player).

Table-only rules (KN-2, KN-3.4, KN-8, KN-9 take-backs, KN-13.4's fist on the
table, KN-16.8's pick-up at the 4th dot) are not modelled.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from referee.engine import N_, Arg, BadInput, Msg, RuleViolation, as_msg, msg, show
from referee.engine.cards import Card, parse_card
from referee.engine.records import expect_bool, expect_int, expect_object, expect_str

NAME = "knaker"

SOURCES: tuple[str, ...] = ("hand", "face_up", "face_down", "chance")
HANDICAPS: tuple[str, ...] = ("no_insticks", "hexa_kajak")
MAX_DOTS = 99

#: Every rule ID :func:`judge` can return (in ``rule`` or ``outcome_rule``).
RULE_TEXT: dict[str, str] = {
    "KN-3": N_("A card may be laid if it is equal to or higher than the card beneath (3 4 5 6 8 9 J Q K A); "
               "anything on an empty pile."),
    "KN-3.1": N_("Several cards of the same rank may be laid together."),
    "KN-3.2": N_("A chance: turn the top card of the draw pile and lay it, one card in your own turn."),
    "KN-4.1": N_("A 10 may go on anything but a fripple knäker, penta or hexa kajak, and flips the pile."),
    "KN-4.2": N_("Four or more cards of one rank in a row flip the pile (not jokers, 2s or 7s)."),
    "KN-5": N_("A 2 may go on anything but a triple or fripple knäker; lay again. Anything may go on a 2."),
    "KN-6.1": N_("Face-up cards only with an empty hand and no draw pile, never as an instick."),
    "KN-6.2": N_("Face-down cards only when hand and face-up cards are gone, turned and laid one at a time."),
    "KN-7": N_("Laying your last card: out, but lost if it is a 2 or flips the pile."),
    "KN-10": N_("A knäker may go on anything but a 3; on a single knäker only 2, 3, 7, 10 or a knäker."),
    "KN-10.1": N_("On a double knäker (two in a row) only a 2, 3, 10 or a knäker."),
    "KN-10.2": N_("On a triple knäker only a 10, three 3s (fripple knäker) or four 3s (flip)."),
    "KN-10.3": N_("A fripple knäker (three knäkers and three 3s): only a last face-down 3 may go on it."),
    "KN-11": N_("Instick: out of turn, cards from the hand of the top card's rank, never a combination."),
    "KN-11.1": N_("No 2s, 10s or 7s as an instick."),
    "KN-11.2": N_("An instick that makes four in a row flips the pile and gives its player the turn."),
    "KN-12": N_("A ladder: three or more consecutive ranks laid rising; it needs its bottom card to fit."),
    "KN-12.1": N_("A ladder never flips the pile, even with four of a rank in a row."),
    "KN-12.2": N_("7s count as ranks in a ladder but may be skipped: (6, 7, 8) and (6, 8, 9)."),
    "KN-12.3": N_("2s and 10s are never in a ladder and are skipped: (9, J, Q)."),
    "KN-12.4": N_("A knäker is both below 3 and above the ace in a ladder: (K, A, knäker)."),
    "KN-13": N_("A 7 is transparent: the card beneath it counts."),
    "KN-13.1": N_("A 7 may go on anything but a double knäker or higher."),
    "KN-13.2": N_("A 7 on a 2 acts as a 2: lay again."),
    "KN-13.3": N_("A pile of only 7s counts as empty."),
    "KN-13.4": N_("You may go out on a 7 unless a 2 lies beneath it."),
    "KN-13.6": N_("Four 7s in a row do not flip the pile."),
    "KN-14": N_("Trippelknug: on three kings in a row no black card may be laid until another card covers it."),
    "KN-15": N_("A kåk (three of a rank and a pair, no 7s), lower group first; the first group decides."),
    "KN-16.8": N_("From the 3rd dot no ladders; at the 5th dot disqualified."),
    "KN-17.1": N_("Double deck: four or more of a rank in a row flip, all together."),
    "KN-17.2": N_("Double deck: knäkers are kajaks, combine only with kajaks (no 3s) and never flip."),
    "KN-17.2.1": N_("On a single kajak only a 2, 3, 7, 10 or kajak."),
    "KN-17.2.2": N_("On a double kajak only a 2, 3, 10 or kajak."),
    "KN-17.2.3": N_("On a triple kajak only a 2, 10 or kajak."),
    "KN-17.2.4": N_("On a fripple kajak (four) only a 10 or kajak."),
    "KN-17.2.5": N_("On a penta kajak only a kajak."),
    "KN-17.2.6": N_("Nothing goes on a hexa kajak; its picker may lay only 2s, 7s or 10s on others' J, Q, K, A."),
}

# --- ranks -------------------------------------------------------------------

_ORDINARY = ("3", "4", "5", "6", "8", "9", "J", "Q", "K", "A")  # KN-3 rank order
_VALUE = {r: i for i, r in enumerate(_ORDINARY)}
_CYCLE = ("3", "4", "5", "6", "7", "8", "9", "J", "Q", "K", "A", "X")  # KN-12.2 .. KN-12.4
_CYCLE_POS = {r: i for i, r in enumerate(_CYCLE)}
_COURT_OR_ACE = ("J", "Q", "K", "A")
_NO_RUN = ("2", "7", "X")  # KN-4.2: these never flip by a run

_KNAKER_ALLOWED = {1: frozenset({"2", "3", "7", "10", "X"}), 2: frozenset({"2", "3", "10", "X"}),
                   3: frozenset({"10"})}  # three/four 3s on a triple: see _check_entry
_KNAKER_RULE = {1: "KN-10", 2: "KN-10.1", 3: "KN-10.2"}
_KNAKER_NAME = {1: "knaker", 2: "double_knaker", 3: "triple_knaker"}
_KAJAK_ALLOWED = {1: frozenset({"2", "3", "7", "10", "X"}), 2: frozenset({"2", "3", "10", "X"}),
                  3: frozenset({"2", "10", "X"}), 4: frozenset({"10", "X"}), 5: frozenset({"X"}),
                  6: frozenset()}
_KAJAK_NAME = {1: "kajak", 2: "double_kajak", 3: "triple_kajak", 4: "fripple_kajak", 5: "penta_kajak",
               6: "hexa_kajak"}
# --- words -------------------------------------------------------------------
#
# The reasons are sentences built from parts (a rank with its article, a count
# and a plural, the top of the pile). Each part is a message template of its
# own (:class:`referee.engine.Msg`), so every piece is in the catalogs and the
# sentence is put together in the reader's language when it is shown.

_WORDS = {"A": N_("an ace"), "K": N_("a king"), "Q": N_("a queen"), "J": N_("a jack"), "8": N_("an 8")}
_COUNTS = (N_("no"), N_("one"), N_("two"), N_("three"), N_("four"), N_("five"), N_("six"), N_("seven"),
           N_("eight"))
_PLURALS = {"A": N_("aces"), "K": N_("kings"), "Q": N_("queens"), "J": N_("jacks")}
#: A knäker or kajak level by its effect name (``verdict_json``'s ``effects``).
LEVEL_WORDS: dict[str, str] = {
    "knaker": N_("knäker"), "double_knaker": N_("double knäker"), "triple_knaker": N_("triple knäker"),
    "fripple_knaker": N_("fripple knäker"),
    "kajak": N_("kajak"), "double_kajak": N_("double kajak"), "triple_kajak": N_("triple kajak"),
    "fripple_kajak": N_("fripple kajak"), "penta_kajak": N_("penta kajak"), "hexa_kajak": N_("hexa kajak"),
}
#: KN-10 .. KN-10.2 and KN-17.2.1 .. KN-17.2.5: what may go on a knäker or kajak level, by (double deck, level).
_ON_LEVEL: dict[tuple[bool, int], str] = {
    (False, 1): N_("On a knäker only a 2, 3, 7, 10 or knäker may be laid, not the %(card)s (KN-10)."),
    (False, 2): N_("On a double knäker only a 2, 3, 10 or knäker may be laid, not the %(card)s (KN-10.1)."),
    (False, 3): N_("On a triple knäker only a 10, three 3s or four 3s may be laid, not the %(card)s (KN-10.2)."),
    (True, 1): N_("On a kajak only a 2, 3, 7, 10 or kajak may be laid, not the %(card)s (KN-17.2.1)."),
    (True, 2): N_("On a double kajak only a 2, 3, 10 or kajak may be laid, not the %(card)s (KN-17.2.2)."),
    (True, 3): N_("On a triple kajak only a 2, 10 or kajak may be laid, not the %(card)s (KN-17.2.3)."),
    (True, 4): N_("On a fripple kajak only a 10 or kajak may be laid, not the %(card)s (KN-17.2.4)."),
    (True, 5): N_("On a penta kajak only a kajak may be laid, not the %(card)s (KN-17.2.5)."),
}
#: A message shown as it is (its one parameter is already a message): not a catalog entry.
_AS_IS = "%(why)s"


def _word(rank: str, double_deck: bool = False, cap: bool = False) -> Msg:
    """A rank for people, with its article: "an ace", "a 9", "a knäker"."""
    if rank == "X":
        return msg(N_("a kajak") if double_deck else N_("a knäker"), cap=cap)
    if rank in _WORDS:
        return msg(_WORDS[rank], cap=cap)
    return msg(N_("a %(rank)s"), cap=cap, rank=rank)


def _count(n: int) -> Msg:
    return msg(_COUNTS[n]) if n <= 8 else Msg(str(n))


def _plural(rank: str, double_deck: bool = False) -> Msg:
    if rank == "X":
        return msg(N_("kajaks") if double_deck else N_("knäkers"))
    if rank in _PLURALS:
        return msg(_PLURALS[rank])
    return msg(N_("%(rank)ss"), rank=rank)


def _many(n: int, rank: str, double_deck: bool = False, cap: bool = False) -> Msg:
    """"four 5s", "two kings"."""
    return msg(N_("%(count)s %(ranks)s"), cap=cap, count=_count(n), ranks=_plural(rank, double_deck))


def _level_word(level: int, double_deck: bool) -> Msg:
    name = _KAJAK_NAME[min(level, 6)] if double_deck else _KNAKER_NAME[min(level, 3)]
    return msg(LEVEL_WORDS[name])


def _card(card: Card) -> Msg | str:
    """A card for people: "K♠", or a joker in words."""
    if card.is_joker:
        return msg(N_("joker (red)") if card.suit == "R" else N_("joker (black)"))
    return card.label


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
        """The reason in English (:func:`verdict_json` translates it)."""
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
        """The reason in English (:func:`verdict_json` translates it)."""
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


# --- the pile ----------------------------------------------------------------

@dataclass(frozen=True)
class _Top:
    """What the top of the pile means (KN-13: 7s are transparent)."""

    card: PileCard | None  # the card that counts; None when empty or only 7s (KN-13.3)
    empty: bool
    sevens: int  # 7s in a row at the very top
    run: int  # cards of the counting rank in a row (7s transparent)
    knaker: int  # knäkers/kajaks in a row on top (0 if the counting card is not one)
    fripple: bool  # KN-10.3
    trippelknug: bool  # KN-14

    @property
    def rank(self) -> str | None:
        return None if self.card is None else self.card.card.rank

    def describe(self) -> Msg:
        if self.card is None:
            return msg(N_("the empty pile") if self.empty else N_("a pile of only 7s"))
        if self.sevens:
            return msg(N_("the %(card)s beneath the 7"), card=_card(self.card.card))
        return msg(N_("the %(card)s"), card=_card(self.card.card))


def _top(pile: tuple[PileCard, ...], double_deck: bool) -> _Top:
    sevens = 0
    for pc in reversed(pile):
        if pc.card.rank != "7":
            break
        sevens += 1
    ranked = [pc for pc in pile if pc.card.rank != "7"]
    if not ranked:
        return _Top(None, not pile, sevens, 0, 0, False, False)
    top = ranked[-1]
    run = 0
    for pc in reversed(ranked):
        if pc.card.rank != top.card.rank:
            break
        run += 1
    last6 = [pc.card.rank for pc in ranked[-6:]]
    fripple = (not double_deck and len(last6) == 6 and last6.count("X") == 3 and last6.count("3") == 3)
    return _Top(card=top, empty=False, sevens=sevens, run=run,
                knaker=run if top.card.rank == "X" else 0, fripple=fripple,
                trippelknug=top.card.rank == "K" and run >= 3)


# --- one card on the pile ----------------------------------------------------

def _check_card(top: _Top, card: Card, play: Play) -> None:
    """May this single card go on the pile? Raises the rule that forbids it."""
    if top.card is None:
        return  # KN-3 empty pile, KN-13.3 only 7s
    rank, under = card.rank, top.card.card.rank
    if top.knaker:
        _check_on_knaker(top.knaker, card, play.double_deck)
    if "hexa_kajak" in play.handicaps and under in _COURT_OR_ACE and not top.card.by_self \
            and rank not in ("2", "7", "10"):
        raise RuleViolation("KN-17.2.6", "Since you picked up a hexa kajak, on %(top)s laid by another player "
                                         "you may lay only a 2, 7 or 10 (KN-17.2.6).", top=top.describe())
    if top.trippelknug and card.is_black:
        raise RuleViolation("KN-14", "Three kings in a row are a trippelknug: no black card may be laid on it, "
                                     "so not the %(card)s (KN-14).", card=_card(card))
    if rank in ("2", "7", "10") or under in ("2", "X"):
        return  # KN-5, KN-13.1, KN-4.1; anything on a 2 (KN-5); on knäkers the level decides
    if rank == "X":
        if under == "3":
            if play.double_deck:
                raise RuleViolation("KN-17.2", "A kajak may not be laid on a 3: with a double deck kajaks "
                                               "never combine with 3s (KN-17.2).")
            raise RuleViolation("KN-10", "A knäker may not be laid on a 3 unless it completes a fripple "
                                         "knäker (KN-10).")
        return
    if _VALUE[rank] < _VALUE[under]:
        if top.sevens:
            raise RuleViolation("KN-13", "The 7 is transparent, so the %(card)s beneath it counts and %(word)s "
                                         "is lower (KN-13).", card=_card(top.card.card), word=_word(rank))
        raise RuleViolation("KN-3", "%(word)s may not go on %(top)s: a card must be equal or higher (KN-3).",
                            word=_word(rank, cap=True), top=top.describe())


def _check_on_knaker(level: int, card: Card, double_deck: bool) -> None:
    """KN-10 .. KN-10.2 (single deck) and KN-17.2.1 .. KN-17.2.6 (kajaks)."""
    if double_deck:
        level = min(level, 6)
        allowed, rule = _KAJAK_ALLOWED[level], f"KN-17.2.{level}"
    else:
        level = min(level, 3)
        allowed, rule = _KNAKER_ALLOWED[level], _KNAKER_RULE[level]
    if card.rank in allowed:
        return
    if level == 6:
        raise RuleViolation(rule, "Nothing may be laid on a hexa kajak (KN-17.2.6).")
    raise RuleViolation(rule, _ON_LEVEL[double_deck, level], card=_card(card))


# --- shapes: set, ladder, kåk -------------------------------------------------

class _ShapeError(RuleViolation):
    """The cards laid together are no combination at all (a later lay of the turn may still complete one)."""



def _blocks(ranks: list[str]) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for r in ranks:
        if out and out[-1][0] == r:
            out[-1] = (r, out[-1][1] + 1)
        else:
            out.append((r, 1))
    return out


def _shape(cards: tuple[Card, ...], play: Play) -> str:
    """"set" (KN-3.1), "kak" (KN-15) or "ladder" (KN-12); raises for anything else."""
    ranks = [c.rank for c in cards]
    if len(set(ranks)) == 1:
        return "set"
    blocks = _blocks(ranks)
    if len(cards) == 5 and len(blocks) == 2 and sorted(n for _, n in blocks) == [2, 3]:
        _check_kak(blocks, play.double_deck)
        return "kak"
    if len(set(ranks)) == 2:
        raise _ShapeError("KN-3.1", N_("Cards laid together must be of one rank, unless they form a ladder "
                                         "(KN-12) or a kåk (KN-15) (KN-3.1)."))
    _check_ladder(ranks, play.double_deck)
    if play.dots >= 3:
        raise RuleViolation("KN-16.8", "With %(dots)s dots you may not lay ladders (KN-16.8).", dots=play.dots)
    return "ladder"


def _check_kak(blocks: list[tuple[str, int]], double_deck: bool) -> None:
    """KN-15: three of a rank and a pair, no 7s, the lower group first."""
    (low, _), (high, _) = blocks
    if "7" in (low, high):
        raise RuleViolation("KN-15", "7s may not be part of a kåk: they have no rank of their own (KN-15).")
    if low not in _VALUE or high not in _VALUE:
        if double_deck:
            raise RuleViolation("KN-15", "A kåk is made of ordinary ranks: no 2s, 10s or kajaks (KN-15).")
        raise RuleViolation("KN-15", "A kåk is made of ordinary ranks: no 2s, 10s or knäkers (KN-15).")
    if _VALUE[low] > _VALUE[high]:
        raise RuleViolation("KN-15", "In a kåk the lower group is laid first: the %(high)s before the %(low)s "
                                     "(KN-15).", high=_plural(high), low=_plural(low))


def _check_ladder(ranks: list[str], double_deck: bool) -> None:
    """KN-12 .. KN-12.4: rising one rank at a time, 7s optional, no 2s or 10s, jokers wrap A -> 3."""
    if "2" in ranks or "10" in ranks:
        raise _ShapeError("KN-12.3", N_("2s and 10s are never part of a ladder; leave them out, "
                                          "e.g. (9, J, Q) (KN-12.3)."))
    seen: set[str] = set()
    prev: str | None = None
    for r in ranks:
        if prev is not None and r != prev:
            step = (_CYCLE_POS[r] - _CYCLE_POS[prev]) % len(_CYCLE)
            if r in seen or not (step == 1 or (prev, r) == ("6", "8")):
                shown = ", ".join("kajak" if x == "X" and double_deck else "knäker" if x == "X" else x
                                  for x in ranks)
                raise _ShapeError("KN-12", N_("(%(ranks)s) is not a ladder: the ranks must rise one step at a "
                                              "time (7s may be skipped, 2s and 10s left out) (KN-12)."), ranks=shown)
        seen.add(r)
        prev = r
    if len(seen) < 3:  # pragma: no cover - two ranks are refused by _shape
        raise _ShapeError("KN-12", N_("A ladder needs at least three different ranks (KN-12)."))


# --- a combination on the pile -------------------------------------------------

@dataclass(frozen=True)
class _Group:
    rule: str
    why: Msg
    pile: tuple[PileCard, ...]
    flip: bool
    again: bool


def _check_instick(top: _Top, cards: tuple[Card, ...], kind: str, source: str, play: Play) -> None:
    """KN-11 .. KN-11.1 (and KN-6.1, KN-3.2, KN-10.3's handicap)."""
    if source == "face_up":
        raise RuleViolation("KN-6.1", "Face-up cards may never be laid as an instick (KN-6.1).")
    if source == "chance":
        raise RuleViolation("KN-3.2", "A chance is taken in your own turn, never as an instick (KN-3.2).")
    if source != "hand":
        raise RuleViolation("KN-11", "An instick is laid from the hand (KN-11).")
    if "no_insticks" in play.handicaps:
        raise RuleViolation("KN-10.3", "Having picked up a fripple knäker, you may lay no insticks for the "
                                       "rest of the game (KN-10.3).")
    if kind != "set":
        raise RuleViolation("KN-11", "An instick is never a combination such as a ladder or a kåk (KN-11).")
    rank = cards[0].rank
    if rank == "2":
        raise RuleViolation("KN-11.1", "2s may not be laid as an instick (KN-11.1).")
    if rank == "10":
        raise RuleViolation("KN-11.1", "10s may not be laid as an instick (KN-11.1).")
    if rank == "7":
        raise RuleViolation("KN-11.1", "7s may not be laid as an instick (KN-11.1).")
    if top.card is None:
        if top.empty:
            raise RuleViolation("KN-11", "An instick needs a top card of the same rank, and the empty pile has "
                                         "none (KN-11).")
        raise RuleViolation("KN-11", "An instick needs a top card of the same rank, and a pile of only 7s has "
                                     "none (KN-11).")
    if rank != top.rank:
        raise RuleViolation("KN-11", "An instick must be of the same rank as %(top)s, not %(word)s (KN-11).",
                            top=top.describe(), word=_word(rank, play.double_deck))


def _check_entry(top: _Top, cards: tuple[Card, ...], kind: str, play: Play) -> None:
    """The combination's first cards on the pile (7s transparent: leading 7s and the first ranked card)."""
    first = cards[0]
    if not play.double_deck and top.knaker >= 3 and first.rank == "3" and kind == "set":
        if len(cards) >= 4:
            return  # KN-10.2: four 3s flip (three 3s make a fripple knäker, judged before)
        raise RuleViolation("KN-10.2", "On a triple knäker only a 10, three 3s (making a fripple knäker) or "
                                       "four 3s may be laid, not %(count)s (KN-10.2).", count=_count(len(cards)))
    lead: list[Card] = []
    for card in cards:
        lead.append(card)
        if card.rank != "7":
            break
    for card in lead:
        try:
            _check_card(top, card, play)
        except RuleViolation as v:
            if kind == "set" or v.rule not in ("KN-3", "KN-13"):
                raise
            if kind == "ladder":
                raise RuleViolation("KN-12", "A ladder is judged by its bottom card: %(word)s may not go on "
                                             "%(top)s (KN-12).", word=_word(card.rank), top=top.describe()) from None
            raise RuleViolation("KN-15", "In a kåk the group laid first decides: %(word)s may not go on %(top)s "
                                         "(KN-15).", word=_word(card.rank), top=top.describe()) from None


def _new_run_of_four(pile: tuple[PileCard, ...], new_from: int) -> bool:
    """Four or more of an ordinary rank in a row (7s transparent) touching the new cards (KN-12.1)."""
    ranked = [(pc.card.rank, i >= new_from) for i, pc in enumerate(pile) if pc.card.rank != "7"]
    start = 0
    for i in range(1, len(ranked) + 1):
        if i == len(ranked) or ranked[i][0] != ranked[start][0]:
            block = ranked[start:i]
            if block[0][0] not in _NO_RUN and len(block) >= 4 and any(new for _, new in block):
                return True
            start = i
    return False


def _judge_group(pile: tuple[PileCard, ...], cards: tuple[Card, ...], sources: tuple[str, ...],
                 play: Play, final: bool) -> _Group:
    """One combination on the pile: every placement rule, then what it does."""
    dd = play.double_deck
    top = _top(pile, dd)
    kind = _shape(cards, play)
    if play.instick:
        _check_instick(top, cards, kind, sources[0], play)
    after = pile + tuple(PileCard(c, True) for c in cards)
    first = cards[0]
    if top.fripple:  # KN-10.3: only the last face-down 3
        if final and play.last_card and sources == ("face_down",) and len(cards) == 1 and first.rank == "3":
            return _Group("KN-10.3", msg(N_("Your last face-down card is a 3, the only card that may go on a "
                                            "fripple knäker (KN-10.3).")), after, False, False)
        raise RuleViolation("KN-10.3", "Only a player's last face-down card, if it is a 3, may be laid on a "
                                       "fripple knäker; pick up the pile (KN-10.3).")
    if not dd and kind == "set" and first.rank in ("X", "3") and _top(after, dd).fripple:
        return _Group("KN-10.3", msg(N_("That completes a fripple knäker: the next player must pick it up and "
                                        "may lay no insticks for the rest of the game (KN-10.3).")),
                      after, False, False)
    _check_entry(top, cards, kind, play)
    return _effect(top, cards, kind, pile, after, play)


def _effect(top: _Top, cards: tuple[Card, ...], kind: str, pile: tuple[PileCard, ...],
            after: tuple[PileCard, ...], play: Play) -> _Group:
    """The legal combination's rule and effects: flip (KN-4), again (KN-5, KN-13.2)."""
    dd = play.double_deck
    first, n = cards[0], len(cards)
    if kind == "ladder":
        rule = _ladder_rule([c.rank for c in cards], after, len(pile))
        template = N_("A ladder whose bottom card may go on %(top)s; it counts as its top card, %(word)s")
        if rule == "KN-12.1":
            template = N_("A ladder whose bottom card may go on %(top)s; it counts as its top card, %(word)s, "
                          "and never flips the pile")
        why = msg(template, rule=rule, top=top.describe(), word=_word(cards[-1].rank, dd))
        return _Group(rule, why, after, False, False)
    if kind == "kak":
        why = msg(N_("A kåk whose first group may go on %(top)s; it counts as the %(ranks)s on top and never "
                     "flips"), rule="KN-15", top=top.describe(), ranks=_plural(cards[-1].rank))
        return _Group("KN-15", why, after, False, False)
    rank = first.rank
    run = _top(after, dd).run
    reason: Msg
    if rank == "10":
        rule, reason, flip = "KN-4.1", msg(N_("A 10 flips the pile: lay again")), True
    elif rank not in _NO_RUN and run >= 4:
        flip = True
        if play.instick:
            rule = "KN-11.2"
            reason = msg(N_("The instick makes %(many)s in a row: the pile flips and it is your turn"),
                         many=_many(run, rank))
        elif dd:
            rule, reason = "KN-17.1", msg(N_("%(many)s in a row flip the pile: lay again"),
                                          many=_many(run, rank, cap=True))
        elif top.knaker >= 3:
            rule, reason = "KN-10.2", msg(N_("Four 3s on a triple knäker flip the pile: lay again"))
        else:
            rule, reason = "KN-4.2", msg(N_("That makes %(many)s in a row, so the pile flips: lay again"),
                                         many=_many(run, rank))
    else:
        flip = False
        rule, reason = _plain_rule(top, first, n, after, play)
    again = flip or rank == "2" or (rank == "7" and top.rank == "2")
    why = replace(reason, rule=rule)
    return _Group(rule, why, after if not flip else (), flip, again)


def _plain_rule(top: _Top, first: Card, n: int, after: tuple[PileCard, ...], play: Play) -> tuple[str, Msg]:
    """The rule that allows a set that does not flip."""
    dd, rank = play.double_deck, first.rank
    many = _many(n, rank, dd) if n > 1 else _word(rank, dd)
    if play.instick:
        return "KN-11", msg(N_("An instick of %(many)s on %(top)s of the same rank"), many=many, top=top.describe())
    if rank == "2":
        return "KN-5", msg(N_("A 2 may go on anything but a triple or fripple knäker: lay again"))
    if rank == "7":
        if top.rank == "2":
            return "KN-13.2", msg(N_("A 7 on a 2 acts as a 2: lay again"))
        if top.sevens + n >= 4:
            return "KN-13.6", msg(N_("Four 7s in a row do not flip the pile"))
        return "KN-13.1", msg(N_("A 7 may go on %(top)s; it is transparent"), top=top.describe())
    if rank == "X":
        level = _top(after, dd).knaker
        if dd:
            rule = f"KN-17.2.{min(level, 6)}"
            if level >= 6:
                return rule, msg(N_("That makes a %(level)s: nothing may be laid on it"),
                                 level=_level_word(level, dd))
            return rule, msg(N_("That makes a %(level)s"), level=_level_word(level, dd))
        return _KNAKER_RULE[min(level, 3)], msg(N_("A knäker may go on anything but a 3; that makes a %(level)s"),
                                                level=_level_word(level, dd))
    if top.card is None:
        if top.empty:
            return ("KN-3.1" if n > 1 else "KN-3"), msg(N_("Anything may be laid on an empty pile, so %(many)s"),
                                                        many=many)
        return "KN-13.3", msg(N_("A pile of only 7s counts as empty, so %(many)s may be laid"), many=many)
    if top.rank == "2":
        return "KN-5", msg(N_("Any card may be laid on a 2, so %(many)s"), many=many)
    if top.knaker:
        rule = f"KN-17.2.{min(top.knaker, 6)}" if dd else _KNAKER_RULE[min(top.knaker, 3)]
        return rule, msg(N_("A 3 may be laid on a %(level)s"), level=_level_word(top.knaker, dd))
    if top.sevens:
        return "KN-13", msg(N_("The 7 is transparent: %(many)s on the %(card)s beneath it, equal or higher"),
                            many=many, card=_card(top.card.card))
    if n > 1:
        return "KN-3.1", msg(N_("%(many)s laid together on %(top)s: equal or higher"),
                             many=_many(n, rank, dd, cap=True), top=top.describe())
    return "KN-3", msg(N_("%(word)s may go on %(top)s: equal or higher"), word=_word(rank, cap=True),
                       top=top.describe())


def _ladder_rule(ranks: list[str], after: tuple[PileCard, ...], new_from: int) -> str:
    if _new_run_of_four(after, new_from):
        return "KN-12.1"
    if "X" in ranks:
        return "KN-12.4"
    if "9" in ranks and "J" in ranks:
        return "KN-12.3"
    if "7" in ranks or ("6" in ranks and "8" in ranks):
        return "KN-12.2"
    return "KN-12"


# --- the turn ----------------------------------------------------------------

_STAGE = {"hand": 0, "chance": 0, "face_up": 1, "face_down": 2}

#: KN-6.1/KN-6.2: a lay from a source already left behind, by (stage reached, source of the lay).
_SOURCE_GONE: dict[tuple[int, str], str] = {
    (1, "hand"): N_("After laying face-up cards your hand is empty, so you cannot lay from the hand now (KN-6.1)."),
    (1, "chance"): N_("After laying face-up cards your hand is empty, so you cannot lay from the chance now "
                      "(KN-6.1)."),
    (2, "hand"): N_("After laying face-down cards your hand and face-up cards are empty, so you cannot lay from "
                    "the hand now (KN-6.2)."),
    (2, "chance"): N_("After laying face-down cards your hand and face-up cards are empty, so you cannot lay from "
                      "the chance now (KN-6.2)."),
    (2, "face_up"): N_("After laying face-down cards your hand and face-up cards are empty, so you cannot lay from "
                       "the face-up now (KN-6.2)."),
}


def _check_source(lay_: Lay, stage: int, extends: bool) -> int:
    """KN-6.1, KN-6.2, KN-3.2: where the cards of one lay come from."""
    new = _STAGE[lay_.source]
    if new < stage:
        rule = "KN-6.2" if stage == 2 else "KN-6.1"
        raise RuleViolation(rule, _SOURCE_GONE[stage, lay_.source])
    if lay_.source == "face_down" and (len(lay_.cards) != 1 or extends):
        raise RuleViolation("KN-6.2", "Face-down cards are turned and laid one at a time, each as a lay of its "
                                      "own (KN-6.2).")
    if lay_.source == "chance" and (len(lay_.cards) != 1 or extends):
        raise RuleViolation("KN-3.2", "A chance is the one top card of the draw pile, laid instead of cards "
                                      "from the hand (KN-3.2).")
    return new


def judge(play: Play) -> Verdict:
    """Is this turn legal on this pile, by which rule, and what happens?"""
    if play.dots >= 5:
        return _illegal(RuleViolation("KN-16.8", "With %(dots)s dots you are disqualified and may not lay "
                                                 "until the next game (KN-16.8).", dots=play.dots), 0, play)
    if play.instick and len(play.lays) != 1:
        return _illegal(RuleViolation("KN-11", "An instick is a single lay of cards of the top card's rank "
                                               "(KN-11)."), 1, play)
    pile = play.pile
    groups: list[_Group] = []
    steps: list[Step] = []
    stage, i, n = 0, 0, len(play.lays)
    while i < n:
        # One combination: lay i, extended by the following lays until one earns "again" (decision 2).
        cards: tuple[Card, ...] = ()
        sources: tuple[str, ...] = ()
        ok: tuple[_Group, int] | None = None
        err: tuple[RuleViolation, int] | None = None
        first_err: tuple[RuleViolation, int] | None = None
        for j in range(i, n):
            try:
                stage = _check_source(play.lays[j], stage, j > i)
            except RuleViolation as bad_source:
                if err is None:
                    return _illegal(bad_source, j, play)
                break
            cards, sources = cards + play.lays[j].cards, sources + (play.lays[j].source,)
            try:
                group = _judge_group(pile, cards, sources, play, j == n - 1)
            except RuleViolation as broken:
                err = (broken, j)
                first_err = first_err or err
                continue
            ok, err = (group, j), None
            if group.again:
                break
        if err is not None:
            assert first_err is not None
            bad, index = _pick_error(err, first_err, ok, i, play)
            return _illegal(bad, index, play)
        assert ok is not None
        group, end = ok
        groups.append(group)
        steps.append(Step(tuple(range(i, end + 1)), group.rule, group.why, group.flip, group.again))
        pile, i = group.pile, end + 1
    return _legal(play, groups, tuple(steps))


def _pick_error(err: tuple[RuleViolation, int], first_err: tuple[RuleViolation, int],
                ok: tuple[_Group, int] | None, start: int, play: Play) -> tuple[RuleViolation, int]:
    """Which error to report for a combination no later lay could mend."""
    v, _ = err
    if not isinstance(v, _ShapeError):
        return v, start if ok is None else ok[1] + 1  # a real combination, refused by a rule
    if ok is None:
        return first_err
    index = ok[1] + 1  # a legal lay ended the turn and the next did not extend it
    if play.lays[index].source == "face_up":
        return RuleViolation("KN-6.1", "Face-up cards may only extend the combination begun from the hand, and "
                                       "these do not (KN-6.1)."), index
    return RuleViolation("KN-3", "Your turn ended with the previous lay; you lay again only after a 2, a 7 on "
                                 "a 2 or a flip, or to extend the same combination (KN-3)."), index


def _illegal(v: RuleViolation, index: int, play: Play) -> Verdict:
    why = as_msg(v)
    if play.lays[index].source == "chance" and v.rule != "KN-3.2":  # KN-3.3: a failed chance is picked up
        base = Msg(_AS_IS, (Arg("why", msg=why),), strip=v.rule)
        why = msg(N_("%(why)s, so the chance failed: pick up the pile with that card"), rule=v.rule, why=base)
    return Verdict(legal=False, rule=v.rule, why=why, lay_index=index)


def _legal(play: Play, groups: list[_Group], steps: tuple[Step, ...]) -> Verdict:
    last = groups[-1]
    flipped = any(g.flip for g in groups)
    top = _top(last.pile, play.double_deck)
    effects = ["flip"] if flipped else []
    if top.fripple:
        effects.append("fripple_knaker")
    elif top.knaker:
        effects.append(_KAJAK_NAME[min(top.knaker, 6)] if play.double_deck else _KNAKER_NAME[min(top.knaker, 3)])
    if top.trippelknug:
        effects.append("trippelknug")
    outcome: str | None = None
    outcome_rule: str | None = None
    if play.last_card:
        outcome = "lost" if last.again else "out"
        outcome_rule = "KN-13.4" if play.lays[-1].cards[-1].rank == "7" else "KN-7"
    old = play.pile if not flipped else ()
    new = tuple(PileCard(pc.card, last.again) for pc in last.pile[len(old):])
    return Verdict(legal=True, rule=last.rule, why=last.why, effects=tuple(effects), again=last.again,
                   outcome=outcome, outcome_rule=outcome_rule, steps=steps, pile=old + new)


def check(play: Play) -> RuleViolation | None:
    """The yes/no twin of :func:`lay`: the broken rule, or None."""
    verdict = judge(play)
    return None if verdict.legal else RuleViolation(verdict.rule, _AS_IS, why=verdict.why)


def lay(play: Play) -> tuple[PileCard, ...]:
    """The pile after this legal turn ("Lay it"); empty after a final flip. Raises RuleViolation if illegal."""
    verdict = judge(play)
    if not verdict.legal:
        raise RuleViolation(verdict.rule, _AS_IS, why=verdict.why)
    return verdict.pile


def verdict_json(v: Verdict, translate: Callable[[str], str] = str) -> dict[str, Any]:
    """The API answer, its texts in the language of ``translate`` (the asker's gettext; English by default)."""
    return {
        "legal": v.legal,
        "rule": v.rule,
        "rule_text": translate(RULE_TEXT[v.rule]) if v.rule in RULE_TEXT else "",
        "reason": show(v.why, translate),
        "effects": list(v.effects),
        "again": v.again,
        "outcome": v.outcome,
        "outcome_rule": v.outcome_rule,
        "lay": v.lay_index,
        "steps": [{"lays": list(s.lays), "rule": s.rule, "reason": show(s.why, translate), "flip": s.flip,
                   "again": s.again} for s in v.steps],
        "pile": pile_json(v.pile) if v.legal else None,
    }


__all__ = [
    "HANDICAPS", "LEVEL_WORDS", "NAME", "RULE_TEXT", "SOURCES", "Lay", "PileCard", "Play", "Step", "Verdict", "check",
    "judge", "lay", "parse_play", "pile_json", "play_json", "verdict_json",
]
