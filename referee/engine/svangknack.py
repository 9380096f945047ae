"""Svängknack: the pot, the three tricks, going bet (rules ``SK-1`` .. ``SK-14``).

The digest is ``rules/svangknack.md``; the seed is the SSKF's international
rules of 2003. ``SK-15`` (how the tricks are played) is table-only: the app
records the tricks each participant took, it does not referee the cards.

This module is the match: start, the pot's arithmetic of a round, close and
JSON; its records are :mod:`referee.engine.svangknack_state` (re-exported).
A round's checks (who svängar, who plays, the tricks) are the steps of
:mod:`referee.engine.svangknack_checks`; the draw for the first dealer (SK-3)
is :mod:`referee.engine.svangknack_draw` (re-exported).

Money (minor units, never floats)::

    pot P (always divisible by 3), trick value P/3
    every participant receives tricks * P/3              (SK-8)
    every participant with no trick is bet and pays P    (SK-9)
    somebody bet  -> new pot = bet payments + new dealer's stake s   (SK-6)
    nobody bet    -> the pot was paid out; every player pays s        (SK-6)

Seats: ``State.dealer`` is the seat of who deals the NEXT round. Its svängare
is seat ``dealer + 1``; when the sväng is passed on (SK-11) it is seat
``dealer + 2``. After every round, passed or not, seat ``dealer + 1`` deals
(SK-4).

Decisions where the digest is silent (also in the report):

- ``start`` takes ``carried_in``: a pot carried from an earlier night
  (SK-14 ``carry``) that is added to the first pot. It must be >= 0 and
  divisible by three (else ``SK-2``, so the pot stays splittable into
  tricks). The money invariant then reads ``sum(balances) + pot ==
  carried_in``: that money was paid in on an earlier night.
- ``first_pot = "dealer_only"`` (SK-5) applies to the match's first pot only;
  every later fresh pot is paid by all (SK-6). The first pot counts as a
  fresh pot (for ``forced_participation = "fresh_pot"``).
- A svängare who is neither seat ``dealer + 1`` nor ``dealer + 2`` is an
  ``SK-11`` violation. The player who passed the sväng may still knock.
- ``participants`` left out: everyone, when forced participation applies
  (SK-10); otherwise an ``SK-10`` violation (the round must say who knocked).
  A participants list without the svängare is ``SK-8`` (the svängare always
  plays). A participant not named in ``tricks`` took 0 tricks (is bet).
  A non-participant named in ``tricks`` (even with 0) is ``SK-8``.
- Svängare alone (SK-7): ``tricks`` omitted, empty, or exactly
  ``{svängare: 3}``; anything else is ``SK-7``.
- ``new_stake`` is accepted only when the round leaves nobody bet (a fresh
  pot is built right after it, SK-13), and only a value satisfying SK-2;
  both failures cite ``SK-13``. The fresh pot after that round is built with
  the new stake. A new stake equal to the old one is allowed (no change).
- ``close``: ``to`` is only read for ``award``; with ``split`` or ``carry`` it
  is ignored. When the pot is empty (never the case in Svängknack, whose pot
  always holds at least one stake) ``how`` is ignored.
- A round after ``close`` is an ``SK-14`` violation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from referee.engine import BadInput, RuleViolation, pot, violation
from referee.engine.money import Money, add, pay
from referee.engine.records import (
    expect_bool,
    expect_int,
    expect_object,
    expect_player,
    expect_player_map,
    expect_players,
    options_json,
)
from referee.engine.svangknack_checks import TRICKS, inside_of, svangare_of, tricks_of
from referee.engine.svangknack_draw import card_strength, first_dealer, parse_draws
from referee.engine.svangknack_state import Options as Options  # re-exported records
from referee.engine.svangknack_state import Result as Result
from referee.engine.svangknack_state import Round as Round
from referee.engine.svangknack_state import State as State

NAME = "svangknack"

MIN_PLAYERS = 3
MAX_PLAYERS = 16

# --- start -------------------------------------------------------------------

def start(players: tuple[str, ...], dealer: str, stake: int, options: Options, *,
          carried_in: int = 0) -> State:
    """A new match: SK-1 player count, SK-2 stake, SK-5 first pot (plus a carried pot)."""
    n = len(players)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise RuleViolation("SK-1", "Svängknack needs 3 to 16 players; you have %(n)s (SK-1).", n=n)
    if stake <= 0 or stake % 3:
        raise RuleViolation("SK-2", "The stake must be more than zero and divisible by three "
                                    "in the smallest coin, so the pot splits into three tricks (SK-2).")
    if carried_in < 0:
        raise BadInput("carried_in", "A carried pot cannot be negative.")
    if carried_in % 3:
        raise RuleViolation("SK-2", "A carried pot must be divisible by three in the smallest coin (SK-2).")
    if dealer not in players:
        raise BadInput("dealer", "%(name)s is not a player of this match.", name=repr(dealer[:40]))
    d = players.index(dealer)
    paid = pay((0,) * n, d, stake) if options.first_pot == "dealer_only" else (stake,) * n
    balances = tuple(-p for p in paid)
    state = State(players=players, balances=balances, pot=sum(paid) + carried_in, finished=False,
                  dealer=d, stake=stake, options=options, fresh_pot=True, carried_in=carried_in)
    _conserved(state)
    return state


#: Money is conserved counting a carried-in pot as from outside.
_conserved = pot.conserved


# --- rounds ------------------------------------------------------------------

_ROUND_FIELDS = ("svangare", "participants", "tricks", "redeal", "new_stake")


def parse_round(state: State, data: Mapping[str, Any], money: Money) -> Round:
    """The API payload into a :class:`Round` (shape only; :class:`BadInput`)."""
    obj = expect_object(data, "round", _ROUND_FIELDS)
    players = state.players
    svangare: str | None = None
    if obj.get("svangare") is not None:
        svangare = players[expect_player(players, obj["svangare"], "svangare")]
    participants: tuple[str, ...] | None = None
    if obj.get("participants") is not None:
        seats = expect_players(players, obj["participants"], "participants")
        participants = tuple(players[s] for s in sorted(seats))
    tricks: tuple[tuple[str, int], ...] | None = None
    if obj.get("tricks") is not None:
        raw = expect_player_map(players, obj["tricks"], "tricks")
        entries = tuple((players[s], expect_int(raw[s], f"tricks.{players[s]}")) for s in sorted(raw))
        tricks = entries or None
    redeal = False
    if obj.get("redeal") is not None:
        redeal = expect_bool(obj["redeal"], "redeal")
    new_stake: int | None = None
    if obj.get("new_stake") is not None:
        new_stake = money.parse(obj["new_stake"], "new_stake")
    return Round(svangare=svangare, participants=participants, tricks=tricks, redeal=redeal,
                 new_stake=new_stake)


def round_json(rnd: Round, money: Money) -> dict[str, Any]:
    """The canonical payload of a round (what the log stores)."""
    out: dict[str, Any] = {}
    if rnd.svangare is not None:
        out["svangare"] = rnd.svangare
    if rnd.participants is not None:
        out["participants"] = list(rnd.participants)
    if rnd.tricks is not None:
        out["tricks"] = dict(rnd.tricks)
    out["redeal"] = rnd.redeal
    if rnd.new_stake is not None:
        out["new_stake"] = money.format(rnd.new_stake)
    return out


def forced(state: State) -> bool:
    """Does forced participation (SK-10) apply to the next round?"""
    mode = state.options.forced_participation
    return mode == "always" or (mode == "fresh_pot" and state.fresh_pot)


def may_change_stake(state: State) -> bool:
    """Could the next round carry a ``new_stake`` at all (SK-13)?

    Only a round that leaves nobody bet may change the stake; when everyone
    must play and there are more players than tricks, somebody always goes bet.
    """
    return not state.finished and not (forced(state) and len(state.players) > TRICKS)


def apply(state: State, rnd: Round) -> State:
    """The state after ``rnd``, or :class:`RuleViolation` naming the broken rule."""
    if state.finished:
        raise RuleViolation("SK-14", "The match has been closed; no more rounds can be entered (SK-14).")
    n = len(state.players)
    left = (state.dealer + 1) % n
    sv, passed = svangare_of(state, rnd)
    must_play = forced(state)
    inside = inside_of(state, rnd, sv, must_play)
    alone = sum(inside) == 1
    tricks = tricks_of(state, rnd, sv, inside, alone)

    # Money (SK-8, SK-9, SK-6).
    pot = state.pot
    value = pot // TRICKS
    payouts = tuple(tricks[i] * value for i in range(n))
    bets = tuple(pot if inside[i] and tricks[i] == 0 else 0 for i in range(n))
    anyone_bet = any(bets)
    new_dealer = left
    stake = state.stake
    if rnd.new_stake is not None:
        if anyone_bet:
            raise RuleViolation("SK-13", "The stake can only change when a fresh pot is built, "
                                         "that is after a round where nobody went bet (SK-13).")
        if rnd.new_stake <= 0 or rnd.new_stake % 3:
            raise RuleViolation("SK-13", "A new stake must be more than zero and divisible by three "
                                         "in the smallest coin, like the first stake (SK-13).")
        stake = rnd.new_stake
    if anyone_bet:
        stakes = pay((0,) * n, new_dealer, stake)
        pot_after = sum(bets) + stake
    else:
        stakes = (stake,) * n
        pot_after = pot - sum(payouts) + sum(stakes)  # pot - payouts is 0 here
    balances = add(add(state.balances, payouts), tuple(-b - s for b, s in zip(bets, stakes, strict=True)))
    result = Result(
        round_no=state.round_no + 1, dealer=state.dealer, svangare=sv, passed=passed, redeal=rnd.redeal,
        forced=must_play, alone=alone, participants=inside, tricks=tuple(tricks), pot_before=pot,
        trick_value=value, payouts=payouts, bets=bets, stakes=stakes, pot_after=pot_after,
        stake_before=state.stake, stake_after=stake, fresh_pot=not anyone_bet)
    nxt = replace(state, balances=balances, pot=pot_after, dealer=new_dealer, stake=stake,
                  fresh_pot=not anyone_bet, round_no=state.round_no + 1, last=result)
    _conserved(nxt)
    if nxt.pot % TRICKS:
        raise AssertionError(f"pot {nxt.pot} not divisible by three")
    return nxt


def check(state: State, rnd: Round) -> RuleViolation | None:
    """The yes/no twin of :func:`apply`: the violation, or None when the round is valid."""
    return violation(apply, state, rnd)


# --- closing -----------------------------------------------------------------

#: The leader closes the match the way every pot game does (SK-14).
close = pot.close


# --- JSON --------------------------------------------------------------------

def _names(state: State, flags: tuple[bool, ...]) -> list[str]:
    return [p for p, f in zip(state.players, flags, strict=True) if f]


def result_json(state: State, res: Result, money: Money) -> dict[str, Any]:
    """A round's result with names and money strings (pages, protocol)."""
    players = state.players
    per = list(enumerate(players))
    net = tuple(p - b - s for p, b, s in zip(res.payouts, res.bets, res.stakes, strict=True))
    return {
        "round_no": res.round_no,
        "dealer": players[res.dealer],
        "svangare": players[res.svangare],
        "passed": res.passed,
        "redeal": res.redeal,
        "forced": res.forced,
        "alone": res.alone,
        "participants": _names(state, res.participants),
        "knocked": [p for i, p in per if res.participants[i] and i != res.svangare],
        "tricks": {p: res.tricks[i] for i, p in per if res.participants[i]},
        "pot_before": money.format(res.pot_before),
        "trick_value": money.format(res.trick_value),
        "payouts": {p: money.format(res.payouts[i]) for i, p in per if res.payouts[i]},
        "bet": {p: money.format(res.bets[i]) for i, p in per if res.bets[i]},
        "stakes": {p: money.format(res.stakes[i]) for i, p in per if res.stakes[i]},
        "net": {p: money.format(net[i]) for i, p in per},
        "pot_after": money.format(res.pot_after),
        "stake_before": money.format(res.stake_before),
        "stake_after": money.format(res.stake_after),
        "stake_changed": res.stake_before != res.stake_after,
        "fresh_pot": res.fresh_pot,
    }


