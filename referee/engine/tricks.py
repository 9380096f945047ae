"""The trick referee: "may I play this card?" for Svängknack, Kul and Schloapfer.

One pure question, ``judge(parse_deal(data))``, answering ``POST
/api/referee/tricks`` (API.md, "Tricks"). This module holds the shared
mechanics: the games' decks and hand sizes, who plays when, who wins each
trick, and the hand a player is known to have held (the card played, every
card that player plays later in the log and the cards shown in ``hands``).
The obligations themselves, with their rule IDs, are in
:mod:`referee.engine.trick_rules`.

Decisions where the digests are silent (tested, docs/rules.md):

- Hand sizes: Svängknack 3 cards (seed: "tre kort till varje spelare"), Kul 5
  (KU-3), Schloapfer 6 (SL-3); a deal is complete after that many full tricks.
- ``ask`` is judged as the next card of the log: the player must be the one
  whose turn it is (else 400), and the verdict is reported like any broken
  rule, at the trick and position the card would take. ``winners``,
  ``tricks_won`` and ``eyes`` stay those of the log (a trick the asked card
  would complete is not counted) and ``round`` is null.
- ``hands`` may not hold a card of the log and no player may hold more cards
  than the game deals (400, field ``hands``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.engine import BadInput, RuleViolation
from referee.engine.cards import SUITS, Card, full_deck, parse_card, parse_cards
from referee.engine.spec import SPECS
from referee.engine.trick_rules import sk15, sl14, winner_index

#: The games whose deals are judged here, with their hands and decks: their specs' ``trick_hand`` and
#: ``trick_ranks`` (:mod:`referee.engine.spec`, the one list of games).
GAMES: tuple[str, ...] = tuple(name for name, game in SPECS.items() if game.has_tricks)
HAND_SIZE: dict[str, int] = {name: SPECS[name].trick_hand for name in GAMES}
DECKS: dict[str, frozenset[Card]] = {name: frozenset(full_deck(SPECS[name].trick_ranks)) for name in GAMES}
# SL-2 eyes; trumps: jack 20, nine 14.
EYES: dict[str, int] = {"A": 11, "K": 4, "Q": 3, "J": 2, "10": 10}
_FIELDS = ("game", "trump", "players", "leader", "tricks", "hands", "ask")


@dataclass(frozen=True)
class Deal:
    """A checked request: everything here is possible, nothing yet judged."""

    game: str
    trump: str | None
    players: tuple[str, ...]
    leader: str
    tricks: tuple[tuple[Card, ...], ...]
    hands: Mapping[str, frozenset[Card]] = field(default_factory=dict)
    ask: tuple[str, Card] | None = None


@dataclass(frozen=True)
class Broken:
    """The first broken rule: where, who, which card, and the violation (rule and sentence)."""

    trick: int
    position: int
    player: str
    card: Card
    violation: RuleViolation


@dataclass(frozen=True)
class Verdict:
    """The answer: the first broken rule (or None), the winners of the tricks complete before it."""

    broken: Broken | None
    winners: tuple[str, ...]
    tricks_won: dict[str, int]
    eyes: dict[str, int] | None
    round: dict[str, Any] | None
    playable: tuple[Card, ...] | None

    @property
    def legal(self) -> bool:
        return self.broken is None


def eyes_of(card: Card, trump: str | None) -> int:
    """SL-2: a card's eyes."""
    if card.suit == trump and card.rank in ("J", "9"):
        return 20 if card.rank == "J" else 14
    return EYES.get(card.rank, 0)


def _names(value: object, name: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(p, str) and p.strip() for p in value):
        raise BadInput(name, "%(name)s must be a list of player names.", name=name)
    players = tuple(p.strip() for p in value)
    if len(set(players)) != len(players):
        raise BadInput(name, "A player is named twice.")
    return players


def _player(value: object, players: tuple[str, ...], name: str) -> str:
    if not isinstance(value, str) or value.strip() not in players:
        raise BadInput(name, "%(name)s must be one of the players taking part.", name=name)
    return value.strip()


