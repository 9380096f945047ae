"""The registry of games: each game's name, title, capabilities, typed functions and shapes, in one place.

Every game module of the engine (``svangknack``, ``kul``, ``schloapfer``,
``schwimmen``, ``knaker``) is listed here once, as a :class:`GameSpec`
naming its records (``Options``, ``State``, ``Round``) and functions
(``start``, ``parse_round``, ``apply``, ``check``, ``round_json``,
``close``, ``state_json``). The spec is generic in the game's state, round
and options types, so ``mypy --strict`` checks that each game's functions
fit together (``apply`` takes the ``State`` that ``start`` makes, and so on).

It is the one face of a game above the engine: the ledger, the API, the
pages, the sheets and the browser's engine call :func:`spec` (or read
:data:`SPECS`) and never import a game module (``tests/test_layers.py``
refuses it, outside the game's own parser, form and referee tool). The
per-game lists elsewhere are derived from :data:`SPECS`: the round parsers
and round forms are imported by the registered names, the trick referee's
games are those with ``trick_hand``, the API's schemas are the specs'
``round_schema`` and ``state_schema``. What above the engine needs to know
of a game's rules, its spec answers:

- ``has_pot``: a pot can still be on the table when the match is closed, so
  the close asks how to dispose of it (:class:`~referee.engine.vocab.CloseHow`).
  Knaker's pot is paid out after every game, so it never has one.
- ``can_carry``: ``start`` takes ``carried_in``, a pot carried from an
  earlier night's match of the same game (SK-14 ``carry``).
- ``trick_hand``: the trick referee (:mod:`referee.engine.tricks`) plays its
  deals of this many cards each, from a deck of ``trick_ranks``
  (``has_tricks`` says whether it has one).
- ``has_trumps``: its deals name a trump suit (Kul has none, KU-3).
- ``has_svangare``: a svängare leads the first trick and is named by each
  round (SK-11); the table display and the trick referee show who it is.
- ``has_dots``: penalty dots (KN-16) are events of its log.
- ``pot_tricks``: the pot is played for in this many tricks of equal value
  (Svängknack's three, SK-2), which the table display shows; 0: not so.
- ``round_word``: what one entry of its log is called on the pages: a
  ``"round"``, a ``"deal"`` (Schloapfer) or a ``"game"`` (Schwimmen, Knaker).
- ``rank``: a tournament table's players ranked by the game, never by money
  alone unless the game is played for money (Kul: the winner, then marks;
  Schwimmen: who went out when; Knaker: the standings; the others: the
  match result), from the final state (and, lazily, the state after each event: Schwimmen's
  survival needs the game each player went out in).
- ``brag``: what a group's season counts of the game per player (:class:`Brag`).
- ``game_result``/``open_dots``: the finished games a log holds (Knaker's
  places and dots, KN-16), which the fold keeps for the season and the charts.
- ``log_view``: the log's games as the match page and the protocol show them,
  read from the stored payloads alone (Knaker's places of every game).
- ``facts``/``with_facts``: a round's facts, what the state before it gives
  it beyond its payload (who dealt, the svängare, who passed), read when it
  is entered and set again before it is replayed, so that a void or a
  correction of an earlier round never moves a later round's rotation
  (:mod:`referee.engine.facts`, issue 42). ``kept_in_payload``: the payload
  fields a correction that leaves them out takes from the old entry's facts.
- ``round_schema``/``state_schema``/``schema_parts``: the API's shapes of
  its round payload and state (``shared/API.md``), named by the OpenAPI document.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Generic, TypeVar

from referee.engine import MatchState, RuleViolation, knaker, kul, schloapfer, schwimmen, svangknack
from referee.engine import tournament as draw
from referee.engine.api_shapes import (
    CARD,
    CLOSED,
    LAST,
    MONEY,
    MONEY_OR_NULL,
    NAME_OR_NULL,
    NAMES,
    OPTIONS,
    PER_PLAYER_INT,
    obj,
    ref,
    state,
)
from referee.engine.cards import RANKS
from referee.engine.facts import facts as _dealer_facts
from referee.engine.facts import svangknack_facts
from referee.engine.facts import with_facts as _with_dealer
from referee.engine.money import Money

S = TypeVar("S", bound=MatchState, covariant=True)
R = TypeVar("R")
Opt = TypeVar("Opt")

#: A table's players best first with their places (1, 2, 2, 4).
Ranked = list[tuple[str, int]]
#: The non-void rounds of a log (closes left out) as (round number, stored payload).
Logged = Iterable[tuple[int, Mapping[str, Any]]]


class Brag(StrEnum):
    """What a group's season counts of a game per player (:mod:`referee.ledger.season`)."""

    POTS_WON = "pots_won"           # the Kul won (KU-4) or a pot awarded to them (SK-14)
    MATCHES_LOST = "matches_lost"   # the match's loser (Schloapfer)
    WINS = "wins"                   # the winner or each winner surviving together (Schwimmen)
    PLACES = "places"               # games played, first places, mean place and dots (Knaker)
    NONE = "none"                   # only the matches played are counted


