"""The trick referee's dispute mode: an argument about one card of one trick (SK-15, KU-3, SL-14).

At the table an argument is about one trick as it lies: the cards in play
order, the card in question, and what the others know of that player's hand
("she had a ♦", "he had a higher trump"). This module answers it with the
same obligations as the whole-deal referee (:mod:`referee.engine.trick_rules`),
so the verdict and its rule are those of ``POST /api/referee/tricks``.

What is known of a hand is a *fact*, not a card: nobody saw which ♦ she
kept. Each fact the rules can use is turned into one witness card that
makes the fact true and nothing more (the lowest card of its kind not on the
table: "had ♦" a ♦ that does not beat the trick, "had a higher ♦" the lowest
♦ that does), and the hand ``{card in question} ∪ witnesses`` is judged. The
obligations are monotone (trick_rules' docstring), so the verdict holds for
every hand with those facts. The sentence names the fact, never the witness
("had to follow suit with a ♦", not "with 2♦").

Which facts are offered depends on the trick and the card: only those that
could change the verdict and that the cards left in the deck allow (no
"higher ♦" when A♦ lies in the trick). A fact asked for but not offered is
ignored and left out of ``known`` (the page drops a fact that a changed trick
made pointless); a fact that is no fact at all is a 400.

Decisions where the rules are silent (docs/rules.md):

- "Trumf i andra" (SK-15) needs two facts at once (this is the second trick
  and its leader won the first), offered as one: "won trick 1 and had a trump".
- Without facts every card gets the benefit of the doubt, as in the whole-deal
  mode: a lone trick never yields a false "illegal".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from referee.engine import N_, BadInput, Msg, RuleViolation, msg, show
from referee.engine.cards import SUIT_SYMBOLS, Card, card_msg, card_name, parse_card
from referee.engine.trick_rules import beats, sk15, sl14, strength, top_of, winner_index
from referee.engine.tricks import DECKS, parse_deal

#: Every fact a dispute may name, in the order the page shows them.
FACTS: tuple[str, ...] = ("suit", "higher", "trump", "higher_trump", "second", "side")
_FIELDS = ("game", "trump", "players", "leader", "trick", "card", "known")
_RULES = {"svangknack": "SK-15", "kul": "KU-3", "schloapfer": "SL-14"}


@dataclass(frozen=True)
class Fact:
    """A fact that can be known of the hand: its ID, its label for the chip, its witness and how to name it."""

    id: str
    label: Msg
    witness: Card
    phrase: Msg


@dataclass(frozen=True)
class Dispute:
    """A checked question: the trick as it lies, the card in question and the facts asked for."""

    game: str
    trump: str | None
    players: tuple[str, ...]
    leader: str
    trick: tuple[Card, ...]
    card: Card
    known: tuple[str, ...]

    @property
    def position(self) -> int:
        """0-based position of the card in question in the trick."""
        return self.trick.index(self.card)

    def order(self) -> list[str]:
        """Who plays each position of this trick: the leader, then clockwise."""
        start = self.players.index(self.leader)
        return [self.players[(start + i) % len(self.players)] for i in range(len(self.players))]


def parse_dispute(data: Mapping[str, Any]) -> Dispute:
    """The request into a :class:`Dispute`; :class:`BadInput` (the 400) for what cannot be."""
    if not isinstance(data, Mapping):
        raise BadInput("body", "The request must be a JSON object.")
    for key in data:
        if key not in _FIELDS:
            raise BadInput(str(key)[:40], "%(name)s is not a field of this request.", name=repr(str(key)[:40]))
    raw_trick = data.get("trick")
    if not isinstance(raw_trick, list) or not raw_trick:
        raise BadInput("trick", "trick must list the cards of the trick in the order they were played.")
    # The trick, players, trump and leader are checked as one trick of a deal (deck, duplicates, size).
    deal = parse_deal({k: v for k, v in data.items() if k in ("game", "trump", "players", "leader")}
                      | {"tricks": [raw_trick]})
    trick = deal.tricks[0]
    card = parse_card(data["card"], "card") if data.get("card") is not None else trick[-1]
    if card not in trick:
        raise BadInput("card", "The card in question (%(card)s) is not in the trick.", card=card_msg(card))
    known = data.get("known", [])
    if not isinstance(known, list) or not all(isinstance(k, str) and k in FACTS for k in known):
        raise BadInput("known", "known must list facts among: %(facts)s.", facts=", ".join(FACTS))
    return Dispute(deal.game, deal.trump, deal.players, deal.leader, trick, card, tuple(dict.fromkeys(known)))


def _lowest(game: str, cards: list[Card], trump: str | None) -> Card | None:
    return min(cards, key=lambda c: (strength(game, c, trump), c.suit)) if cards else None


class _Offers:
    """The facts offered so far: each new fact gets the lowest card of its pool that is no other fact's witness."""

    def __init__(self, game: str, trump: str | None) -> None:
        self.game, self.trump = game, trump
        self.facts: list[Fact] = []

    def offer(self, fid: str, label: Msg, phrase: Msg, pool: list[Card]) -> None:
        taken = {f.witness for f in self.facts}
        witness = _lowest(self.game, [c for c in pool if c not in taken], self.trump)
        if witness is not None:
            self.facts.append(Fact(fid, label, witness, phrase))


