"""Knaker, part A: the ledger of a match (places, penalty dots, standings, money).

A Knaker match is a series of games among the same players (digest
``rules/knaker.md`` part A). The match log holds two kinds of rounds, both read
by :func:`parse_round`:

- a game result ``{"events": [{"out": ["Anna"]}, {"lost": ["Bo"]}, ...]}``
  (KN-7): the events of the game in order, each one round of play in which the
  named players went out, lost, or were disqualified;
- a dot ``{"dot": {"player": "Bo", "offence": "swap_face_down", "dots": 2}}``
  (KN-16; the service wraps the body of ``POST .../dots`` as ``{"dot": body}``).

The offences, their dots and what dots mean are :mod:`referee.engine.knaker_dots`'s
(re-exported here); this module is the match: places, standings, money (its
records are :mod:`referee.engine.knaker_state`, re-exported).

Decisions where the digest is silent (each also in the report; those on dots alone are
:mod:`referee.engine.knaker_dots`'s):

- Places (KN-7): ``out`` takes the best free place, ``lost`` and
  ``disqualified`` the worst free place. Several players in one ``out`` element
  share the place (KN-7.3: 1, 2, 2, 4). Several players in one ``lost`` or
  ``disqualified`` element also share: they take the worst free places and
  share the best of them (two losers of four in one element: 3, 3). A leader
  who knows their order enters them as separate elements (KN-7.2).
- The last player left (KN-7.1) is implied. Naming them explicitly in a final
  element of their own is accepted with any key: they take the one remaining
  place either way. More than one player left unnamed is refused (KN-7.1); a
  player named twice is refused (KN-7).
- Disqualification: a player who reached 5 dots (KN-16.8) or got a giffelcheat
  (KN-16.3) in the current game must be listed under ``disqualified`` in that
  game's result (the engine cannot know the moment, which decides the place);
  otherwise the result is refused citing that rule. The leader may also list a
  player as ``disqualified`` without a recorded dot (e.g. a giffelcheat noticed
  while entering the result). A disqualified player gets no more in-game dots;
  ``spectator``/``bad_loser`` dots for the next game are still accepted.
- Dealer: the seed names no dealer rule, so the deal moves one seat clockwise
  after each game.
- Money (KN-L): ``loser_pays``: every player on the last place (the largest
  place number of the game) pays the stake to every player not on it. Whether
  losers of a shared last place also pay each other makes no difference (it
  nets to zero), so they don't. When everybody shares one place nobody pays.
  ``pot``: at each game's result every player stakes, and the first place takes
  the pot at once (a shared first place splits it, a remainder of minor units
  one each in seat order from the dealer's left). The pot therefore never holds
  money between games, so :func:`close` ignores ``how``/``to``.
  ``stake`` must be more than 0 with ``loser_pays``/``pot`` and may not be
  negative (KN-L); with ``none`` it is kept but unused.
- Player count: 2 to 6 (KN-1); with ``double_deck`` 2 to 12 (KN-17).
- Standings: each game a player scores the number of players placed below
  them (KN-L). The match has no end of its own: only the leader's
  :func:`close` finishes it; rounds after that are refused citing KN-L.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from referee.engine import BadInput, RuleViolation, check_conserved, seat_of, violation
from referee.engine.knaker_dots import (
    OFFENCES,
    apply_dot,
    consequence,
    disqualified_by,
)
from referee.engine.knaker_state import Dot as Dot  # re-exported records
from referee.engine.knaker_state import Event as Event
from referee.engine.knaker_state import GameRecord as GameRecord
from referee.engine.knaker_state import Options as Options
from referee.engine.knaker_state import Round as Round
from referee.engine.knaker_state import State as State
from referee.engine.money import Money, add, share
from referee.engine.records import expect_int, expect_object, expect_player, expect_str

NAME = "knaker"

MIN_PLAYERS = 2
MAX_PLAYERS = 6
MAX_PLAYERS_DOUBLE = 12

#: Event keys of a game result, in the order the contract names them.
EVENT_KINDS: tuple[str, ...] = ("out", "lost", "disqualified")


# --- start -------------------------------------------------------------------

def start(players: tuple[str, ...], dealer: str, stake: int, options: Options) -> State:
    """A new match; refuses a player count or stake the rules don't allow."""
    n = len(players)
    if options.double_deck:
        if not MIN_PLAYERS <= n <= MAX_PLAYERS_DOUBLE:
            raise RuleViolation("KN-17", "Knaker with a double deck is for 2 to 12 players; you have %(n)s (KN-17).",
                                n=n)
    elif n > MAX_PLAYERS:
        raise RuleViolation("KN-1", "Knaker is for 2 to 6 players (more with the double deck option); you have "
                                    "%(n)s (KN-1).", n=n)
    elif n < MIN_PLAYERS:
        raise RuleViolation("KN-1", "Knaker is for 2 to 6 players; you have %(n)s (KN-1).", n=n)
    if stake < 0:
        raise RuleViolation("KN-L", "The stake cannot be negative (KN-L).")
    if options.payout != "none" and stake == 0:
        raise RuleViolation("KN-L", "Payout %(payout)s needs a stake of more than 0 (KN-L).", payout=options.payout)
    zeros = (0,) * n
    state = State(players=players, balances=zeros, pot=0, finished=False, options=options, stake=stake,
                  dealer=players.index(dealer), dots=zeros, giffel=(False,) * n, offences=zeros,
                  denials=zeros, carried=zeros, standings=zeros)
    check_conserved(state.balances, state.pot)
    return state