@dataclass(frozen=True)
class GameResult:
    """One finished game of a match's log: its places and each player's dots in it (seat order; KN-16)."""

    places: tuple[int, ...]
    dots: tuple[int, ...]


def _no_result(before: MatchState, after: MatchState) -> GameResult | None:
    return None


def _no_dots(state: MatchState) -> tuple[int, ...]:
    return ()


def _by_balances(state: MatchState, states: Callable[[], Iterable[MatchState]]) -> Ranked:
    """The match result ranks the table (money won)."""
    return draw.score_ranking(state.players, state.balances)


@dataclass(frozen=True)
class GameSpec(Generic[S, R, Opt]):
    """One game: what the ledger, the API, the pages and the browser need to know of it."""

    name: str
    title: str
    Options: type[Opt]
    State: type[S]
    Round: type[R]
    start: Callable[[tuple[str, ...], str, int, Opt], S]
    parse_round: Callable[[S, Mapping[str, Any], Money], R]
    apply: Callable[[S, R], S]
    check: Callable[[S, R], RuleViolation | None]
    round_json: Callable[[R, Money], dict[str, Any]]
    close: Callable[[S, str, str | None], S]
    state_json: Callable[[S, Money], dict[str, Any]]
    #: The round payload and the state as JSON Schema (shared/API.md), and shapes they name by ``ref``.
    round_schema: Mapping[str, Any]
    state_schema: Mapping[str, Any]
    schema_parts: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    has_pot: bool = True
    can_carry: bool = False
    #: Cards each player holds in a deal the trick referee plays (0: it plays none), from these ranks.
    trick_hand: int = 0
    trick_ranks: tuple[str, ...] = RANKS
    #: The fewest players a match of the game seats (a tournament's seat draw never goes below it).
    min_players: int = 2
    has_trumps: bool = False
    has_svangare: bool = False
    has_dots: bool = False
    pot_tricks: int = 0
    round_word: str = "round"
    rank: Callable[[S, Callable[[], Iterable[S]]], Ranked] = _by_balances
    brag: Brag = Brag.NONE
    game_result: Callable[[S, S], GameResult | None] = _no_result
    open_dots: Callable[[S], tuple[int, ...]] = _no_dots
    log_view: Callable[[tuple[str, ...], Logged], dict[str, Any]] | None = None
    #: A round's facts from the state before it and its payload, and a state set to stored facts.
    facts: Callable[[MatchState, Mapping[str, Any]], dict[str, Any]] = _dealer_facts
    with_facts: Callable[[S, Mapping[str, Any]], S] = _with_dealer
    kept_in_payload: tuple[str, ...] = ()

    @property
    def has_tricks(self) -> bool:
        """The trick referee (:mod:`referee.engine.tricks`) plays its deals."""
        return self.trick_hand > 0


