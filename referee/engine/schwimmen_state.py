"""Schwimmen's records: its options, a game as entered, and the match between games.

A module of their own so that a game's judgement (:mod:`referee.engine.schwimmen_game`) and the match
(:mod:`referee.engine.schwimmen`, which asks it and re-exports these) both read them without importing each
other.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.engine import MatchState
from referee.engine.records import option
from referee.engine.schwimmen_hands import DECKS


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
