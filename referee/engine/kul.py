"""Kul (Femkort, Sista stick): marks for the last trick, the pot to the first to 3 (``KU-1`` .. ``KU-4``).

The digest is the Kul part of ``rules/svangknack.md``; the seed is the
afterword of the SSKF rules. A round is one deal of five cards; its only
fact for the ledger is who took the fifth and last trick (KU-3). How the
tricks are played (no trumps, forced overtaking) is table-only.

Decisions where the digest is silent (also in the report):

- The stake may be 0 (a game for honour); a negative stake is ``KU-2``.
- Between deals the deal moves one seat clockwise (the forehand deals next);
  after the win the winner is the dealer of the next game (KU-4).
- A round after the win is ``KU-4``; a round after the leader closed the
  match early is ``SK-14`` (the closing rule of the same digest), and so is
  closing a finished match.
- ``close`` works like Svängknack's (SK-14): ``split`` among all players,
  remainder one minor unit each in seat order from the dealer's left;
  ``award`` to ``to``; ``carry`` keeps the pot as ``carried_out``. With an
  empty pot (after a win, or stake 0) ``how`` is ignored; ``to`` is read only
  for ``award``.
- ``start`` accepts ``carried_in`` like Svängknack (a carried pot the game
  starts with; >= 0); the invariant is then ``sum(balances) + pot ==
  carried_in``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from referee.engine import BadInput, RuleViolation, pot, violation
from referee.engine.money import Money, pay
from referee.engine.pot import PotState
from referee.engine.records import expect_object, expect_player, option, options_json

NAME = "kul"

MIN_PLAYERS = 2
MAX_PLAYERS = 10


@dataclass(frozen=True)
class Options:
    """The options of the Kul rules."""

    marks_to_win: int = option(3, choices=(3, 2), minimum=2, maximum=3,
                               doc="Marks (last tricks) needed to take the pot: 3, or 2 in the short variant (KU-4).")


@dataclass(frozen=True)
class Round:
    """One deal: who took the fifth and last trick (KU-3)."""

    last_trick: str


@dataclass(frozen=True)
class State(PotState):
    """A game of Kul between deals."""

    options: Options
    marks: tuple[int, ...]
    winner: int | None = None
    round_no: int = 0
    last_trick: int | None = None


def start(players: tuple[str, ...], dealer: str, stake: int, options: Options, *,
          carried_in: int = 0) -> State:
    """A new game: KU-1 player count, KU-2 everyone pays the stake into the pot."""
    n = len(players)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise RuleViolation("KU-1", "Kul is played by 2 to 10 players; you have %(n)s (KU-1).", n=n)
    if stake < 0:
        raise RuleViolation("KU-2", "The stake cannot be negative (KU-2).")
    if carried_in < 0:
        raise BadInput("carried_in", "A carried pot cannot be negative.")
    if dealer not in players:
        raise BadInput("dealer", "%(name)s is not a player of this match.", name=repr(dealer[:40]))
    state = State(players=players, balances=(-stake,) * n, pot=stake * n + carried_in, finished=False,
                  dealer=players.index(dealer), stake=stake, options=options, marks=(0,) * n,
                  carried_in=carried_in)
    _conserved(state)
    return state


#: Money is conserved counting a carried-in pot as from outside.
_conserved = pot.conserved


def parse_round(state: State, data: Mapping[str, Any], money: Money) -> Round:
    """``{"last_trick": name}`` into a :class:`Round` (shape only)."""
    obj = expect_object(data, "round", ("last_trick",), required=("last_trick",))
    return Round(last_trick=state.players[expect_player(state.players, obj["last_trick"], "last_trick")])


def round_json(rnd: Round, money: Money) -> dict[str, Any]:
    """The canonical payload of a deal."""
    return {"last_trick": rnd.last_trick}


def apply(state: State, rnd: Round) -> State:
    """One more mark (KU-3); the first to ``marks_to_win`` takes the pot (KU-4)."""
    if state.winner is not None:
        raise RuleViolation("KU-4", "%(winner)s has won the Kul; the game is over (KU-4).",
                            winner=state.players[state.winner])
    if state.finished:
        raise RuleViolation("SK-14", "The game has been closed; no more deals can be entered (SK-14).")
    try:
        who = state.players.index(rnd.last_trick)
    except ValueError:
        raise BadInput("last_trick", "%(name)s is not a player of this match.",
                       name=repr(rnd.last_trick[:40])) from None
    marks = pay(state.marks, who, 1)
    n = len(state.players)
    if marks[who] >= state.options.marks_to_win:
        nxt = replace(state, marks=marks, balances=pay(state.balances, who, state.pot), pot=0, finished=True,
                      winner=who, dealer=who, round_no=state.round_no + 1, last_trick=who)
    else:
        nxt = replace(state, marks=marks, dealer=(state.dealer + 1) % n, round_no=state.round_no + 1,
                      last_trick=who)
    _conserved(nxt)
    return nxt


def check(state: State, rnd: Round) -> RuleViolation | None:
    """The yes/no twin of :func:`apply`."""
    return violation(apply, state, rnd)



#: The leader closes the match the way every pot game does (SK-14).
close = pot.close


def state_json(state: State, money: Money) -> dict[str, Any]:
    """The state as the API contract shows it, plus what the pages use."""
    players = state.players
    return {
        "dealer": players[state.dealer],
        "finished": state.finished,
        "balances": {p: money.format(b) for p, b in zip(players, state.balances, strict=True)},
        "pot": money.format(state.pot),
        "marks": dict(zip(players, state.marks, strict=True)),
        "winner": None if state.winner is None else players[state.winner],
        "stake": money.format(state.stake),
        "marks_to_win": state.options.marks_to_win,
        "round_no": state.round_no,
        "last_trick": None if state.last_trick is None else players[state.last_trick],
        "carried_in": money.format(state.carried_in),
        "carried": None if state.carried_out is None else money.format(state.carried_out),
        "closed": None if state.closed_how is None else {
            "how": state.closed_how,
            "to": None if state.closed_to is None else players[state.closed_to]},
        "options": options_json(state.options),
    }


__all__ = ["NAME", "Options", "Round", "State", "apply", "check", "close", "parse_round", "round_json",
           "start", "state_json"]
