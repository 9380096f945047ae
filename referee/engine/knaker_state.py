"""Knaker's records: its options, a game's events and a dot as entered, what a game did, and the match between
games.

A module of their own so that the dots (:mod:`referee.engine.knaker_dots`) and the match
(:mod:`referee.engine.knaker`, which asks them and re-exports these) both read them without importing each
other.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.engine import MatchState
from referee.engine.records import option


@dataclass(frozen=True)
class Options:
    """The options of ``rules/knaker.md``."""

    payout: str = option("none", choices=("none", "loser_pays", "pot"),
                         doc="Money per game: none (standings only), the last place pays everyone, or a pot "
                             "for the first place.")
    double_deck: bool = option(False, doc="Play with two decks (110 cards), allowing up to 12 players.")



@dataclass(frozen=True)
class Event:
    """One round of play in a game's result: who went out, lost or was disqualified."""

    kind: str
    players: tuple[str, ...]


@dataclass(frozen=True)
class Dot:
    """Dots for one offence; ``dots`` is None when the payload left it out."""

    player: str
    offence: str
    dots: int | None = None


@dataclass(frozen=True)
class Round:
    """A round of the match log: a game result (``events``) or a dot (``dot``)."""

    events: tuple[Event, ...] = ()
    dot: Dot | None = None


@dataclass(frozen=True)
class GameRecord:
    """What the last game did, for the log, the protocol and the phone page."""

    game_no: int
    dealer: int
    events: tuple[Event, ...]
    places: tuple[int, ...]
    scores: tuple[int, ...]
    payments: tuple[int, ...]


@dataclass(frozen=True)
class State(MatchState):
    """A Knaker match between games (all tuples aligned with ``players``).

    ``dots``, ``giffel``, ``offences`` and ``denials`` belong to the game being
    played; ``carried`` are dots already given for the next game.
    """

    options: Options
    dots: tuple[int, ...]
    giffel: tuple[bool, ...]
    offences: tuple[int, ...]
    denials: tuple[int, ...]
    carried: tuple[int, ...]
    standings: tuple[int, ...]
    games: int = 0
    last_game: GameRecord | None = None

    @property
    def places(self) -> tuple[int, ...] | None:
        """The places of the last game, or None before the first."""
        return None if self.last_game is None else self.last_game.places
