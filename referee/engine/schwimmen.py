"""Schwimmen / Einunddreißig (rules ``SW-1`` .. ``SW-11``): the ledger and the hand referee.

The referee half computes a three-card hand's value (SW-2, SW-3) for the 32-,
36- and 52-card decks, and the set of values a deck can make at all (SW-4),
by looking at every hand of the deck rather than from a typed-in list. Values
are held as integers of *half points* (30½ = 61) so no float is ever summed;
at the JSON edge a whole value is an int and 30½ the number 30.5.

The ledger half folds games into a match: how the game ended (SW-5), who loses
a life (SW-6), lives, swimming and going under (SW-7), the winner (SW-8) and
the pot (SW-9). A game is entered by hands, by values or by losers (SW-10).
SW-11 (dealing and exchanging) is table-only and not checked.

Decisions where the digest is silent (also in the project report):

- **Direction and dealer (SW-1).** Seats are clockwise. The deal passes to the
  next player still in the match in the direction of play: clockwise (the
  next seat) with the 32- and 52-card decks, counter-clockwise (the previous
  seat) with the 36-card deck. ``dealer`` in the state is who deals next.
- **Remainders (SW-9).** "From the dealer's left" means the clockwise-next
  seat after the dealer of the game that ended the match (for ``close``: the
  state's dealer), whatever the direction of play.
- **Ties inside one hand (SW-6 ``higher_hand``).** When two suits of one hand
  have the same total, the hand scores in the higher suit (clubs > spades >
  hearts > diamonds); equal 30½ hands rank by the rank of the three cards
  (ace highest).
- **``higher_hand`` with values only (SW-6).** Values alone cannot rank equal
  values, so when a tie decides who loses, the entry is refused (SW-6) and
  the leader is asked to enter the hands or the losers.
- **``twenty_or_less`` (SW-6).** "The best hand" is every player whose hand is
  not beaten by another (under the ``ties`` option); none of them loses. If
  every player ties for best, nobody loses that game.
- **Feuer entry (SW-5, SW-10).** With ``ended_by: "feuer"`` the hands, values
  or losers may be left out (every other player loses); if losers are given
  they must be exactly every other player still in the match. Hands or values
  are still checked (the Feuer player must hold three aces / 32).
- **A claim not held (SW-10).** ``ended_by`` 31 or Feuer whose player's hand or
  value is not 31 / three aces is refused citing SW-10 (the check is listed
  there). A game entered as ended by "feuer" while the match plays without
  Feuer is refused citing SW-5. A hand or value of Feuer (32) held by anyone
  other than a player ending the game by Feuer is refused citing SW-5: three
  aces are shown at once and end the game.
- **Losers-only entry (SW-6).** Under ``lowest`` at least one player loses; under
  ``twenty_or_less`` not everybody can lose (the best hand never does).
  Beyond that a list of losers is taken as entered.
- **Lives and money (SW-7, SW-9).** Going under counts as losing a life (the
  seed: swimming "is a fourth life"), so with ``pay_per_life`` it costs the
  stake too, also in a game where everybody goes under.
- **Everybody under (SW-8).** ``all_survive``: those players stay in (swimming),
  become ``winners`` and share the pot; the match is finished. ``stechen``:
  they stay in, swimming, and the match goes on among them.
- **Finished matches.** A round for a finished match, or closing it again, is
  refused citing SW-8. ``close`` may award the pot to any player of the match.
- **Referee endpoint.** ``parse_value_request`` returns ``(cards, deck, feuer)``:
  ``deck`` defaults to 32, an optional ``feuer`` (SW-3) to true.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from referee.engine import N_, BadInput, MatchState, RuleViolation, check_conserved, seat_of, violation
from referee.engine.cards import RANKS, SUIT_SYMBOLS, SUITS, Card, parse_card, parse_cards
from referee.engine.money import Money, add, share
from referee.engine.records import (
    MAX_INT,
    expect_bool,
    expect_object,
    expect_player,
    expect_player_map,
    expect_players,
    expect_str,
    option,
)
from referee.engine.vocab import CloseHow

NAME = "schwimmen"

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

ENDINGS: tuple[str, ...] = ("knock", "31", "feuer")


@dataclass(frozen=True)
class Options:
    """The match options of the SW digest, fixed when the match is created."""

    deck: int = option(32, choices=DECKS, doc="Deck: 32 (Skat, default), 36 (Jass, counter-clockwise) or 52 cards.")
    feuer: bool = option(True, doc="Three aces are Feuer, count 32 and end the game at once.")
    ties: str = option("all_lose", choices=("all_lose", "higher_hand"),
                       doc="Equal lowest values: all lose, or the higher combination (suit, rank) wins.")
    losers: str = option("lowest", choices=("lowest", "twenty_or_less"),
                         doc="Who loses a life: the lowest hand, or everyone with 20 or less plus the lowest above.")
    lives: int = option(3, minimum=1, maximum=10, doc="Lives each player starts with, before swimming.")
    simultaneous_out: str = option("all_survive", choices=("all_survive", "stechen"),
                                   doc="If all remaining players go under at once: all survive, or a deciding game.")
    pay_per_life: bool = option(False, doc="Every lost life also costs the stake into the pot.")


# --- the hand referee --------------------------------------------------------

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
        return _number(self.half_points)

    @property
    def tiebreak(self) -> int:
        """Ranks equal values under ``higher_hand`` (SW-6): the suit, or the rank."""
        if self.suit is not None:
            return SUIT_ORDER[self.suit]
        return RANKS.index(self.rank) if self.rank is not None else 0


def _number(half: int) -> int | float:
    return half // 2 if half % 2 == 0 else half / 2


def _value_or_none(half: int | None) -> int | float | None:
    return None if half is None else _number(half)


def _text(half: int) -> str:
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
    _check_hand(cards, deck, None)
    return rate(cards, feuer)


def _check_hand(cards: Sequence[Card], deck: int, player: str | None) -> None:
    """SW-10 checks of one hand: ``player`` whose hand it is, ``None`` for the referee's "this hand"."""
    if len(cards) != 3:
        if player is None:
            raise RuleViolation("SW-10", "This hand must have exactly three cards, not %(n)s.", n=len(cards))
        raise RuleViolation("SW-10", "%(player)s's hand must have exactly three cards, not %(n)s.",
                            player=player, n=len(cards))
    allowed = deck_cards(deck)
    for c in cards:
        if c not in allowed:
            raise RuleViolation("SW-10", "%(card)s is not a card of the %(deck)s-card deck.", card=c.label, deck=deck)
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
        return f"{ranks} ({what}) = {_text(hv.half_points)}"
    scoring = sorted((c for c in cards if c.suit == hv.suit),
                     key=lambda c: (CARD_VALUES[c.rank], RANKS.index(c.rank)), reverse=True)
    return f"{SUIT_SYMBOLS[hv.suit]} {' '.join(c.rank for c in scoring)} = {_text(hv.half_points)}"


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


