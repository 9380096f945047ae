"""The registry of games: each game's name, title, capabilities and typed functions, in one place.

Every game module of the engine (``svangknack``, ``kul``, ``schloapfer``,
``schwimmen``, ``knaker``) is listed here once, as a :class:`GameSpec`
naming its records (``Options``, ``State``, ``Round``) and functions
(``start``, ``parse_round``, ``apply``, ``check``, ``round_json``,
``close``, ``state_json``). The spec is generic in the game's state, round
and options types, so ``mypy --strict`` checks that each game's functions
fit together (``apply`` takes the ``State`` that ``start`` makes, and so on)
where the module-level ``Game`` protocol can only say ``Any``.

Everything above the engine finds a game here (``referee.games`` is a thin
view of :data:`SPECS` for the callers that predate it), never by importing a
module by its name, so a game that is not listed cannot be reached and a
misspelt name is a ``KeyError`` at once. Capabilities replace lists of game
names kept elsewhere:

- ``has_pot``: a pot can still be on the table when the match is closed, so
  the close asks how to dispose of it (:class:`~referee.engine.vocab.CloseHow`).
  Knaker's pot is paid out after every game, so it never has one.
- ``can_carry``: ``start`` takes ``carried_in``, a pot carried from an
  earlier night's match of the same game (SK-14 ``carry``).
- ``has_tricks``: the trick referee (:mod:`referee.engine.tricks`) plays its deals.
- ``has_trumps``: its deals name a trump suit (Kul has none, KU-3).
- ``has_svangare``: a svängare leads the first trick and is named by each
  round (SK-11); the table display and the trick referee show who it is.
- ``has_dots``: penalty dots (KN-16) are events of its log.
- ``pot_tricks``: the pot is played for in this many tricks of equal value
  (Svängknack's three, SK-2), which the table display shows; 0: not so.
- ``round_word``: what one entry of its log is called on the pages: a
  ``"round"``, a ``"deal"`` (Schloapfer) or a ``"game"`` (Schwimmen, Knaker).
- ``ranking``: how a tournament table's players are ranked at the end of its
  match (:class:`Ranking`).
- ``brag``: what a group's season counts of the game per player (:class:`Brag`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType, ModuleType
from typing import Any, Generic, TypeVar

from referee.engine import MatchState, RuleViolation, knaker, kul, schloapfer, schwimmen, svangknack
from referee.engine.money import Money

S = TypeVar("S", bound=MatchState)
R = TypeVar("R")
Opt = TypeVar("Opt")


class Ranking(StrEnum):
    """How a table's players are ranked when its match ends (the arithmetic is :mod:`referee.engine.tournament`'s)."""

    BALANCES = "balances"   # by the match result, money won
    SCORE = "score"         # by the match's standings (Knaker's points)
    SURVIVAL = "survival"   # the winner, then the others by the game they went out in (Schwimmen)


class Brag(StrEnum):
    """What a group's season counts of a game per player (:mod:`referee.ledger.season`)."""

    POTS_WON = "pots_won"           # the Kul won (KU-4) or a pot awarded to them (SK-14)
    MATCHES_LOST = "matches_lost"   # the match's loser (Schloapfer)
    WINS = "wins"                   # the winner or each winner surviving together (Schwimmen)
    PLACES = "places"               # games played, first places, mean place and dots (Knaker)
    NONE = "none"                   # only the matches played are counted


@dataclass(frozen=True)
class GameSpec(Generic[S, R, Opt]):
    """One game: what the ledger, the API, the pages and the browser need to know of it."""

    name: str
    title: str
    module: ModuleType
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
    has_pot: bool = True
    can_carry: bool = False
    has_tricks: bool = False
    #: The fewest players a match of the game seats (a tournament's seat draw never goes below it).
    min_players: int = 2
    has_trumps: bool = False
    has_svangare: bool = False
    has_dots: bool = False
    pot_tricks: int = 0
    round_word: str = "round"
    ranking: Ranking = Ranking.BALANCES
    brag: Brag = Brag.NONE


SVANGKNACK = GameSpec(
    name=svangknack.NAME, title="Svängknack", module=svangknack, Options=svangknack.Options,
    State=svangknack.State, Round=svangknack.Round, start=svangknack.start, parse_round=svangknack.parse_round,
    apply=svangknack.apply, check=svangknack.check, round_json=svangknack.round_json, close=svangknack.close,
    state_json=svangknack.state_json, can_carry=True, has_tricks=True, min_players=svangknack.MIN_PLAYERS,
    has_trumps=True, has_svangare=True, pot_tricks=svangknack.TRICKS)

KUL = GameSpec(
    name=kul.NAME, title="Kul", module=kul, Options=kul.Options, State=kul.State, Round=kul.Round,
    start=kul.start, parse_round=kul.parse_round, apply=kul.apply, check=kul.check, round_json=kul.round_json,
    close=kul.close, state_json=kul.state_json, can_carry=True, has_tricks=True, brag=Brag.POTS_WON)

SCHLOAPFER = GameSpec(
    name=schloapfer.NAME, title="Schloapfer", module=schloapfer, Options=schloapfer.Options,
    State=schloapfer.State, Round=schloapfer.Round, start=schloapfer.start, parse_round=schloapfer.parse_round,
    apply=schloapfer.apply, check=schloapfer.check, round_json=schloapfer.round_json, close=schloapfer.close,
    state_json=schloapfer.state_json, has_tricks=True, has_trumps=True, round_word="deal",
    brag=Brag.MATCHES_LOST)

SCHWIMMEN = GameSpec(
    name=schwimmen.NAME, title="Schwimmen / 31", module=schwimmen, Options=schwimmen.Options,
    State=schwimmen.State, Round=schwimmen.Round, start=schwimmen.start, parse_round=schwimmen.parse_round,
    apply=schwimmen.apply, check=schwimmen.check, round_json=schwimmen.round_json, close=schwimmen.close,
    state_json=schwimmen.state_json, round_word="game", ranking=Ranking.SURVIVAL, brag=Brag.WINS)

KNAKER = GameSpec(
    name=knaker.NAME, title="Knaker", module=knaker, Options=knaker.Options, State=knaker.State,
    Round=knaker.Round, start=knaker.start, parse_round=knaker.parse_round, apply=knaker.apply,
    check=knaker.check, round_json=knaker.round_json, close=knaker.close, state_json=knaker.state_json,
    has_pot=False, has_dots=True, round_word="game", ranking=Ranking.SCORE, brag=Brag.PLACES)

_ALL: tuple[GameSpec[Any, Any, Any], ...] = (SVANGKNACK, KUL, SCHLOAPFER, SCHWIMMEN, KNAKER)

#: Every game by its API name, in the order the pages list them (read-only).
SPECS: Mapping[str, GameSpec[Any, Any, Any]] = MappingProxyType({game.name: game for game in _ALL})


def spec(name: str) -> GameSpec[Any, Any, Any]:
    """The game called ``name`` in the API; ``KeyError`` for an unknown name."""
    return SPECS[name]
