"""Svängknack's records: its options, a round as entered, what a round did, and the match between rounds.

A module of their own so that the round's checks (:mod:`referee.engine.svangknack_checks`) and the match
(:mod:`referee.engine.svangknack`, which asks the checks and re-exports these) both read them without importing
each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.engine.pot import PotState
from referee.engine.records import option


@dataclass(frozen=True)
class Options:
    """The options of ``rules/svangknack.md``."""

    first_pot: str = option(
        "all", choices=("all", "dealer_only"),
        doc="First pot: every player pays the stake (all) or only the dealer (dealer_only) (SK-5).")
    forced_participation: str = option(
        "never", choices=("never", "fresh_pot", "always"),
        doc="Must everyone play: never, in the first round of every fresh pot, or always (SK-10).")


@dataclass(frozen=True)
class Round:
    """One round as entered: names, not seats (it is also the log payload).

    ``svangare`` None means the player left of the dealer; ``participants``
    None means "everyone" (only valid under forced participation);
    ``tricks`` None means none entered (svängare alone). ``participants`` and
    ``tricks`` are kept in seat order.
    """

    svangare: str | None = None
    participants: tuple[str, ...] | None = None
    tricks: tuple[tuple[str, int], ...] | None = None
    redeal: bool = False
    new_stake: int | None = None


@dataclass(frozen=True)
class Result:
    """What a round did, for the pages and the score protocol.

    Per-player tuples are aligned with ``State.players``.
    """

    round_no: int
    dealer: int
    svangare: int
    passed: bool
    redeal: bool
    forced: bool
    alone: bool
    participants: tuple[bool, ...]
    tricks: tuple[int, ...]
    pot_before: int
    trick_value: int
    payouts: tuple[int, ...]
    bets: tuple[int, ...]
    stakes: tuple[int, ...]
    pot_after: int
    stake_before: int
    stake_after: int
    fresh_pot: bool


@dataclass(frozen=True)
class State(PotState):
    """A Svängknack match between rounds."""

    options: Options
    fresh_pot: bool = True
    round_no: int = 0
    last: Result | None = None
