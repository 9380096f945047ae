"""Schloapfer's records: its options and scorings, a deal as entered, what a deal did, and the match between deals.

A module of their own so that a deal's checks (:mod:`referee.engine.schloapfer_checks`) and the match
(:mod:`referee.engine.schloapfer`, which asks the checks and re-exports these) both read them without importing
each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.engine import MatchState
from referee.engine.records import option

LOSER_PAYS, POT = "loser_pays", "pot"


@dataclass(frozen=True)
class Options:
    """The options of SL-5, SL-10, SL-11 and SL-12."""

    scoring: str = option(LOSER_PAYS, choices=(LOSER_PAYS, POT),
                          doc="loser_pays: the last player left pays everyone; pot: stakes and rings into a pot, "
                              "the first to five points takes it (SL-10).")
    two_strokes_with_three: bool = option(False, doc="With exactly three players in the match, two strokes are at "
                                                     "stake instead of one (SL-5).")
    ring_limit: int | None = option(None, minimum=1, maximum=20,
                                    doc="A player whose total of rings passes this number is out (SL-11); "
                                        "off when empty.")
    turned_trump: bool = option(False, doc="Trumps come from the top card of the stock; the dealer may pass too "
                                           "(SL-12, at most five players).")


@dataclass(frozen=True)
class Round:
    """One deal as entered: eyes per seat, ``None`` for a player who passed."""

    players: tuple[str, ...]
    eyes: tuple[int | None, ...]


@dataclass(frozen=True)
class Deal:
    """What one deal did, per seat: for the page's summary and the protocol table."""

    no: int
    dealer: int
    at_stake: int
    in_match: tuple[bool, ...]
    eyes: tuple[int | None, ...]
    without_play: int | None
    strokes: tuple[int, ...]
    cancelled: tuple[int, ...]
    counted: tuple[int, ...]
    rings: tuple[int, ...]
    paid: tuple[int, ...]


@dataclass(frozen=True)
class State(MatchState):
    options: Options
    round_no: int
    points: tuple[int, ...]
    rings: tuple[int, ...]
    rings_total: tuple[int, ...]
    status: tuple[str, ...]
    loser: int | None = None
    winners: tuple[int, ...] = ()
    ended_by: str = ""
    carried: bool = False
    last: Deal | None = None
