"""Schloapfer: strokes, rings and the loser (rules ``SL-1`` .. ``SL-15``).

The digest is ``rules/schloapfer.md``; the seed is the Perlen-Reihe
description of the Vorarlberg Jass game. ``SL-14`` (how the cards are played
to tricks) is table-only: the app records the eyes each player took in a
deal, it does not referee the cards. The eye counter
(:mod:`referee.engine.schloapfer_eyes`, re-exported here) helps the table add
up the cards a player took (SL-2).

This module is the match: start, close and JSON (its records are
:mod:`referee.engine.schloapfer_state`, re-exported). :func:`apply` asks
:mod:`referee.engine.schloapfer_checks` whether a deal may be entered (SL-13),
then the steps of :mod:`referee.engine.schloapfer_deal` what it does.

Bookkeeping per player (tuples aligned with ``players``)::

    points       strokes counted, 0..5 (counting UP: 5 = the centre of the X)
    rings        uncancelled rings ("i säcken")
    rings_total  every ring ever received, cancelled or not (SL-11)
    status       "in" | "finished" | "out" | "lost"

A deal (SL-4, SL-5, SL-6, SL-7, SL-8)::

    at stake: 1 stroke with 2-3 players in the match, 2 with 4-6
              (2 with 3 under ``two_strokes_with_three``)
    one player alone played (everybody else passed) -> wins without play,
        gets every stroke at stake, no rings
    >= 2 played: rank by eyes (high first), ties nearest the dealer's left;
        1 at stake: the first gets it if >= 21 eyes
        2 at stake: one player >= 21 gets both; two or more: the first two one each
        every player who played with < 21 eyes gets a ring
    a stroke to a player with uncancelled rings cancels one ring instead

Money: ``loser_pays`` (SL-9): nothing moves until the match ends, then the
loser pays the stake to every other player. ``pot`` (SL-10): every player
pays the stake into the pot at the start, each ring costs one stake into the
pot, the first to five points takes the pot.

Seats: ``State.dealer`` is the seat of who deals the NEXT deal. After every
deal the deal moves clockwise to the next player still in the match (SL-3).
"Nearest the dealer's left" (SL-6) is seat order starting at the dealer's
left neighbour, the dealer last.

Decisions where the digest is silent (also in the report):

- Payload (lead's decision): a player of the match not named in ``eyes``
  passed. The player who wins without play (the dealer in SL-4, or the lone
  player under ``turned_trump``, SL-12 decision) is named alone with 0 eyes;
  any other count for that player is rejected (``SL-4`` / ``SL-12``), since
  no cards were played. With ``turned_trump`` everybody passing is ``{}``.
- A stroke that would take a player beyond five points is void (the second
  stroke of a pair to a player on four points): the player has finished and
  the stroke does not pass on to anybody else.
- ``ring_limit`` with ``loser_pays``: if several players pass the limit in
  the same deal, only one has lost: the one with the fewest eyes in that deal
  (the mirror of SL-10's "more eyes wins"); with equal eyes, the one seated
  farthest from the dealer's left (the mirror of SL-6). That player gets
  status ``"out"`` and is the loser; the others keep ``"in"`` (the match is
  over). A ring-limit loss takes precedence over the last-player-left rule
  in the same deal.
- ``ring_limit`` with ``pot``: the ring that passes the limit is still paid
  for (one stake into the pot), then the player is ``"out"``. When only one
  player is left in the pot game and nobody reached five, that player wins
  the pot (``SL-11``). When everybody still in the pot game passes the limit
  in the same deal, those players share the pot by the SL-10 rule (more eyes
  in that deal wins, equal eyes share).
- ``pot`` scoring: every player who reached five gets status
  ``"finished"`` (also the one who lost a simultaneous finish on eyes); a
  last-player-left winner keeps ``"in"``. When two share
  the pot, ``"winner"`` is null and ``"winners"`` names both. Remainders of
  shares go one minor unit each in seat order from the left of that deal's
  dealer.
- ``turned_trump`` needs at most 5 players at the start of the match (SL-12);
  with 6 ``start`` raises ``SL-12``.
- A round after the match ended cites the rule that ended it (``SL-9``,
  ``SL-10``, ``SL-11``); after ``close`` by the game leader it cites ``SL-9``.
- ``close``: with ``pot`` scoring and money in the pot, ``split`` shares it
  among the players still in the match (remainder from the next dealer's
  left), ``award`` gives it to any player of the match named in ``to``,
  ``carry`` leaves it (``carried`` is set). With ``loser_pays`` (or an empty
  pot) ``how`` and ``to`` are ignored; closing early with ``loser_pays``
  moves no money (there is no loser).
- A negative stake is a ``BadInput`` (``stake``); stake 0 plays for nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from referee.engine import BadInput, RuleViolation, check_conserved, violation
from referee.engine.money import Money, add, share
from referee.engine.records import expect_int, expect_object, expect_player, expect_player_map, options_json
from referee.engine.schloapfer_checks import check_open, validate
from referee.engine.schloapfer_deal import (
    IN,
    End,
    Given,
    Tally,
    end_loser_pays,
    end_pot,
    give,
    over_limit,
    reached_five,
    tally,
)
from referee.engine.schloapfer_eyes import (
    DECK,
    DECK_RANKS,
    CardEyes,
    EyeCount,
    card_eyes,
    count_eyes,
    eye_count,
    eye_count_json,
    parse_eyes_request,
)
from referee.engine.schloapfer_state import LOSER_PAYS as LOSER_PAYS  # re-exported records
from referee.engine.schloapfer_state import POT as POT
from referee.engine.schloapfer_state import Deal as Deal
from referee.engine.schloapfer_state import Options as Options
from referee.engine.schloapfer_state import Round as Round
from referee.engine.schloapfer_state import State as State
from referee.engine.vocab import CloseHow

NAME = "schloapfer"

MIN_PLAYERS = 2
MAX_PLAYERS = 6
#: With ``turned_trump`` at most this many players (SL-12).
TURNED_TRUMP_MAX = 5

# --- helpers -----------------------------------------------------------------

def _from_left(n: int, dealer: int) -> tuple[int, ...]:
    """Seats in order from the dealer's left neighbour, the dealer last."""
    return tuple((dealer + 1 + k) % n for k in range(n))


