"""Schwimmen: the rule checks of one game as entered, and who loses a life (SW-5, SW-6, SW-10).

:func:`referee.engine.schwimmen.apply` asks :func:`judge_game` for the
game's losers, the values known and the hands' explanations, and then moves
lives, swimming and money itself. A game is entered by hands, by values or
by losers (SW-10), each checked by a step of its own here; the hands are
rated by :mod:`referee.engine.schwimmen_hands`. The decisions where the
digest is silent are in :mod:`referee.engine.schwimmen`'s docstring.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.engine import N_, BadInput, RuleViolation, seat_of
from referee.engine.cards import Card, card_msg, parse_card
from referee.engine.schwimmen_hands import (
    FEUER,
    THIRTY_ONE,
    TWENTY,
    HandValue,
    check_hand,
    explain,
    half_text,
    possible_values,
    rate,
)
from referee.engine.schwimmen_state import Round, State

ENDINGS: tuple[str, ...] = ("knock", "31", "feuer")

#: What one game did: the seats that lose a life, each player's value (None: not entered), the explanations.
Outcome = tuple[set[int], dict[int, int | None], dict[int, str]]


def in_match(state: State) -> tuple[int, ...]:
    """The seats still in the match."""
    return tuple(i for i in range(len(state.players)) if not state.out[i])


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
    playing = set(in_match(state))
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
                            player=rnd.by, value=half_text(half(by)))
    if rnd.ended_by == "feuer" and half(by) != FEUER:
        raise RuleViolation("SW-10", "%(player)s ended the game with Feuer but does not hold three aces.",
                            player=rnd.by)
    for s in sorted(values):
        if half(s) == FEUER and not (rnd.ended_by == "feuer" and s == by):
            raise RuleViolation("SW-5", "%(player)s holds Feuer, which ends the game at once; "
                                        "enter the game as ended by Feuer.", player=state.players[s])


def judge_game(state: State, rnd: Round) -> Outcome:
    """The rule checks of one game: its losers, known values and explanations."""
    by = _opening(state, rnd)
    playing = in_match(state)
    others = set(playing) - {by}
    if rnd.entry == "hands":
        return _by_hands(state, rnd, by, others)
    if rnd.entry == "points":
        return _by_points(state, rnd, by, others)
    values: dict[int, int | None] = dict.fromkeys(playing)
    if rnd.entry == "losers":
        return _by_losers(state, rnd, others), values, {}
    if rnd.entry == "none":
        if rnd.ended_by != "feuer":
            raise BadInput("hands", "Enter the hands, the points or the losers of the game.")
        return others, values, {}
    raise BadInput("round", "Unknown entry %(entry)s.", entry=repr(rnd.entry[:20]))


def _opening(state: State, rnd: Round) -> int:
    """The match is open, the ending is one the match plays (SW-5), its player in the match; that seat."""
    if state.finished:
        if state.closed:
            raise RuleViolation("SW-8", "The match was closed by the leader; no more games can be entered.")
        raise RuleViolation("SW-8", "The match is over: it has its winner, so no more games can be entered.")
    if rnd.ended_by not in ENDINGS:
        raise BadInput("ended_by", 'ended_by must be "knock", "31" or "feuer".')
    if rnd.ended_by == "feuer" and not state.options.feuer:
        raise RuleViolation("SW-5", "This match is played without Feuer, so a game cannot end by Feuer.")
    by = seat_of(state.players, rnd.by, "by")
    if state.out[by]:
        raise RuleViolation("SW-10", "%(player)s is out of the match and cannot end a game.", player=rnd.by)
    return by


def _by_hands(state: State, rnd: Round, by: int, others: set[int]) -> Outcome:
    """A game entered by hands: each hand a hand of the deck, no card twice (SW-10); rated, ranked (SW-6)."""
    opts = state.options
    hands = {seat_of(state.players, name, "hands"): tuple(parse_card(c, f"hands.{name}") for c in cards)
             for name, cards in rnd.hands}
    _check_named(state, set(hands), hands=True)
    seen: set[Card] = set()
    for s in sorted(hands):
        check_hand(hands[s], opts.deck, state.players[s])
        twice = seen & set(hands[s])
        if twice:
            card = min(twice)
            raise RuleViolation("SW-10", "%(card)s appears in more than one hand.", card=card_msg(card))
        seen |= set(hands[s])
    rated = {s: rate(h, opts.feuer) for s, h in hands.items()}
    _claims(state, rnd, by, rated)
    values: dict[int, int | None] = {s: hv.half_points for s, hv in rated.items()}
    notes = {s: explain(h, opts.feuer) for s, h in hands.items()}
    if rnd.ended_by == "feuer":
        return others, values, notes
    keys: dict[int, tuple[int, ...]]
    if opts.ties == "higher_hand":
        keys = {s: (hv.half_points, hv.tiebreak) for s, hv in rated.items()}
    else:
        keys = {s: (hv.half_points,) for s, hv in rated.items()}
    return _losers(keys, opts.losers), values, notes


def _by_points(state: State, rnd: Round, by: int, others: set[int]) -> Outcome:
    """A game entered by values: each a value the deck can make (SW-4), ties only if they decide nothing."""
    opts = state.options
    points = {seat_of(state.players, name, "points"): half for name, half in rnd.points}
    _check_named(state, set(points), hands=False)
    allowed = possible_values(opts.deck, opts.feuer)
    for s in sorted(points):
        if points[s] not in allowed:
            raise RuleViolation("SW-4", "No three cards of the %(deck)s-card deck are worth "
                                        "%(value)s; %(player)s cannot hold that.",
                                deck=opts.deck, value=half_text(points[s]), player=state.players[s])
    _claims(state, rnd, by, points)
    values: dict[int, int | None] = dict(points)
    if rnd.ended_by == "feuer":
        return others, values, {}
    if opts.ties == "higher_hand" and _values_ambiguous(points, opts.losers):
        raise RuleViolation("SW-6", "Equal values decide who loses and the higher hand wins ties; "
                                    "enter the hands or the losers instead of the values.")
    return _losers({s: (v,) for s, v in points.items()}, opts.losers), values, {}


def _by_losers(state: State, rnd: Round, others: set[int]) -> set[int]:
    """A game entered by its losers: players in the match; after Feuer every other player (SW-5, SW-6)."""
    opts = state.options
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
    elif opts.losers == "twenty_or_less" and losers == set(in_match(state)):
        raise RuleViolation("SW-6", "The player with the best hand never loses; not everybody can lose.")
    return losers


__all__ = [
    "ENDINGS", "Outcome", "in_match", "judge_game",
]