def parse_deal(data: Mapping[str, Any]) -> Deal:
    """The request into a :class:`Deal`; :class:`BadInput` (the 400) for what cannot be."""
    if not isinstance(data, Mapping):
        raise BadInput("game", "The request must be a JSON object.")
    for key in data:
        if key not in _FIELDS:
            raise BadInput(str(key)[:40], "%(name)s is not a field of this request.", name=repr(str(key)[:40]))
    game = data.get("game")
    if game not in GAMES:
        raise BadInput("game", "game must be one of: %(games)s.", games=", ".join(GAMES))
    trump = data.get("trump")
    if game == "kul":
        if trump is not None:
            raise BadInput("trump", "Kul has no trumps (KU-3): leave trump out.")
    elif not isinstance(trump, str) or trump.strip().upper() not in SUITS:
        raise BadInput("trump", "trump must be a suit: S, H, D or C.")
    else:
        trump = trump.strip().upper()
    players = _names(data.get("players"), "players")
    if len(players) < 2:
        raise BadInput("players", "At least two players take part in a deal.")
    if len(players) * HAND_SIZE[game] > len(DECKS[game]):
        raise BadInput("players", "Too many players for one deck.")
    leader = _player(data.get("leader"), players, "leader")
    raw = data.get("tricks", [])
    if not isinstance(raw, list):
        raise BadInput("tricks", "tricks must be a list of tricks.")
    tricks = tuple(parse_cards(t, "tricks") for t in raw)
    if len(tricks) > HAND_SIZE[game]:
        raise BadInput("tricks", "A deal has at most %(n)s tricks.", n=HAND_SIZE[game])
    for k, trick in enumerate(tricks):
        if len(trick) > len(players):
            raise BadInput("tricks", "Trick %(k)s has more cards than players.", k=k + 1)
        if len(trick) < len(players) and k < len(tricks) - 1:  # an empty last trick is a trick not begun
            raise BadInput("tricks", "Only the last trick may be incomplete (trick %(k)s).", k=k + 1)
    seen = [c for t in tricks for c in t]
    hands: dict[str, frozenset[Card]] = {}
    raw_hands = data.get("hands") or {}
    if not isinstance(raw_hands, Mapping):
        raise BadInput("hands", "hands must map players to lists of cards.")
    for who, cards in raw_hands.items():
        name = _player(who, players, "hands")
        held = parse_cards(cards, "hands")
        hands[name] = frozenset(held)
        seen.extend(held)
    ask: tuple[str, Card] | None = None
    if data.get("ask") is not None:
        q = data["ask"]
        if not isinstance(q, Mapping) or set(q) - {"player", "card"}:
            raise BadInput("ask", "ask must be {\"player\": ..., \"card\": ...}.")
        ask = (_player(q.get("player"), players, "ask"), parse_card(q.get("card"), "ask"))
        if ask[1] not in hands.get(ask[0], frozenset()):
            seen.append(ask[1])
    for card in seen:
        if card not in DECKS[game]:
            raise BadInput("tricks", "%(card)s is not in the deck of this game.", card=card.code)
    dup = {c for c in seen if seen.count(c) > 1}
    if dup:
        raise BadInput("tricks", "%(card)s appears twice.", card=min(dup).code)
    deal = Deal(game, trump, players, leader, tricks, hands, ask)
    _check_counts(deal, raw_hands)
    return deal


def _check_counts(deal: Deal, raw_hands: Mapping[str, Any]) -> None:
    """No player holds more cards than dealt, and ``ask`` comes from the player whose turn it is."""
    order, _ = _seats(deal)
    size = HAND_SIZE[deal.game]
    for who, held in deal.hands.items():
        played = sum(1 for seat in order if seat == who)
        if played + len(held) > size:
            raise BadInput("hands", "%(player)s cannot hold %(n)s more cards.", player=who, n=len(held))
    if deal.ask is not None:
        nxt = _next_player(deal)
        if nxt != deal.ask[0]:
            raise BadInput("ask", "It is not %(player)s's turn.", player=deal.ask[0])


def _seats(deal: Deal) -> tuple[list[str], list[str]]:
    """Who played each card of the log, in log order, and the winner of each complete trick."""
    order: list[str] = []
    winners: list[str] = []
    lead = deal.leader
    n = len(deal.players)
    for trick in deal.tricks:
        start = deal.players.index(lead)
        seats = [deal.players[(start + i) % n] for i in range(len(trick))]
        order.extend(seats)
        if len(trick) == n:
            lead = seats[winner_index(deal.game, trick, deal.trump)]
            winners.append(lead)
    return order, winners


def _next_player(deal: Deal) -> str | None:
    """Who plays next, or None when the deal is complete."""
    order, winners = _seats(deal)
    n = len(deal.players)
    if len(order) == n * HAND_SIZE[deal.game]:
        return None
    last = deal.tricks[-1] if deal.tricks else ()
    if last and len(last) < n:
        return deal.players[(deal.players.index(order[-1]) + 1) % n]
    return winners[-1] if winners else deal.leader


def _check(deal: Deal, player: str, card: Card, before: tuple[Card, ...], hand: frozenset[Card],
           trick_no: int) -> RuleViolation | None:
    if deal.game == "schloapfer":
        assert deal.trump is not None
        return sl14(player, card, before, hand, deal.trump)
    return sk15(player, card, before, hand, deal.trump, trick_no == 2)