def _next_in(status: tuple[str, ...], seat: int) -> int:
    """The next seat clockwise after ``seat`` still in the match (``seat`` if none)."""
    n = len(status)
    for k in range(1, n + 1):
        j = (seat + k) % n
        if status[j] == IN:
            return j
    return seat


def strokes_at_stake(in_match: int, options: Options) -> int:
    """SL-5: strokes at stake for a deal with ``in_match`` players in the match."""
    if in_match >= 4:
        return 2
    if in_match == 3 and options.two_strokes_with_three:
        return 2
    return 1


def forehand(state: State) -> int:
    """SL-4: the first player in the match to the left of the next dealer."""
    return _next_in(state.status, state.dealer)


# --- the match -----------------------------------------------------------------

def start(players: tuple[str, ...], dealer: str, stake: int, options: Options) -> State:
    """A new match; with ``pot`` scoring every player pays the stake in (SL-10)."""
    n = len(players)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise RuleViolation("SL-1", "Schloapfer is for 2 to 6 players; this match has %(n)s.", n=n)
    if options.turned_trump and n > TURNED_TRUMP_MAX:
        raise RuleViolation("SL-12", "Turning up trumps from the stock needs at most 5 players; this match has %(n)s.",
                            n=n)
    if dealer not in players:
        raise BadInput("dealer", "%(dealer)s is not a player of this match.", dealer=repr(dealer[:40]))
    if stake < 0:
        raise BadInput("stake", "The stake cannot be negative.")
    zeros = (0,) * n
    balances, pot = zeros, 0
    if options.scoring == POT:
        balances, pot = (-stake,) * n, stake * n
    state = State(players=players, balances=balances, pot=pot, finished=False, options=options, stake=stake,
                  dealer=players.index(dealer), round_no=0, points=zeros, rings=zeros, rings_total=zeros,
                  status=(IN,) * n)
    check_conserved(state.balances, state.pot)
    return state