def facts(d: Dispute) -> list[Fact]:
    """The facts about the hand of the card's player that could change the verdict, each with its witness."""
    before = d.trick[:d.position]
    free = [c for c in sorted(DECKS[d.game]) if c not in d.trick]
    offers = _Offers(d.game, d.trump)
    if not before:
        _lead_facts(offers, d.card, free)
    elif d.game == "schloapfer":
        _schloapfer_facts(offers, d.card, before, free)
    else:
        led = before[0].suit
        top = top_of(d.game, before, led, d.trump)
        assert top is not None
        _follow_facts(offers, d.card, led, top, free)
        _trump_facts(offers, d.card, before, led, free)
    return offers.facts


def _lead_facts(offers: _Offers, card: Card, free: list[Card]) -> None:
    """The card leads the trick: only Svängknack's "trumf i andra" can make a lead illegal (SK-15)."""
    trump = offers.trump
    if offers.game == "svangknack" and trump is not None and card.suit != trump:
        sym = SUIT_SYMBOLS[trump]
        offers.offer("second", msg(N_("won trick 1 and had a trump (%(suit)s)"), suit=sym),
                     msg(N_("a %(suit)s"), suit=sym), [c for c in free if c.suit == trump])


def _follow_facts(offers: _Offers, card: Card, led: str, top: Card, free: list[Card]) -> None:
    """Svängknack and Kul: following suit (had the suit led) and going over (had a higher card of it)."""
    game, trump = offers.game, offers.trump
    higher = [c for c in free if beats(game, c, top, trump)]
    led_sym = SUIT_SYMBOLS[led]
    if card.suit != led:
        offers.offer("suit", msg(N_("had %(suit)s"), suit=led_sym), msg(N_("a %(suit)s"), suit=led_sym),
                     [c for c in free if c.suit == led and c not in higher] or [c for c in free if c.suit == led])
    if not beats(game, card, top, trump):
        offers.offer("higher", msg(N_("had a %(suit)s higher than %(top)s"), suit=led_sym, top=card_msg(top)),
                     msg(N_("a higher %(suit)s"), suit=led_sym), higher)


def _trump_facts(offers: _Offers, card: Card, before: tuple[Card, ...], led: str, free: list[Card]) -> None:
    """Svängknack and Kul: trumping when void (had a trump) and over-trumping (had a higher trump)."""
    game, trump = offers.game, offers.trump
    if trump is None or trump == led:
        return
    if card.suit not in (led, trump):
        sym = SUIT_SYMBOLS[trump]
        offers.offer("trump", msg(N_("had a trump (%(suit)s)"), suit=sym), msg(N_("a %(suit)s"), suit=sym),
                     [c for c in free if c.suit == trump])
    top_trump = top_of(game, before, trump, trump)
    if top_trump is not None and card.suit != led and not beats(game, card, top_trump, trump):
        offers.offer("higher_trump", msg(N_("had a trump higher than %(top)s"), top=card_msg(top_trump)),
                     msg(N_("a higher %(suit)s"), suit=SUIT_SYMBOLS[top_trump.suit]),
                     [c for c in free if beats(game, c, top_trump, trump)])