# --- records -----------------------------------------------------------------

@dataclass(frozen=True)
class Round:
    """One game as entered: how it ended, by whom, and one way of scoring it.

    ``entry`` is ``"hands"``, ``"points"``, ``"losers"`` or ``"none"`` (only for
    Feuer). Hands and points are ``(name, ...)`` pairs in seat order; points
    are half points; losers are names in seat order.
    """

    ended_by: str
    by: str
    entry: str
    hands: tuple[tuple[str, tuple[str, ...]], ...] = ()
    points: tuple[tuple[str, int], ...] = ()
    losers: tuple[str, ...] = ()


@dataclass(frozen=True)
class State(MatchState):
    options: Options
    lives: tuple[int, ...]
    swimming: tuple[bool, ...]
    out: tuple[bool, ...]
    game_no: int = 0
    winner: int | None = None
    winners: tuple[int, ...] | None = None
    last_ended_by: str | None = None
    last_by: int | None = None
    last_players: tuple[int, ...] = ()
    last_values: tuple[int | None, ...] = ()
    last_explanations: tuple[str | None, ...] = ()
    last_losers: tuple[int, ...] = ()
    last_under: tuple[int, ...] = ()
    closed: bool = False
    carried: bool = False


# --- match -------------------------------------------------------------------

def start(players: tuple[str, ...], dealer: str, stake: int, options: Options) -> State:
    """A new match: everyone has ``lives`` lives and pays the stake into the pot (SW-1, SW-7, SW-9)."""
    n = len(players)
    if not 2 <= n <= 9:
        raise RuleViolation("SW-1", "Schwimmen is for 2 to 9 players, not %(n)s.", n=n)
    if dealer not in players:
        raise BadInput("dealer", "%(dealer)s is not a player of this match.", dealer=repr(dealer[:40]))
    if stake < 0:
        raise RuleViolation("SW-9", "The stake cannot be negative.")
    state = State(
        players=players, balances=(-stake,) * n, pot=stake * n, finished=False, options=options,
        stake=stake, dealer=players.index(dealer), lives=(options.lives,) * n,
        swimming=(False,) * n, out=(False,) * n,
    )
    check_conserved(state.balances, state.pot)
    return state