def parse_round(state: State, data: Mapping[str, Any], money: Money) -> Round:
    """``{"eyes": {"Anna": 45, "Bo": 30}}`` into a :class:`Round` (shape only)."""
    obj = expect_object(data, "round", {"eyes"}, {"eyes"})
    named = expect_player_map(state.players, obj["eyes"], "eyes")
    eyes: list[int | None] = [None] * len(state.players)
    for seat, value in named.items():
        eyes[seat] = expect_int(value, f"eyes.{state.players[seat]}")
    return Round(players=state.players, eyes=tuple(eyes))


def round_json(rnd: Round, money: Money) -> dict[str, Any]:
    """The canonical payload: the players who played with their eyes, in seat order."""
    return {"eyes": {name: e for name, e in zip(rnd.players, rnd.eyes, strict=True) if e is not None}}


def apply(state: State, rnd: Round) -> State:
    """The state after one deal; :class:`RuleViolation` if the rules forbid it.

    The checks are :func:`~referee.engine.schloapfer_checks.validate`'s; the deal's arithmetic is the steps of
    :mod:`referee.engine.schloapfer_deal`, in the order the table works it out.
    """
    played = validate(state, rnd)
    dealer = state.dealer
    eyes = tuple(e if e is not None else 0 for e in rnd.eyes)
    in_match = tuple(s == IN for s in state.status)
    at_stake = strokes_at_stake(sum(in_match), state.options)
    given = give(played, eyes, dealer, at_stake)
    x = tally(state.points, state.rings, state.rings_total, given)
    end = _end(state, x, given, eyes)
    deal = Deal(no=state.round_no + 1, dealer=dealer, at_stake=at_stake, in_match=in_match, eyes=rnd.eyes,
                without_play=given.without_play, strokes=given.strokes, cancelled=x.cancelled,
                counted=x.counted, rings=given.ringed, paid=end.paid)
    nxt = replace(state, balances=add(state.balances, end.paid), pot=end.pot, finished=bool(end.ended_by),
                  dealer=_next_in(end.status, dealer), round_no=deal.no, points=x.points,
                  rings=x.rings, rings_total=x.totals, status=end.status, loser=end.loser,
                  winners=end.winners, ended_by=end.ended_by, last=deal)
    check_conserved(nxt.balances, nxt.pot)
    return nxt


def _end(state: State, x: Tally, given: Given, eyes: tuple[int, ...]) -> End:
    """The money and the end of the match after the deal, by the match's scoring (SL-9 .. SL-11)."""
    reached, over = reached_five(x), over_limit(x, given, state.options.ring_limit)
    if state.options.scoring == LOSER_PAYS:
        return end_loser_pays(state.status, reached, over, eyes, state.dealer, state.stake, state.pot)
    return end_pot(state.status, reached, over, given.ringed, eyes, state.dealer, state.stake, state.pot)


def check(state: State, rnd: Round) -> RuleViolation | None:
    """The violation :func:`apply` would raise, or ``None`` when the deal is allowed."""
    return violation(apply, state, rnd)


def close(state: State, how: str, to: str | None) -> State:
    """The game leader ends the match; a pot with money in it is split, awarded or carried."""
    check_open(state)
    n = len(state.players)
    balances, pot, carried = state.balances, state.pot, False
    if state.options.scoring == POT and state.pot > 0:
        if how == CloseHow.SPLIT:
            still = [i for i in range(n) if state.status[i] == IN]
            balances = add(balances, share(pot, still, n, state.dealer))
            pot = 0
        elif how == CloseHow.AWARD:
            if to is None:
                raise BadInput("to", "Name the player who gets the pot.")
            seat = expect_player(state.players, to, "to")
            balances = add(balances, share(pot, (seat,), n, state.dealer))
            pot = 0
        elif how == CloseHow.CARRY:
            carried = True
        else:
            raise BadInput("pot", "pot must be split, award or carry.")
    nxt = replace(state, balances=balances, pot=pot, carried=carried, finished=True, ended_by="close")
    check_conserved(nxt.balances, nxt.pot)
    return nxt