def state_json(state: State, money: Money) -> dict[str, Any]:
    """The state as the API contract shows it, plus what the pages use."""
    players = state.players
    n = len(players)
    return {
        "dealer": players[state.dealer],
        "finished": state.finished,
        "balances": {p: money.format(b) for p, b in zip(players, state.balances, strict=True)},
        "pot": money.format(state.pot),
        "stake": money.format(state.stake),
        "trick_value": money.format(state.pot // TRICKS),
        "svangare": players[(state.dealer + 1) % n],
        "passed_svangare": players[(state.dealer + 2) % n],
        "fresh_pot": state.fresh_pot,
        "round_no": state.round_no,
        "forced": forced(state),
        "may_change_stake": may_change_stake(state),
        "carried_in": money.format(state.carried_in),
        "carried": None if state.carried_out is None else money.format(state.carried_out),
        "closed": None if state.closed_how is None else {
            "how": state.closed_how,
            "to": None if state.closed_to is None else players[state.closed_to]},
        "options": options_json(state.options),
        "last": None if state.last is None else result_json(state, state.last, money),
    }


__all__ = [
    "NAME", "TRICKS", "Options", "Result", "Round", "State", "apply", "card_strength", "check", "close", "first_dealer",
    "forced", "may_change_stake", "parse_draws", "parse_round", "result_json", "round_json", "start", "state_json",
]
