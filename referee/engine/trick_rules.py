"""The obligations of trick play, one function per game: SK-15, KU-3 and SL-14.

Each function answers one question: may a player holding ``hand`` play
``card`` to a trick that so far holds ``before``? It returns ``None`` or the
:class:`~referee.engine.RuleViolation` naming the rule and, where there is
one, the card the player should have played (the lowest that would do).

``hand`` is what is *known* of the player's hand at that moment: the card
played, the cards the player plays later in the log and the cards shown as
still held. Every obligation here is monotone (holding more cards only adds
obligations, and every exemption needs the hand to hold *only* some kind of
card), so a play that breaks a rule on the known part of the hand breaks it on
every hand that contains it, and a play that is legal on the known part gets
the benefit of the doubt. That is why a partial deal never yields a false
"illegal".

Decisions where the digests are silent (docs/rules.md, "Rules: decisions where the
rules were silent"):

- SK-15 / KU-3 "a higher card": higher than the highest card *of the suit
  led* already in the trick. A trump played to a side-suit lead does not
  lift the obligation (the rule is stated per suit and can be checked without
  asking who is winning).
- SK-15 void in the suit led: the player must trump, overtaking the highest
  trump already in the trick if able, otherwise with any trump (the seed:
  "Alla som inte kan bekänna färg måste lägga trumf om han har").
- SK-15 "Färg" lets a player keep the cards instead of playing; the log has
  no token for "did not play", so Färg changes no verdict: a player whose
  remaining cards are all of one suit that cannot beat the led card is never
  obliged to anything those cards could not do (tested).
- SL-14 no undertrumping applies when a side suit is led; when trumps are led,
  following with a lower trump is following suit (otherwise a player could be
  both forced to follow and forbidden to).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from referee.engine import Msg, RuleViolation, msg
from referee.engine.cards import RANKS, SUIT_WORDS, Card, card_msg

# SL-2: trick strength, lowest first.
SL_SIDE: tuple[str, ...] = ("6", "7", "8", "9", "10", "J", "Q", "K", "A")
SL_TRUMP: tuple[str, ...] = ("6", "7", "8", "10", "Q", "K", "A", "9", "J")


def strength(game: str, card: Card, trump: str | None) -> int:
    """Rank of ``card`` within its suit for the game (higher wins)."""
    if game == "schloapfer":
        order = SL_TRUMP if card.suit == trump else SL_SIDE
        return order.index(card.rank)
    return RANKS.index(card.rank)


def beats(game: str, a: Card, b: Card, trump: str | None) -> bool:
    """Whether ``a`` beats ``b`` in the same suit."""
    return a.suit == b.suit and strength(game, a, trump) > strength(game, b, trump)


def top_of(game: str, cards: Sequence[Card], suit: str, trump: str | None) -> Card | None:
    """The strongest card of ``suit`` among ``cards``, or None."""
    of_suit = [c for c in cards if c.suit == suit]
    return max(of_suit, key=lambda c: strength(game, c, trump)) if of_suit else None


def winner_index(game: str, cards: Sequence[Card], trump: str | None) -> int:
    """Position (0-based) of the card that wins the trick: highest trump, else highest of the suit led."""
    suit = trump if trump is not None and any(c.suit == trump for c in cards) else cards[0].suit
    best = top_of(game, cards, suit, trump)
    assert best is not None
    return list(cards).index(best)


def _lowest(game: str, cards: Collection[Card], trump: str | None) -> Msg:
    """The weakest of ``cards``, named in words for the verdict (a screen reader cannot say "10S")."""
    return card_msg(min(cards, key=lambda c: strength(game, c, trump)))


def sk15(player: str, card: Card, before: Sequence[Card], hand: Collection[Card],
         trump: str | None, first_lead_of_second: bool) -> RuleViolation | None:
    """SK-15 (Svängknack, with ``trump``) and KU-3 (Kul, ``trump`` None): forced overtaking."""
    game, rule = ("svangknack", "SK-15") if trump is not None else ("kul", "KU-3")
    if not before:
        if first_lead_of_second and trump is not None and card.suit != trump:
            trumps = [c for c in hand if c.suit == trump]
            if trumps:
                return RuleViolation(rule, "%(player)s won the first trick and had to lead a trump to the "
                                     "second, such as %(better)s (trumf i andra, SK-15).",
                                     player=player, better=_lowest(game, trumps, trump))
        return None
    led = before[0].suit
    top = top_of(game, before, led, trump)
    assert top is not None
    same = [c for c in hand if c.suit == led]
    higher = [c for c in same if beats(game, c, top, trump)]
    if higher:
        if card in higher:
            return None
        return RuleViolation(rule, "%(player)s had to beat %(top)s with %(better)s (forced overtaking, %(rule)s).",
                             player=player, top=card_msg(top), better=_lowest(game, higher, trump), rule=rule)
    if same:
        if card.suit == led:
            return None
        return RuleViolation(rule, "%(player)s had to follow suit with %(better)s (%(rule)s).",
                             player=player, better=_lowest(game, same, trump), rule=rule)
    if trump is None:
        return None
    trumps = [c for c in hand if c.suit == trump]
    if not trumps:
        return None
    top_trump = top_of(game, before, trump, trump)
    over = [c for c in trumps if top_trump is None or beats(game, c, top_trump, trump)]
    if over:
        if card in over:
            return None
        if top_trump is None:
            return RuleViolation(rule, "%(player)s had no %(suit)s and had to trump with %(better)s (SK-15).",
                                 player=player, suit=msg(SUIT_WORDS[led]), better=_lowest(game, over, trump))
        return RuleViolation(rule, "%(player)s had no %(suit)s and had to overtake the trump %(top)s with "
                             "%(better)s (SK-15).", player=player, suit=msg(SUIT_WORDS[led]),
                             top=card_msg(top_trump), better=_lowest(game, over, trump))
    if card.suit == trump:
        return None
    return RuleViolation(rule, "%(player)s had no %(suit)s and had to trump with %(better)s (SK-15).",
                         player=player, suit=msg(SUIT_WORDS[led]), better=_lowest(game, trumps, trump))


def sl14(player: str, card: Card, before: Sequence[Card], hand: Collection[Card],
         trump: str) -> RuleViolation | None:
    """SL-14 (Schloapfer): follow or trump, the trump jack never forced, no undertrumping, only trumps exempt."""
    game = "schloapfer"
    if not before or all(c.suit == trump for c in hand):
        return None
    led = before[0].suit
    if led == trump:
        forced = [c for c in hand if c.suit == trump and c.rank != "J"]
        if card.suit == trump or not forced:
            return None
        return RuleViolation("SL-14", "%(player)s had to follow trumps with %(better)s (SL-14).",
                             player=player, better=_lowest(game, forced, trump))
    if card.suit == trump:
        top_trump = top_of(game, before, trump, trump)
        if top_trump is not None and not beats(game, card, top_trump, trump):
            return RuleViolation("SL-14", "%(player)s may not undertrump %(top)s with %(card)s (SL-14).",
                                 player=player, top=card_msg(top_trump), card=card_msg(card))
        return None
    if card.suit == led:
        return None
    same = [c for c in hand if c.suit == led]
    if same:
        return RuleViolation("SL-14", "%(player)s had to follow suit with %(better)s or trump (SL-14).",
                             player=player, better=_lowest(game, same, trump))
    return None


__all__ = ["SL_SIDE", "SL_TRUMP", "beats", "sk15", "sl14", "strength", "top_of", "winner_index"]