#: Any registered game, as a caller that picks one by name holds it: its states come out as
#: :class:`MatchState` (``S`` is covariant for this); what goes in is the caller's word that it is a state
#: of the same game (the one the fold or the snapshot of that match gave).
Game = GameSpec[MatchState, Any, Any]


# --- what Schwimmen's and Knaker's logs and tables say ----------------------------------

def _survival(final: schwimmen.State, states: Callable[[], Iterable[schwimmen.State]]) -> Ranked:
    """Schwimmen: the winner, then the others by the game they went out in (later is better)."""
    out: dict[str, int] = {}
    for after in states():
        for k, name in enumerate(after.players):
            if after.out[k] and name not in out:
                out[name] = int(after.game_no)
    winner = final.players[final.winner] if final.winner is not None else None
    return draw.schwimmen_ranking(final.players, winner, {name: out.get(name) for name in final.players})


def _kul_rank(final: kul.State, states: Callable[[], Iterable[kul.State]]) -> Ranked:
    """Kul: the match's winner, then the others by marks (more is better), then by balance.

    Why not the balances alone: a table played for no stake (a tournament's
    default) has every balance at zero, and the seeded draw would then pick
    who goes on, whoever took the Kul (issue 43.1).
    """
    return draw.places([(name, (1 if final.winner == k else 0, final.marks[k], final.balances[k]))
                        for k, name in enumerate(final.players)])


def _by_standings(final: knaker.State, states: Callable[[], Iterable[knaker.State]]) -> Ranked:
    """Knaker: the match's standings rank the table."""
    return draw.score_ranking(final.players, final.standings)


def _knaker_result(before: knaker.State, after: knaker.State) -> GameResult | None:
    """A game that this event ended: its places, and the dots given in it (KN-16)."""
    if after.games > before.games and after.last_game is not None:
        return GameResult(tuple(after.last_game.places), tuple(before.dots))
    return None


def _knaker_dots(state: knaker.State) -> tuple[int, ...]:
    """The dots given in the game still being played (not yet in a result)."""
    return tuple(state.dots)


def _knaker_log(players: tuple[str, ...], rounds: Logged) -> dict[str, Any]:
    """Every counted game's places and scores, and the dots of the game being played.

    The cached state keeps the standings and the last game only; the places
    of a game follow from its logged events alone (KN-7), so they are read
    from the stored payloads without replaying the match's money.
    ``games``: one entry per game result, in order, with ``seq``,
    ``game_no``, ``places`` and ``scores`` (name -> int) and ``events``.
    ``dots``: the dot rounds since the last game result, as
    ``{"seq", "player", "offence", "dots"}`` (``dots`` None: the offence's own).
    """
    games: list[dict[str, Any]] = []
    dots: list[dict[str, Any]] = []
    for seq, payload in rounds:
        if "events" in payload:
            events = []
            for item in payload.get("events", []):
                ((kind, names),) = item.items()
                events.append((kind, tuple(players.index(n) for n in names)))
            places = knaker.places_of(players, tuple(events))
            scores = knaker.scores_of(places)
            games.append({"seq": seq, "game_no": len(games) + 1, "events": payload["events"],
                          "places": dict(zip(players, places, strict=True)),
                          "scores": dict(zip(players, scores, strict=True))})
            dots = []
        elif "dot" in payload:
            dot = payload["dot"]
            dots.append({"seq": seq, "player": dot.get("player"), "offence": dot.get("offence"),
                         "dots": dot.get("dots")})
    return {"games": games, "dots": dots}


# --- the games ---------------------------------------------------------------------------

_DEAL = ref("DealLog")

