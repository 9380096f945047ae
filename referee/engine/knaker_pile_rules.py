"""Knaker's pile referee, its rules of cards: what the top of the pile means, one card on it, shapes.

The pieces a combination is judged by (:mod:`referee.engine.knaker_pile_group`):

- :func:`pile_top`: what the top of the pile counts as (KN-13: 7s are
  transparent), its run, its knäker or kajak level, a fripple knäker, a
  trippelknug;
- :func:`check_card`: may one card go on that top (KN-3, KN-5, KN-10 ..
  KN-10.2, KN-13, KN-14, KN-17.2 .. KN-17.2.6);
- :func:`shape`: is what was laid together a set, a kåk or a ladder (KN-3.1,
  KN-12 .. KN-12.4, KN-15, KN-16.8). A :class:`ShapeError` is no combination
  at all, which a later lay of the turn may still complete.

Each refusal is a :class:`~referee.engine.RuleViolation` with its rule and
its sentence; the decisions behind them are numbered in
:mod:`referee.engine.knaker_pile`'s docstring.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.engine import N_, Msg, RuleViolation, msg
from referee.engine.cards import Card
from referee.engine.knaker_pile_play import PileCard, Play
from referee.engine.knaker_pile_words import card_word, plural, rank_word

# --- ranks -------------------------------------------------------------------

_ORDINARY = ("3", "4", "5", "6", "8", "9", "J", "Q", "K", "A")  # KN-3 rank order
_VALUE = {r: i for i, r in enumerate(_ORDINARY)}
_CYCLE = ("3", "4", "5", "6", "7", "8", "9", "J", "Q", "K", "A", "X")  # KN-12.2 .. KN-12.4
_CYCLE_POS = {r: i for i, r in enumerate(_CYCLE)}
_COURT_OR_ACE = ("J", "Q", "K", "A")
NO_RUN = ("2", "7", "X")  # KN-4.2: these never flip by a run

_KNAKER_ALLOWED = {1: frozenset({"2", "3", "7", "10", "X"}), 2: frozenset({"2", "3", "10", "X"}),
                   3: frozenset({"10"})}  # three/four 3s on a triple: see knaker_pile_group._check_entry
KNAKER_RULE = {1: "KN-10", 2: "KN-10.1", 3: "KN-10.2"}
_KAJAK_ALLOWED = {1: frozenset({"2", "3", "7", "10", "X"}), 2: frozenset({"2", "3", "10", "X"}),
                  3: frozenset({"2", "10", "X"}), 4: frozenset({"10", "X"}), 5: frozenset({"X"}),
                  6: frozenset()}
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


# --- the pile ----------------------------------------------------------------

@dataclass(frozen=True)
class Top:
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
            return msg(N_("the %(card)s beneath the 7"), card=card_word(self.card.card))
        return msg(N_("the %(card)s"), card=card_word(self.card.card))


def pile_top(pile: tuple[PileCard, ...], double_deck: bool) -> Top:
    sevens = 0
    for pc in reversed(pile):
        if pc.card.rank != "7":
            break
        sevens += 1
    ranked = [pc for pc in pile if pc.card.rank != "7"]
    if not ranked:
        return Top(None, not pile, sevens, 0, 0, False, False)
    top = ranked[-1]
    run = 0
    for pc in reversed(ranked):
        if pc.card.rank != top.card.rank:
            break
        run += 1
    last6 = [pc.card.rank for pc in ranked[-6:]]
    fripple = (not double_deck and len(last6) == 6 and last6.count("X") == 3 and last6.count("3") == 3)
    return Top(card=top, empty=False, sevens=sevens, run=run,
                knaker=run if top.card.rank == "X" else 0, fripple=fripple,
                trippelknug=top.card.rank == "K" and run >= 3)


# --- one card on the pile ----------------------------------------------------

def check_card(top: Top, card: Card, play: Play) -> None:
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
                                     "so not the %(card)s (KN-14).", card=card_word(card))
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
                                         "is lower (KN-13).", card=card_word(top.card.card), word=rank_word(rank))
        raise RuleViolation("KN-3", "%(word)s may not go on %(top)s: a card must be equal or higher (KN-3).",
                            word=rank_word(rank, cap=True), top=top.describe())


def _check_on_knaker(level: int, card: Card, double_deck: bool) -> None:
    """KN-10 .. KN-10.2 (single deck) and KN-17.2.1 .. KN-17.2.6 (kajaks)."""
    if double_deck:
        level = min(level, 6)
        allowed, rule = _KAJAK_ALLOWED[level], f"KN-17.2.{level}"
    else:
        level = min(level, 3)
        allowed, rule = _KNAKER_ALLOWED[level], KNAKER_RULE[level]
    if card.rank in allowed:
        return
    if level == 6:
        raise RuleViolation(rule, "Nothing may be laid on a hexa kajak (KN-17.2.6).")
    raise RuleViolation(rule, _ON_LEVEL[double_deck, level], card=card_word(card))


# --- shapes: set, ladder, kåk -------------------------------------------------

class ShapeError(RuleViolation):
    """The cards laid together are no combination at all (a later lay of the turn may still complete one)."""



def _blocks(ranks: list[str]) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for r in ranks:
        if out and out[-1][0] == r:
            out[-1] = (r, out[-1][1] + 1)
        else:
            out.append((r, 1))
    return out


def shape(cards: tuple[Card, ...], play: Play) -> str:
    """"set" (KN-3.1), "kak" (KN-15) or "ladder" (KN-12); raises for anything else."""
    ranks = [c.rank for c in cards]
    if len(set(ranks)) == 1:
        return "set"
    blocks = _blocks(ranks)
    if len(cards) == 5 and len(blocks) == 2 and sorted(n for _, n in blocks) == [2, 3]:
        _check_kak(blocks, play.double_deck)
        return "kak"
    if len(set(ranks)) == 2:
        raise ShapeError("KN-3.1", N_("Cards laid together must be of one rank, unless they form a ladder "
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
                                     "(KN-15).", high=plural(high), low=plural(low))


def _check_ladder(ranks: list[str], double_deck: bool) -> None:
    """KN-12 .. KN-12.4: rising one rank at a time, 7s optional, no 2s or 10s, jokers wrap A -> 3."""
    if "2" in ranks or "10" in ranks:
        raise ShapeError("KN-12.3", N_("2s and 10s are never part of a ladder; leave them out, "
                                          "e.g. (9, J, Q) (KN-12.3)."))
    seen: set[str] = set()
    prev: str | None = None
    for r in ranks:
        if prev is not None and r != prev:
            step = (_CYCLE_POS[r] - _CYCLE_POS[prev]) % len(_CYCLE)
            if r in seen or not (step == 1 or (prev, r) == ("6", "8")):
                shown = ", ".join("kajak" if x == "X" and double_deck else "knäker" if x == "X" else x
                                  for x in ranks)
                raise ShapeError("KN-12", N_("(%(ranks)s) is not a ladder: the ranks must rise one step at a "
                                              "time (7s may be skipped, 2s and 10s left out) (KN-12)."), ranks=shown)
        seen.add(r)
        prev = r
    if len(seen) < 3:  # pragma: no cover - two ranks are refused by shape
        raise ShapeError("KN-12", N_("A ladder needs at least three different ranks (KN-12)."))


__all__ = [
    "KNAKER_RULE", "NO_RUN", "ShapeError", "Top", "check_card", "pile_top", "shape",
]