def _schloapfer_facts(offers: _Offers, card: Card, before: tuple[Card, ...], free: list[Card]) -> None:
    """Schloapfer (SL-14): a trump lead asks for a trump other than the jack; else the suit, or not trumping."""
    game, trump = offers.game, offers.trump
    assert trump is not None
    led = before[0].suit
    if led == trump:
        if card.suit != trump:
            offers.offer("trump", msg(N_("had a trump other than the jack (%(suit)s)"), suit=SUIT_SYMBOLS[trump]),
                         msg(N_("a trump other than the jack")),
                         [c for c in free if c.suit == trump and c.rank != "J"])
        return
    led_sym = SUIT_SYMBOLS[led]
    if card.suit not in (led, trump):
        offers.offer("suit", msg(N_("had %(suit)s"), suit=led_sym), msg(N_("a %(suit)s"), suit=led_sym),
                     [c for c in free if c.suit == led])
    top_trump = top_of(game, before, trump, trump)
    if card.suit == trump and top_trump is not None and not beats(game, card, top_trump, trump):
        offers.offer("side", msg(N_("had a card that is not a trump")), msg(N_("a card that is not a trump")),
                     [c for c in free if c.suit not in (led, trump)] or [c for c in free if c.suit != trump])


def _named(violation: RuleViolation, phrases: Mapping[Msg, Msg]) -> RuleViolation:
    """The engine's sentence with the witness (its name, :func:`card_msg`) named by its fact ("a higher ♦")."""
    params: dict[str, object] = {}
    for key, value in violation.params.items():
        params[key] = phrases.get(value, value) if isinstance(value, Msg) else value
    return RuleViolation(violation.rule, violation.template, **params)


def judge_dispute(d: Dispute, translate: Callable[[str], str] = str) -> dict[str, Any]:
    """The verdict on the card in question with the known facts, its rule and reason in ``translate``'s language."""
    offered = facts(d)
    used = [f for f in offered if f.id in d.known]
    hand = frozenset({d.card, *(f.witness for f in used)})
    order = d.order()
    pos = d.position
    player = order[pos]
    before = d.trick[:pos]
    if d.game == "schloapfer":
        assert d.trump is not None
        bad = sl14(player, d.card, before, hand, d.trump)
    else:
        bad = sk15(player, d.card, before, hand, d.trump, any(f.id == "second" for f in used))
    rule = _RULES[d.game]
    if bad is not None:
        reason = show(_named(bad, {card_msg(f.witness): f.phrase for f in used}), translate)
        rule = bad.rule
    elif pos == 0 and not used:
        reason = show(msg(N_("%(player)s leads %(card)s: any card may lead a trick."),
                          player=player, card=card_msg(d.card), rule=rule), translate)
    else:
        reason = show(msg(N_("%(player)s may play %(card)s: nothing known of the hand demands "
                             "another card."), player=player, card=card_msg(d.card), rule=rule), translate)
    complete = len(d.trick) == len(d.players)
    return {
        "legal": bad is None, "rule": rule, "reason": reason, "player": player, "card": d.card.code,
        "card_name": card_name(d.card, translate),
        "position": pos + 1, "order": order, "known": [f.id for f in used],
        "facts": [{"id": f.id, "label": show(f.label, translate)} for f in offered],
        "winner": order[winner_index(d.game, d.trick, d.trump)] if complete else None,
    }


__all__ = [
    "FACTS", "Dispute", "Fact", "facts", "judge_dispute", "parse_dispute",
]