SVANGKNACK = GameSpec(
    name=svangknack.NAME, title="Svängknack", Options=svangknack.Options,
    State=svangknack.State, Round=svangknack.Round, start=svangknack.start, parse_round=svangknack.parse_round,
    apply=svangknack.apply, check=svangknack.check, round_json=svangknack.round_json, close=svangknack.close,
    state_json=svangknack.state_json, can_carry=True, trick_hand=3, min_players=svangknack.MIN_PLAYERS,
    has_trumps=True, has_svangare=True, pot_tricks=svangknack.TRICKS, facts=svangknack_facts,
    kept_in_payload=("svangare",),
    round_schema=obj({
        "svangare": {"type": "string"}, "participants": NAMES, "tricks": PER_PLAYER_INT,
        "redeal": {"type": "boolean"}, "new_stake": MONEY, "deal": _DEAL}, closed=True,
        description="SK: svangare defaults to the player left of the dealer; tricks left out when the "
                    "svängare plays alone (SK-7); redeal, new_stake (SK-12, SK-13)."),
    state_schema=state({
        "stake": MONEY, "trick_value": MONEY, "svangare": {"type": "string"}, "passed_svangare": {"type": "string"},
        "fresh_pot": {"type": "boolean"}, "round_no": {"type": "integer"}, "forced": {"type": "boolean"},
        "may_change_stake": {"type": "boolean"}, "carried_in": MONEY, "carried": MONEY_OR_NULL,
        "closed": CLOSED, "options": OPTIONS, "last": LAST}, ("pot", "trick_value", "svangare", "fresh_pot")))

KUL = GameSpec(
    name=kul.NAME, title="Kul", Options=kul.Options, State=kul.State, Round=kul.Round,
    start=kul.start, parse_round=kul.parse_round, apply=kul.apply, check=kul.check, round_json=kul.round_json,
    close=kul.close, state_json=kul.state_json, can_carry=True, trick_hand=5, brag=Brag.POTS_WON, rank=_kul_rank,
    round_schema=obj({"last_trick": {"type": "string"}, "deal": _DEAL}, ("last_trick",), closed=True,
                     description="Kul: who took the last trick (a mark)."),
    state_schema=state({
        "marks": PER_PLAYER_INT, "winner": NAME_OR_NULL, "stake": MONEY, "marks_to_win": {"type": "integer"},
        "round_no": {"type": "integer"}, "last_trick": NAME_OR_NULL, "carried_in": MONEY,
        "carried": MONEY_OR_NULL, "closed": CLOSED, "options": OPTIONS}, ("pot", "marks", "marks_to_win")))

SCHLOAPFER = GameSpec(
    name=schloapfer.NAME, title="Schloapfer", Options=schloapfer.Options,
    State=schloapfer.State, Round=schloapfer.Round, start=schloapfer.start, parse_round=schloapfer.parse_round,
    apply=schloapfer.apply, check=schloapfer.check, round_json=schloapfer.round_json, close=schloapfer.close,
    state_json=schloapfer.state_json, trick_hand=6, trick_ranks=RANKS[4:], has_trumps=True, round_word="deal",
    brag=Brag.MATCHES_LOST,
    round_schema=obj({"eyes": PER_PLAYER_INT, "deal": _DEAL}, ("eyes",), closed=True,
                     description="Schloapfer: each playing player's eyes; a player left out passed (SL-4)."),
    state_schema=state({
        "players": {"type": "object", "additionalProperties": ref("SchloapferPlayer")},
        "loser": NAME_OR_NULL, "winner": NAME_OR_NULL, "winners": NAMES, "stake": MONEY,
        "scoring": {"type": "string"}, "options": OPTIONS, "round_no": {"type": "integer"}, "in_match": NAMES,
        "forehand": NAME_OR_NULL, "strokes_at_stake": {"type": "integer"}, "last": LAST},
        ("players", "loser", "scoring", "strokes_at_stake")),
    schema_parts={"SchloapferPlayer": obj({
        "points": {"type": "integer"}, "rings": {"type": "integer"}, "rings_total": {"type": "integer"},
        "cancelled_rings": {"type": "integer"}, "status": {"enum": ["in", "finished", "out", "lost"]}},
        ("points", "rings", "status"))})