# --- parsing -----------------------------------------------------------------

def parse_round(state: State, data: Mapping[str, Any], money: Money) -> Round:
    """A game result or a dot from JSON (shape only; the rules are :func:`apply`'s)."""
    del money  # a Knaker round holds no amounts
    body = expect_object(data, "round", ("events", "dot"))
    if ("events" in body) == ("dot" in body):
        raise BadInput("events", "A Knaker round is either a game result (events) or a dot (dot).")
    if "dot" in body:
        return Round(dot=_parse_dot(state, body["dot"]))
    raw = body["events"]
    if not isinstance(raw, list):
        raise BadInput("events", 'events must be a list like [{"out": ["Anna"]}, {"lost": ["Bo"]}].')
    return Round(events=tuple(_parse_event(state, item, f"events[{k}]") for k, item in enumerate(raw)))


def _parse_event(state: State, item: object, field: str) -> Event:
    obj = expect_object(item, field, EVENT_KINDS)
    if len(obj) != 1:
        raise BadInput(field, "%(name)s must have exactly one of out, lost, disqualified.", name=field)
    ((kind, names),) = obj.items()
    if not isinstance(names, list) or not names:
        raise BadInput(f"{field}.{kind}", "%(name)s must be a non-empty list of player names.",
                       name=f"{field}.{kind}")
    # Each name must be a player of the match; a player named twice is a rule matter (KN-7).
    seats = tuple(expect_player(state.players, name, f"{field}.{kind}") for name in names)
    return Event(str(kind), tuple(state.players[s] for s in seats))


def _parse_dot(state: State, item: object) -> Dot:
    obj = expect_object(item, "dot", ("player", "offence", "dots"), required=("player", "offence"))
    seat = expect_player(state.players, obj["player"], "player")
    offence = expect_str(obj["offence"], "offence", max_len=40)
    if offence not in OFFENCES:
        raise BadInput("offence", "Unknown offence %(offence)s (known: %(known)s).", offence=repr(offence[:40]),
                       known=", ".join(OFFENCES))
    dots = None if obj.get("dots") is None else expect_int(obj["dots"], "dots")
    if dots is None and not OFFENCES[offence].fixed:
        raise BadInput("dots", "dots (1 to 4) is required for offence other.")
    return Dot(state.players[seat], offence, dots)


def round_json(rnd: Round, money: Money) -> dict[str, Any]:
    """The canonical payload of a round (what :func:`parse_round` reads back)."""
    del money
    if rnd.dot is not None:
        dot: dict[str, Any] = {"player": rnd.dot.player, "offence": rnd.dot.offence}
        if rnd.dot.dots is not None:
            dot["dots"] = rnd.dot.dots
        return {"dot": dot}
    return {"events": [{e.kind: list(e.players)} for e in rnd.events]}


# --- rules -------------------------------------------------------------------

def places_of(players: tuple[str, ...], events: tuple[tuple[str, tuple[int, ...]], ...]) -> tuple[int, ...]:
    """The places of a game from its events as (kind, seats), KN-7.

    ``out`` takes the best free place, ``lost``/``disqualified`` the worst;
    players of one element share the best place of the range they fill
    (KN-7.3: 1, 2, 2, 4); the one player left takes the remaining place
    (KN-7.1). Raises :class:`RuleViolation` unless every player is placed
    exactly once.
    """
    n = len(players)
    places: list[int | None] = [None] * n
    best, worst = 1, n
    for kind, seats in events:
        for seat in seats:
            if places[seat] is not None or seats.count(seat) > 1:
                raise RuleViolation("KN-7", "%(player)s is named twice in the game's result; every player "
                                            "takes exactly one place (KN-7).", player=players[seat])
        k = len(seats)
        if kind == "out":
            place = best
            best += k
        else:
            worst -= k
            place = worst + 1
        for seat in seats:
            places[seat] = place
    left = [s for s in range(n) if places[s] is None]
    if len(left) > 1:
        # The unplaced players are named so the leader sees whom the result forgot (and their rows are marked).
        raise RuleViolation("KN-7.1", "%(n)s players are not placed (%(players)s); play goes on while more than "
                                      "one player is left, so name who went out, lost or was disqualified "
                                      "(KN-7.1).",
                            n=len(left), players=", ".join(players[s] for s in left))
    for seat in left:
        places[seat] = best
    return tuple(p for p in places if p is not None)


def scores_of(places: tuple[int, ...]) -> tuple[int, ...]:
    """KN-L standings: each player scores the number of players placed below them."""
    return tuple(sum(1 for q in places if q > p) for p in places)


