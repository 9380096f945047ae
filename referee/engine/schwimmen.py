"""Schwimmen / Einunddreißig (rules ``SW-1`` .. ``SW-11``): the ledger and the hand referee.

The referee half, :mod:`referee.engine.schwimmen_hands` (re-exported here),
computes a three-card hand's value (SW-2, SW-3) for the 32-, 36- and 52-card
decks, and the set of values a deck can make at all (SW-4). Values are held
as integers of *half points* (30½ = 61) so no float is ever summed.

The ledger half, this module, folds games into a match: how the game ended
(SW-5), who loses a life (SW-6), lives, swimming and going under (SW-7), the
winner (SW-8) and the pot (SW-9). A game is entered by hands, by values or by
losers (SW-10); the checks of one game and who loses are
:mod:`referee.engine.schwimmen_game`'s; the records are
:mod:`referee.engine.schwimmen_state`'s (re-exported). SW-11 (dealing and
exchanging) is table-only and not checked.

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

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from referee.engine import BadInput, RuleViolation, check_conserved, seat_of, violation
from referee.engine.cards import parse_cards
from referee.engine.money import Money, add, share
from referee.engine.records import (
    MAX_INT,
    expect_object,
    expect_player,
    expect_player_map,
    expect_players,
    expect_str,
)
from referee.engine.schwimmen_game import ENDINGS, in_match, judge_game
from referee.engine.schwimmen_hands import (
    CARD_VALUES,
    DECK_RANKS,
    DECKS,
    FEUER,
    SUIT_ORDER,
    THIRTY_AND_A_HALF,
    THIRTY_ONE,
    TWENTY,
    HandValue,
    as_number,
    deck_cards,
    explain,
    hand_value,
    parse_value_request,
    possible_values,
    rate,
    value_json,
    value_or_none,
)
from referee.engine.schwimmen_state import Options as Options  # re-exported records
from referee.engine.schwimmen_state import Round as Round
from referee.engine.schwimmen_state import State as State
from referee.engine.vocab import CloseHow

NAME = "schwimmen"


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
        out["points"] = {name: as_number(half) for name, half in rnd.points}
    elif rnd.entry == "losers":
        out["losers"] = list(rnd.losers)
    return out


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
    losers, values, notes = judge_game(state, rnd)
    opts = state.options
    n = len(state.players)
    playing = in_match(state)
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
            balances, pot = add(balances, share(pot, in_match(state), n, state.dealer)), 0
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
        "values": {players[s]: value_or_none(state.last_values[s]) for s in state.last_players} if last else None,
        "losers": [players[s] for s in state.last_losers],
        "went_under": [players[s] for s in state.last_under],
        "ended_by": state.last_ended_by,
        "by": None if state.last_by is None else players[state.last_by],
        "explanations": {players[s]: e for s, e in enumerate(state.last_explanations) if e is not None},
        "direction": "counter-clockwise" if state.options.deck == 36 else "clockwise",
        "possible_values": [as_number(h) for h in possible_values(state.options.deck, state.options.feuer)],
        "closed": state.closed,
        "carried": state.carried,
    }


__all__ = [
    "CARD_VALUES", "DECKS", "DECK_RANKS", "ENDINGS", "FEUER", "NAME", "SUIT_ORDER", "THIRTY_AND_A_HALF", "THIRTY_ONE",
    "TWENTY", "HandValue", "Options", "Round", "State", "apply", "check", "close", "deck_cards", "explain",
    "hand_value", "parse_round", "parse_value_request", "possible_values", "rate", "round_json", "start", "state_json",
    "value_json",
]