def _in_match(state: State) -> tuple[int, ...]:
    return tuple(i for i in range(len(state.players)) if not state.out[i])


def _half_points(value: object, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadInput(field, "%(name)s must be a number like 30 or 30.5.", name=field)
    if isinstance(value, float) and (not math.isfinite(value) or not (2 * value).is_integer()):
        raise BadInput(field, "%(name)s must be a whole number or a half, like 30.5.", name=field)
    if abs(value) > MAX_INT:
        raise BadInput(field, "%(name)s is out of range.", name=field)
    return int(2 * value)


def parse_round(state: State, data: Mapping[str, Any], money: Money) -> Round:
    """The round payload (SW-10) into a :class:`Round`; shape errors only."""
    del money  # no amounts in a Schwimmen round
    body = expect_object(data, "round", ("ended_by", "by", "hands", "points", "losers"),
                         required=("ended_by", "by"))
    ended_by = expect_str(body["ended_by"], "ended_by")
    if ended_by not in ENDINGS:
        raise BadInput("ended_by", 'ended_by must be "knock", "31" or "feuer".')
    players = state.players
    by = players[expect_player(players, body["by"], "by")]
    given = [k for k in ("hands", "points", "losers") if body.get(k) is not None]
    if len(given) > 1:
        raise BadInput(given[1], "Enter only one of hands, points or losers.")
    if not given:
        if ended_by != "feuer":
            raise BadInput("hands", "Enter the hands, the points or the losers of the game.")
        return Round(ended_by, by, "none")
    entry = given[0]
    if entry == "hands":
        raw = expect_player_map(players, body["hands"], "hands")
        hands = tuple((players[i], tuple(c.code for c in parse_cards(raw[i], f"hands.{players[i]}")))
                      for i in sorted(raw))
        return Round(ended_by, by, entry, hands=hands)
    if entry == "points":
        raw = expect_player_map(players, body["points"], "points")
        points = tuple((players[i], _half_points(raw[i], f"points.{players[i]}")) for i in sorted(raw))
        return Round(ended_by, by, entry, points=points)
    seats = expect_players(players, body["losers"], "losers")
    return Round(ended_by, by, entry, losers=tuple(players[i] for i in sorted(seats)))


def round_json(rnd: Round, money: Money) -> dict[str, Any]:
    """The canonical payload of a round (``parse_round`` of it gives it back)."""
    del money
    out: dict[str, Any] = {"ended_by": rnd.ended_by, "by": rnd.by}
    if rnd.entry == "hands":
        out["hands"] = {name: list(cards) for name, cards in rnd.hands}
    elif rnd.entry == "points":
        out["points"] = {name: _number(half) for name, half in rnd.points}
    elif rnd.entry == "losers":
        out["losers"] = list(rnd.losers)
    return out


def _beaten(keys: dict[int, tuple[int, ...]], seat: int) -> bool:
    return any(k > keys[seat] for k in keys.values())


def _losers(keys: dict[int, tuple[int, ...]], mode: str) -> set[int]:
    """Who loses a life (SW-6); ``keys`` compare hands (value, then tie-break if any)."""
    low = min(keys.values())
    if mode == "lowest":
        return {s for s, k in keys.items() if k == low}
    best = {s for s in keys if not _beaten(keys, s)}
    losing = {s for s, k in keys.items() if k[0] <= TWENTY}
    above = [k for k in keys.values() if k[0] > TWENTY]
    if above:
        low_above = min(above)
        losing |= {s for s, k in keys.items() if k == low_above}
    return losing - best


def _values_ambiguous(values: dict[int, int], mode: str) -> bool:
    """Whether equal values decide who loses, which ``higher_hand`` needs cards for (SW-6)."""
    def shared(v: int) -> bool:
        return sum(1 for x in values.values() if x == v) > 1

    if mode == "lowest":
        return shared(min(values.values()))
    above = [v for v in values.values() if v > TWENTY]
    return shared(max(values.values())) or (bool(above) and shared(min(above)))


def _named(rule: str, one: str, many: str, state: State, seats: Sequence[int],
           **params: object) -> RuleViolation:
    """A violation naming players: template ``one`` with ``%(player)s`` for one player, else ``many``.

    ``many`` names them as ``%(players)s and %(last)s``, where ``players`` is
    the names but the last, separated by commas (A, B and C).
    """
    names = [state.players[s] for s in seats]
    if len(names) == 1:
        return RuleViolation(rule, one, player=names[0], **params)
    return RuleViolation(rule, many, players=", ".join(names[:-1]), last=names[-1], **params)


def _check_named(state: State, named: set[int], hands: bool) -> None:
    """Every player still in the match is named, nobody else: in ``hands`` or else in the values."""
    playing = set(_in_match(state))
    gone = sorted(named - playing)
    if gone and hands:
        raise _named("SW-10", N_("%(player)s is out of the match and takes no part; leave them out of the a hand."),
                     N_("%(players)s and %(last)s is out of the match and takes no part; "
                        "leave them out of the a hand."), state, gone)
    if gone:
        raise _named("SW-10", N_("%(player)s is out of the match and takes no part; leave them out of the a value."),
                     N_("%(players)s and %(last)s is out of the match and takes no part; "
                        "leave them out of the a value."), state, gone)
    missing = sorted(playing - named)
    if missing and hands:
        raise _named("SW-10", N_("Every player still in the match needs a hand; %(player)s is missing."),
                     N_("Every player still in the match needs a hand; %(players)s and %(last)s is missing."),
                     state, missing)
    if missing:
        raise _named("SW-10", N_("Every player still in the match needs a value; %(player)s is missing."),
                     N_("Every player still in the match needs a value; %(players)s and %(last)s is missing."),
                     state, missing)


def _claims(state: State, rnd: Round, by: int, values: dict[int, HandValue] | dict[int, int]) -> None:
    """A claimed 31 or Feuer is held (SW-10); Feuer is shown at once (SW-5)."""
    def half(s: int) -> int:
        v = values[s]
        return v.half_points if isinstance(v, HandValue) else v

    if rnd.ended_by == "31" and half(by) != THIRTY_ONE:
        raise RuleViolation("SW-10", "%(player)s ended the game with 31 but holds %(value)s.",
                            player=rnd.by, value=_text(half(by)))
    if rnd.ended_by == "feuer" and half(by) != FEUER:
        raise RuleViolation("SW-10", "%(player)s ended the game with Feuer but does not hold three aces.",
                            player=rnd.by)
    for s in sorted(values):
        if half(s) == FEUER and not (rnd.ended_by == "feuer" and s == by):
            raise RuleViolation("SW-5", "%(player)s holds Feuer, which ends the game at once; "
                                        "enter the game as ended by Feuer.", player=state.players[s])


def _game(state: State, rnd: Round) -> tuple[set[int], dict[int, int | None], dict[int, str]]:
    """The rule checks of one game: its losers, known values and explanations."""
    opts = state.options
    if state.finished:
        if state.closed:
            raise RuleViolation("SW-8", "The match was closed by the leader; no more games can be entered.")
        raise RuleViolation("SW-8", "The match is over: it has its winner, so no more games can be entered.")
    if rnd.ended_by not in ENDINGS:
        raise BadInput("ended_by", 'ended_by must be "knock", "31" or "feuer".')
    if rnd.ended_by == "feuer" and not opts.feuer:
        raise RuleViolation("SW-5", "This match is played without Feuer, so a game cannot end by Feuer.")
    by = seat_of(state.players, rnd.by, "by")
    if state.out[by]:
        raise RuleViolation("SW-10", "%(player)s is out of the match and cannot end a game.", player=rnd.by)
    playing = _in_match(state)
    values: dict[int, int | None] = dict.fromkeys(playing)
    notes: dict[int, str] = {}
    others = set(playing) - {by}
    if rnd.entry == "hands":
        hands = {seat_of(state.players, name, "hands"): tuple(parse_card(c, f"hands.{name}") for c in cards)
                 for name, cards in rnd.hands}
        _check_named(state, set(hands), hands=True)
        seen: set[Card] = set()
        for s in sorted(hands):
            _check_hand(hands[s], opts.deck, state.players[s])
            twice = seen & set(hands[s])
            if twice:
                card = min(twice)
                raise RuleViolation("SW-10", "%(card)s appears in more than one hand.", card=card.label)
            seen |= set(hands[s])
        rated = {s: rate(h, opts.feuer) for s, h in hands.items()}
        _claims(state, rnd, by, rated)
        values = {s: hv.half_points for s, hv in rated.items()}
        notes = {s: explain(h, opts.feuer) for s, h in hands.items()}
        keys: dict[int, tuple[int, ...]]
        if opts.ties == "higher_hand":
            keys = {s: (hv.half_points, hv.tiebreak) for s, hv in rated.items()}
        else:
            keys = {s: (hv.half_points,) for s, hv in rated.items()}
        losers = others if rnd.ended_by == "feuer" else _losers(keys, opts.losers)
    elif rnd.entry == "points":
        points = {seat_of(state.players, name, "points"): half for name, half in rnd.points}
        _check_named(state, set(points), hands=False)
        allowed = possible_values(opts.deck, opts.feuer)
        for s in sorted(points):
            if points[s] not in allowed:
                raise RuleViolation("SW-4", "No three cards of the %(deck)s-card deck are worth "
                                            "%(value)s; %(player)s cannot hold that.",
                                    deck=opts.deck, value=_text(points[s]), player=state.players[s])
        _claims(state, rnd, by, points)
        values = dict(points)
        if rnd.ended_by == "feuer":
            losers = others
        else:
            if opts.ties == "higher_hand" and _values_ambiguous(points, opts.losers):
                raise RuleViolation("SW-6", "Equal values decide who loses and the higher hand wins ties; "
                                            "enter the hands or the losers instead of the values.")
            losers = _losers({s: (v,) for s, v in points.items()}, opts.losers)
    elif rnd.entry == "losers":
        losers = {seat_of(state.players, name, "losers") for name in rnd.losers}
        gone = sorted(s for s in losers if state.out[s])
        if gone:
            raise _named("SW-10", N_("%(player)s is out of the match and cannot lose a life."),
                         N_("%(players)s and %(last)s is out of the match and cannot lose a life."), state, gone)
        if rnd.ended_by == "feuer":
            if losers != others:
                raise _named("SW-5", N_("After Feuer every other player loses a life: the losers are %(player)s."),
                             N_("After Feuer every other player loses a life: "
                                "the losers are %(players)s and %(last)s."), state, sorted(others))
        elif opts.losers == "lowest" and not losers:
            raise RuleViolation("SW-6", "The player with the lowest hand loses a life; name at least one loser.")
        elif opts.losers == "twenty_or_less" and losers == set(playing):
            raise RuleViolation("SW-6", "The player with the best hand never loses; not everybody can lose.")
    elif rnd.entry == "none":
        if rnd.ended_by != "feuer":
            raise BadInput("hands", "Enter the hands, the points or the losers of the game.")
        losers = others
    else:
        raise BadInput("round", "Unknown entry %(entry)s.", entry=repr(rnd.entry[:20]))
    return losers, values, notes


def _next_dealer(state: State, out: tuple[bool, ...]) -> int:
    n = len(state.players)
    step = -1 if state.options.deck == 36 else 1
    for k in range(1, n + 1):
        seat = (state.dealer + step * k) % n
        if not out[seat]:
            return seat
    return state.dealer


def apply(state: State, rnd: Round) -> State:
    """The state after one game (SW-5 .. SW-10), or RuleViolation."""
    losers, values, notes = _game(state, rnd)
    opts = state.options
    n = len(state.players)
    playing = _in_match(state)
    lives, swimming, out = list(state.lives), list(state.swimming), list(state.out)
    under: list[int] = []
    for s in sorted(losers):
        if lives[s] > 0:
            lives[s] -= 1
            swimming[s] = lives[s] == 0
        else:
            swimming[s], out[s] = False, True
            under.append(s)
    balances, pot = state.balances, state.pot
    if opts.pay_per_life and losers:
        fees = tuple(state.stake if s in losers else 0 for s in range(n))
        balances, pot = add(balances, tuple(-f for f in fees)), pot + sum(fees)
    remaining = [s for s in playing if not out[s]]
    winner: int | None = None
    winners: tuple[int, ...] | None = None
    finished = False
    if not remaining:  # every remaining player went under in this game (SW-8)
        for s in under:
            out[s], swimming[s] = False, True
        if opts.simultaneous_out == "all_survive":
            winners, finished = tuple(under), True
            balances, pot = add(balances, share(pot, winners, n, state.dealer)), 0
    elif len(remaining) == 1:
        winner, finished = remaining[0], True
        balances, pot = add(balances, tuple(pot if s == winner else 0 for s in range(n))), 0
    nxt = replace(
        state, balances=balances, pot=pot, finished=finished, lives=tuple(lives),
        swimming=tuple(swimming), out=tuple(out), dealer=_next_dealer(state, tuple(out)),
        game_no=state.game_no + 1, winner=winner, winners=winners,
        last_ended_by=rnd.ended_by, last_by=state.players.index(rnd.by), last_players=playing,
        last_values=tuple(values.get(s) for s in range(n)),
        last_explanations=tuple(notes.get(s) for s in range(n)) if notes else (),
        last_losers=tuple(sorted(losers)), last_under=tuple(under),
    )
    check_conserved(nxt.balances, nxt.pot)
    return nxt


def check(state: State, rnd: Round) -> RuleViolation | None:
    """The yes/no twin of :func:`apply`: the violation, or None."""
    return violation(apply, state, rnd)


def close(state: State, how: str, to: str | None) -> State:
    """The leader ends the match; a pot is split, awarded or carried (SW-9)."""
    if state.finished:
        raise RuleViolation("SW-8", "The match is already over.")
    n = len(state.players)
    balances, pot, carried = state.balances, state.pot, False
    if pot:
        if how == CloseHow.SPLIT:
            balances, pot = add(balances, share(pot, _in_match(state), n, state.dealer)), 0
        elif how == CloseHow.AWARD:
            if to is None:
                raise BadInput("to", "Say which player is awarded the pot.")
            seat = seat_of(state.players, to, "to")
            balances, pot = add(balances, tuple(pot if s == seat else 0 for s in range(n))), 0
        elif how == CloseHow.CARRY:
            carried = True
        else:
            raise BadInput("pot", 'pot must be "split", "award" or "carry".')
    nxt = replace(state, balances=balances, pot=pot, finished=True, closed=True, carried=carried)
    check_conserved(nxt.balances, nxt.pot)
    return nxt


def state_json(state: State, money: Money) -> dict[str, Any]:
    """The state as API.md shows it for schwimmen, plus what the pages use."""
    players = state.players
    last = bool(state.game_no)
    return {
        "dealer": players[state.dealer],
        "finished": state.finished,
        "balances": {p: money.format(b) for p, b in zip(players, state.balances, strict=True)},
        "pot": money.format(state.pot),
        "stake": money.format(state.stake),
        "players": {
            p: {"lives": state.lives[i], "swimming": state.swimming[i], "out": state.out[i]}
            for i, p in enumerate(players)
        },
        "winner": None if state.winner is None else players[state.winner],
        "winners": None if state.winners is None else [players[s] for s in state.winners],
        "game_no": state.game_no,
        "values": {players[s]: _value_or_none(state.last_values[s]) for s in state.last_players} if last else None,
        "losers": [players[s] for s in state.last_losers],
        "went_under": [players[s] for s in state.last_under],
        "ended_by": state.last_ended_by,
        "by": None if state.last_by is None else players[state.last_by],
        "explanations": {players[s]: e for s, e in enumerate(state.last_explanations) if e is not None},
        "direction": "counter-clockwise" if state.options.deck == 36 else "clockwise",
        "possible_values": [_number(h) for h in possible_values(state.options.deck, state.options.feuer)],
        "closed": state.closed,
        "carried": state.carried,
    }


__all__ = [
    "NAME", "HandValue", "Options", "Round", "State", "apply", "check", "close", "deck_cards",
    "explain", "hand_value", "parse_round", "parse_value_request", "possible_values", "rate",
    "round_json", "start", "state_json", "value_json",
]