def payments_of(state: State, places: tuple[int, ...]) -> tuple[int, ...]:
    """The money of one game for each player (sums to zero), KN-L."""
    n = len(places)
    stake = state.stake
    if state.options.payout == "loser_pays":
        last = max(places)
        losers = sum(1 for p in places if p == last)
        return tuple(-stake * (n - losers) if p == last else stake * losers for p in places)
    if state.options.payout == "pot":
        won = share(stake * n, (s for s in range(n) if places[s] == 1), n, state.dealer)
        return tuple(w - stake for w in won)
    return (0,) * n


def check(state: State, rnd: Round) -> RuleViolation | None:
    """The violation :func:`apply` would raise for this round, or None."""
    return violation(apply, state, rnd)


def apply(state: State, rnd: Round) -> State:
    """The state after a game result or a dot; :class:`RuleViolation` if the rules forbid it."""
    if state.finished:
        raise RuleViolation("KN-L", "The game leader has closed this match; no more games or dots can be "
                                    "entered (KN-L).")
    new = apply_dot(state, rnd.dot) if rnd.dot is not None else _apply_game(state, rnd.events)
    check_conserved(new.balances, new.pot)
    return new


def _apply_game(state: State, events: tuple[Event, ...]) -> State:
    n = len(state.players)
    indexed = tuple((e.kind, tuple(seat_of(state.players, p, "events") for p in e.players)) for e in events)
    places = places_of(state.players, indexed)
    listed_disqualified = {s for kind, seats in indexed if kind == "disqualified" for s in seats}
    for seat in range(n):
        rule = disqualified_by(state, seat)
        if rule == "KN-16.3" and seat not in listed_disqualified:
            raise RuleViolation(rule, "%(player)s got a giffelcheat and is disqualified in this game; list them "
                                      "under disqualified at the moment it happened (KN-16.3).",
                                player=state.players[seat])
        if rule is not None and seat not in listed_disqualified:
            raise RuleViolation(rule, "%(player)s has %(dots)s dots and is disqualified in this game; list them "
                                      "under disqualified at the moment it happened (KN-16.8).",
                                player=state.players[seat], dots=state.dots[seat])
    scores = scores_of(places)
    payments = payments_of(state, places)
    zeros = (0,) * n
    record = GameRecord(game_no=state.games + 1, dealer=state.dealer, events=events, places=places,
                        scores=scores, payments=payments)
    return replace(
        state,
        balances=add(state.balances, payments),
        dealer=(state.dealer + 1) % n,
        dots=state.carried,
        giffel=(False,) * n,
        offences=zeros,
        denials=zeros,
        carried=zeros,
        standings=add(state.standings, scores),
        games=state.games + 1,
        last_game=record,
    )


# --- close -------------------------------------------------------------------

def close(state: State, how: str, to: str | None) -> State:
    """The leader ends the match. No pot is ever on the table between games, so ``how``/``to`` are ignored."""
    del how, to
    if state.finished:
        raise RuleViolation("KN-L", "This match is already closed (KN-L).")
    new = replace(state, finished=True)
    check_conserved(new.balances, new.pot)
    return new


# --- JSON --------------------------------------------------------------------

def state_json(state: State, money: Money) -> dict[str, Any]:
    """The state as the API shows it: names, money strings, places, standings, dots."""
    names = state.players
    n = len(names)

    def by_name(values: tuple[int, ...]) -> dict[str, int]:
        return {names[s]: values[s] for s in range(n)}

    places: dict[str, int] = {}
    last: dict[str, Any] | None = None
    if state.last_game is not None:
        g = state.last_game
        order = sorted(range(n), key=lambda s: (g.places[s], s))
        places = {names[s]: g.places[s] for s in order}
        last = {
            "game_no": g.game_no,
            "dealer": names[g.dealer],
            "events": [{e.kind: list(e.players)} for e in g.events],
            "places": places,
            "scores": by_name(g.scores),
            "payments": {names[s]: money.format(g.payments[s]) for s in range(n)},
        }
    return {
        "dealer": names[state.dealer],
        "finished": state.finished,
        "balances": {names[s]: money.format(state.balances[s]) for s in range(n)},
        "pot": money.format(state.pot),
        "stake": money.format(state.stake),
        "payout": state.options.payout,
        "double_deck": state.options.double_deck,
        "places": places,
        "standings": by_name(state.standings),
        "dots": by_name(state.dots),
        "carried_dots": by_name(state.carried),
        "consequences": {names[s]: consequence(state, s) for s in range(n)},
        "disqualified": [names[s] for s in range(n) if disqualified_by(state, s) is not None],
        "game_no": state.games + 1,
        "games_played": state.games,
        "last_game": last,
    }


__all__ = [
    "NAME", "OFFENCES", "Dot", "Event", "GameRecord", "Options", "Round", "State", "apply", "check", "close",
    "consequence", "disqualified_by", "parse_round", "payments_of", "places_of", "round_json", "scores_of",
    "start", "state_json",
]