# --- JSON ------------------------------------------------------------------------

def _end_text(state: State) -> str | None:
    names = state.players
    if not state.finished:
        return None
    if state.ended_by == "close":
        return "Closed by the game leader" + (", the pot carried." if state.carried else ".")
    if state.winners:
        who = " and ".join(names[w] for w in state.winners)
        how = "share the pot" if len(state.winners) > 1 else "wins the pot"
        return f"{who} {how} ({state.ended_by})."
    if state.loser is not None:
        why = "passed the ring limit" if state.ended_by == "SL-11" else "is the last player left"
        return f"{names[state.loser]} {why} and has lost ({state.ended_by})."
    return None


def deal_json(state: State, deal: Deal, money: Money) -> dict[str, Any]:
    """One deal's summary: who played, eyes, strokes and rings given, cancelled rings, money."""
    names = state.players
    seats = range(len(names))
    played = [names[i] for i in seats if deal.eyes[i] is not None]
    return {
        "deal": deal.no,
        "dealer": names[deal.dealer],
        "strokes_at_stake": deal.at_stake,
        "played": played,
        "passed": [names[i] for i in seats if deal.in_match[i] and deal.eyes[i] is None],
        "eyes": {names[i]: e for i in seats if (e := deal.eyes[i]) is not None},
        "without_play": None if deal.without_play is None else names[deal.without_play],
        "strokes": {names[i]: deal.strokes[i] for i in seats if deal.strokes[i]},
        "points": {names[i]: deal.counted[i] for i in seats if deal.counted[i]},
        "cancelled": {names[i]: deal.cancelled[i] for i in seats if deal.cancelled[i]},
        "rings": [names[i] for i in seats if deal.rings[i]],
        "paid": {names[i]: money.format(deal.paid[i]) for i in seats},
    }


def state_json(state: State, money: Money) -> dict[str, Any]:
    """The state as the API contract shows it, plus extras for the phone page."""
    names = state.players
    seats = range(len(names))
    in_match = [names[i] for i in seats if state.status[i] == IN]
    return {
        "dealer": names[state.dealer],
        "finished": state.finished,
        "balances": {names[i]: money.format(state.balances[i]) for i in seats},
        "pot": money.format(state.pot),
        "players": {
            names[i]: {
                "points": state.points[i],
                "rings": state.rings[i],
                "rings_total": state.rings_total[i],
                "cancelled_rings": state.rings_total[i] - state.rings[i],
                "status": state.status[i],
            }
            for i in seats
        },
        "loser": None if state.loser is None else names[state.loser],
        "winner": names[state.winners[0]] if len(state.winners) == 1 else None,
        "winners": [names[w] for w in state.winners],
        "stake": money.format(state.stake),
        "scoring": state.options.scoring,
        "options": options_json(state.options),
        "round_no": state.round_no,
        "in_match": in_match,
        "forehand": None if state.finished else names[forehand(state)],
        "strokes_at_stake": strokes_at_stake(len(in_match), state.options),
        "carried": state.carried,
        "ended_by": state.ended_by or None,
        "end": _end_text(state),
        "last": None if state.last is None else deal_json(state, state.last, money),
    }


__all__ = [
    "DECK", "DECK_RANKS", "IN", "NAME", "CardEyes", "Deal", "EyeCount", "Options", "Round", "State", "apply",
    "card_eyes", "check", "close", "count_eyes", "deal_json", "eye_count", "eye_count_json", "forehand",
    "parse_eyes_request", "parse_round", "round_json", "start", "state_json", "strokes_at_stake",
]