SCHWIMMEN = GameSpec(
    name=schwimmen.NAME, title="Schwimmen / 31", Options=schwimmen.Options,
    State=schwimmen.State, Round=schwimmen.Round, start=schwimmen.start, parse_round=schwimmen.parse_round,
    apply=schwimmen.apply, check=schwimmen.check, round_json=schwimmen.round_json, close=schwimmen.close,
    state_json=schwimmen.state_json, round_word="game", rank=_survival, brag=Brag.WINS,
    round_schema=obj({
        "ended_by": {"enum": ["knock", "31", "feuer"]}, "by": {"type": "string"},
        "hands": {"type": "object", "additionalProperties": {"type": "array", "items": CARD}},
        "points": {"type": "object", "additionalProperties": {"type": "number"}},
        "losers": NAMES}, ("ended_by", "by"), closed=True,
        description="Schwimmen: how the game ended and by whom, with hands, points or losers."),
    state_schema=state({
        "stake": MONEY, "players": {"type": "object", "additionalProperties": ref("SchwimmenPlayer")},
        "winner": NAME_OR_NULL, "winners": {"anyOf": [NAMES, {"type": "null"}]}, "game_no": {"type": "integer"},
        "values": {"type": ["object", "null"], "additionalProperties": {"type": ["number", "null"]}},
        "losers": NAMES, "went_under": NAMES, "ended_by": NAME_OR_NULL, "by": NAME_OR_NULL,
        "explanations": {"type": "object", "additionalProperties": {"type": "string"}},
        "direction": {"enum": ["clockwise", "counter-clockwise"]},
        "possible_values": {"type": "array", "items": {"type": "number"}},
        "closed": {"type": "boolean"}, "carried": {"type": "boolean"}},
        ("players", "losers", "game_no", "possible_values")),
    schema_parts={"SchwimmenPlayer": obj({"lives": {"type": "integer"}, "swimming": {"type": "boolean"},
                                          "out": {"type": "boolean"}}, ("lives", "swimming", "out"))})

KNAKER = GameSpec(
    name=knaker.NAME, title="Knaker", Options=knaker.Options, State=knaker.State,
    Round=knaker.Round, start=knaker.start, parse_round=knaker.parse_round, apply=knaker.apply,
    check=knaker.check, round_json=knaker.round_json, close=knaker.close, state_json=knaker.state_json,
    has_pot=False, has_dots=True, round_word="game", rank=_by_standings, brag=Brag.PLACES,
    game_result=_knaker_result, open_dots=_knaker_dots, log_view=_knaker_log,
    round_schema=obj({"events": {"type": "array", "items": ref("KnakerEvent")}, "dot": ref("Dot")}, closed=True,
                     description="Knaker: the game's rounds of play in order; the last player left is implied."),
    state_schema=state({
        "stake": MONEY, "payout": {"type": "string"}, "double_deck": {"type": "boolean"},
        "places": PER_PLAYER_INT, "standings": PER_PLAYER_INT, "dots": PER_PLAYER_INT,
        "carried_dots": PER_PLAYER_INT, "consequences": {"type": "object"}, "disqualified": NAMES,
        "game_no": {"type": "integer"}, "games_played": {"type": "integer"}, "last_game": LAST},
        ("places", "standings", "dots", "games_played")),
    schema_parts={
        "KnakerEvent": obj({"out": NAMES, "lost": NAMES, "disqualified": NAMES}, closed=True,
                           description="One round of play: who went out, lost (KN-7) or was disqualified."),
        "Dot": obj({"player": {"type": "string"}, "offence": {"type": "string"},
                    "dots": {"type": "integer", "minimum": 1, "maximum": 4}}, ("player", "offence"), closed=True)})

_ALL: tuple[Game, ...] = (SVANGKNACK, KUL, SCHLOAPFER, SCHWIMMEN, KNAKER)

#: Every game by its API name, in the order the pages list them (read-only).
SPECS: Mapping[str, Game] = MappingProxyType({game.name: game for game in _ALL})


def spec(name: str) -> Game:
    """The game called ``name`` in the API; ``KeyError`` for an unknown name."""
    return SPECS[name]


def title(name: str) -> str:
    """The game's title for people; a name the registry does not know (an old row's) as it is."""
    known = SPECS.get(name)
    return known.title if known is not None else name
