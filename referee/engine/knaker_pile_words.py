"""Knaker's pile referee, its words: the rule texts and the parts its reasons are built from.

The pile referee (:mod:`referee.engine.knaker_pile`) answers with the rule
and one sentence. ``RULE_TEXT`` is each rule in one line (the page's rule
line); the reasons are sentences built from parts (a rank with its article,
a count and a plural, a knäker level, a card), each part a message template
of its own (:class:`referee.engine.Msg`), so every piece is in the catalogs
and the sentence is put together in the reader's language when it is shown.
Only texts live here; the rules that use them are in
:mod:`referee.engine.knaker_pile_rules` and :mod:`referee.engine.knaker_pile_group`.
"""

from __future__ import annotations

from referee.engine import N_, Msg, msg
from referee.engine.cards import Card, card_msg

#: Every rule ID :func:`~referee.engine.knaker_pile.judge` can return (in ``rule`` or ``outcome_rule``).
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

KNAKER_NAME = {1: "knaker", 2: "double_knaker", 3: "triple_knaker"}
KAJAK_NAME = {1: "kajak", 2: "double_kajak", 3: "triple_kajak", 4: "fripple_kajak", 5: "penta_kajak",
              6: "hexa_kajak"}

# --- words -------------------------------------------------------------------

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
#: A message shown as it is (its one parameter is already a message): not a catalog entry.
AS_IS = "%(why)s"


def rank_word(rank: str, double_deck: bool = False, cap: bool = False) -> Msg:
    """A rank for people, with its article: "an ace", "a 9", "a knäker"."""
    if rank == "X":
        return msg(N_("a kajak") if double_deck else N_("a knäker"), cap=cap)
    if rank in _WORDS:
        return msg(_WORDS[rank], cap=cap)
    return msg(N_("a %(rank)s"), cap=cap, rank=rank)


def count_word(n: int) -> Msg:
    return msg(_COUNTS[n]) if n <= 8 else Msg(str(n))


def plural(rank: str, double_deck: bool = False) -> Msg:
    if rank == "X":
        return msg(N_("kajaks") if double_deck else N_("knäkers"))
    if rank in _PLURALS:
        return msg(_PLURALS[rank])
    return msg(N_("%(rank)ss"), rank=rank)


def how_many(n: int, rank: str, double_deck: bool = False, cap: bool = False) -> Msg:
    """"four 5s", "two kings"."""
    return msg(N_("%(count)s %(ranks)s"), cap=cap, count=count_word(n), ranks=plural(rank, double_deck))


def level_word(level: int, double_deck: bool) -> Msg:
    name = KAJAK_NAME[min(level, 6)] if double_deck else KNAKER_NAME[min(level, 3)]
    return msg(LEVEL_WORDS[name])


def card_word(card: Card) -> Msg:
    """A card for people, in words ("king of spades", a joker): said aloud as well as read."""
    return card_msg(card)


__all__ = [
    "AS_IS", "KAJAK_NAME", "KNAKER_NAME", "LEVEL_WORDS", "RULE_TEXT", "card_word", "count_word", "how_many",
    "level_word", "plural", "rank_word",
]