def judge(deal: Deal) -> Verdict:
    """Walk the log trick by trick; stop at the first broken rule (then ``ask``, if any)."""
    order, _ = _seats(deal)
    log = [c for t in deal.tricks for c in t]
    tricks = list(deal.tricks)
    if deal.ask is not None:
        if not tricks or len(tricks[-1]) == len(deal.players):
            tricks.append((deal.ask[1],))
        else:
            tricks[-1] = (*tricks[-1], deal.ask[1])
        log.append(deal.ask[1])
        order.append(deal.ask[0])
    winners: list[str] = []
    won = {p: 0 for p in deal.players}
    eyes = {p: 0 for p in deal.players}
    i = 0
    for k, trick in enumerate(tricks):
        for pos, card in enumerate(trick):
            who = order[i + pos]
            later = {c for c, p in zip(log[i + pos:], order[i + pos:], strict=True) if p == who}
            hand = frozenset(later) | deal.hands.get(who, frozenset())
            bad = _check(deal, who, card, trick[:pos], hand, k + 1)
            if bad is not None:
                return Verdict(Broken(k + 1, pos + 1, who, card, bad), tuple(winners), won, None, None,
                               _playable(deal))
        i += len(trick)
        if k < len(deal.tricks) and len(deal.tricks[k]) == len(deal.players):  # the log's, not the asked card's
            w = order[i - len(trick) + winner_index(deal.game, trick, deal.trump)]
            winners.append(w)
            won[w] += 1
            eyes[w] += sum(eyes_of(c, deal.trump) for c in trick)
    complete = deal.ask is None and len(winners) == HAND_SIZE[deal.game]
    rnd: dict[str, Any] | None = None
    if complete:
        if deal.game == "svangknack":
            rnd = {"participants": list(deal.players), "tricks": dict(won)}
        elif deal.game == "kul":
            rnd = {"last_trick": winners[-1]}
        else:
            rnd = {"eyes": dict(eyes)}
    return Verdict(None, tuple(winners), won, eyes if deal.game == "schloapfer" else None, rnd, _playable(deal))


def _playable(deal: Deal) -> tuple[Card, ...] | None:
    """The cards of the asking player's shown hand that may be played next (None without ``ask``)."""
    if deal.ask is None:
        return None
    who = deal.ask[0]
    held = deal.hands.get(who, frozenset())
    before = deal.tricks[-1] if deal.tricks and len(deal.tricks[-1]) < len(deal.players) else ()
    trick_no = sum(1 for t in deal.tricks if len(t) == len(deal.players)) + 1
    hand = held | {deal.ask[1]}
    return tuple(sorted(c for c in held if _check(deal, who, c, before, hand, trick_no) is None))


def verdict_json(v: Verdict) -> dict[str, Any]:
    """The contract's answer (the reason in English; the web layer translates it)."""
    out: dict[str, Any] = {"legal": v.legal}
    if v.broken is not None:
        # Exactly the contract's shape of a broken rule (plus ``playable`` when asked).
        b = v.broken
        out.update(trick=b.trick, position=b.position, player=b.player, card=b.card.code,
                   rule=b.violation.rule, reason=b.violation.message, winners=list(v.winners))
        if v.playable is not None:
            out["playable"] = [c.code for c in v.playable]
        return out
    out["winners"] = list(v.winners)
    out["tricks_won"] = dict(v.tricks_won)
    if v.eyes is not None:
        out["eyes"] = dict(v.eyes)
    out["round"] = v.round
    if v.playable is not None:
        out["playable"] = [c.code for c in v.playable]
    return out


#: The fields of a deal log (``POST /api/matches/<id>/rounds``'s ``deal``, stored with the round).
LOG_FIELDS = ("trump", "players", "leader", "tricks", "winners")


def judge_log(game: str, data: object) -> tuple[dict[str, Any], dict[str, Any]]:
    """A complete, legal deal of ``game`` as ``(log, round)``: the log to store and the verdict's ``round``.

    ``data`` is the tricks request without ``game`` (and without ``hands``
    or ``ask``: a deal log has every card in its tricks); ``winners``, when
    given, must be the winners the rules give. The log is the canonical
    form (card codes, trump upper case, the winners added). A broken rule
    raises its :class:`RuleViolation`; anything else that makes no round,
    :class:`BadInput` with the field ``deal``.
    """
    if not isinstance(data, Mapping):
        raise BadInput("deal", "deal must be a JSON object.")
    for key in data:
        if key not in LOG_FIELDS:
            raise BadInput("deal", "%(name)s is not a field of a deal.", name=repr(str(key)[:40]))
    request = {k: v for k, v in data.items() if k != "winners"} | {"game": game}
    try:
        deal = parse_deal(request)
    except BadInput as exc:
        raise BadInput(f"deal.{exc.field}", exc.template, **exc.params) from None
    verdict = judge(deal)
    if verdict.broken is not None:
        raise verdict.broken.violation
    if verdict.round is None:
        raise BadInput("deal", "The deal is not complete: a round needs all %(n)s tricks.", n=HAND_SIZE[game])
    if data.get("winners") is not None and data["winners"] != list(verdict.winners):
        raise BadInput("deal.winners", "winners disagrees with the tricks: the rules give %(winners)s.",
                       winners=", ".join(verdict.winners))
    log: dict[str, Any] = {"players": list(deal.players), "leader": deal.leader,
                           "tricks": [[c.code for c in t] for t in deal.tricks], "winners": list(verdict.winners)}
    if deal.trump is not None:
        log = {"trump": deal.trump} | log
    return log, dict(verdict.round)


__all__ = ["DECKS", "GAMES", "HAND_SIZE", "LOG_FIELDS", "Broken", "Deal", "Verdict", "eyes_of", "judge",
           "judge_log", "parse_deal", "verdict_json"]
