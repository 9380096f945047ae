"""Schloapfer: what one deal does to the X, the rings and the money (SL-4 .. SL-11), step by step.

:func:`referee.engine.schloapfer.apply` checks a deal (SL-13) and then asks
the steps of this module in the order the table works them out, each a
pure function of tuples aligned with the seats (no match state, so each
step reads on its own and is tested through ``apply``):

1. :func:`give`: who gets the strokes at stake and who gets a ring
   (SL-4/SL-12 a win without play, SL-5/SL-6 strokes, SL-7 rings);
2. :func:`tally`: a stroke cancels a ring first, else counts a point;
   a stroke beyond five points is void (SL-8, SL-9);
3. :func:`end_loser_pays` or :func:`end_pot`: whether the match ended, who
   lost or won, and the money of the deal (SL-9 .. SL-11).

The decisions where the digest is silent are in the module docstring of
:mod:`referee.engine.schloapfer`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.engine.money import add, share

IN, FINISHED, OUT, LOST = "in", "finished", "out", "lost"
#: Points that finish a player (the centre of the X, SL-8/SL-9).
POINTS_TO_FINISH = 5
#: Eyes a player needs to compete for a stroke and escape a ring (SL-5, SL-7).
NEEDED = 21


def distance(n: int, dealer: int, seat: int) -> int:
    """0 for the dealer's left neighbour ... n-1 for the dealer (SL-6: "nearest the dealer's left")."""
    return (seat - dealer - 1) % n


@dataclass(frozen=True)
class Given:
    """The strokes and rings a deal gives, per seat, and who won without play."""

    strokes: tuple[int, ...]
    ringed: tuple[int, ...]
    without_play: int | None


def give(played: Sequence[int], eyes: Sequence[int], dealer: int, at_stake: int) -> Given:
    """SL-4/SL-12: a lone player takes every stroke; SL-5/SL-6: the best over 21 eyes; SL-7: rings under 21."""
    n = len(eyes)
    strokes, ringed = [0] * n, [0] * n
    if len(played) == 1:
        strokes[played[0]] = at_stake
        return Given(tuple(strokes), tuple(ringed), played[0])
    ranked = sorted(played, key=lambda i: (-eyes[i], distance(n, dealer, i)))
    qualified = [i for i in ranked if eyes[i] >= NEEDED]
    if qualified and (at_stake == 1 or len(qualified) == 1):
        strokes[qualified[0]] = at_stake
    elif qualified:  # two at stake and two or more with 21: one stroke each to the first two
        strokes[qualified[0]] += 1
        strokes[qualified[1]] += 1
    for i in played:
        if eyes[i] < NEEDED:
            ringed[i] = 1
    return Given(tuple(strokes), tuple(ringed), None)


@dataclass(frozen=True)
class Tally:
    """The X after the deal: points, uncancelled rings, every ring ever, and what the strokes did."""

    points: tuple[int, ...]
    rings: tuple[int, ...]
    totals: tuple[int, ...]
    cancelled: tuple[int, ...]
    counted: tuple[int, ...]


def tally(points: Sequence[int], rings: Sequence[int], totals: Sequence[int], given: Given) -> Tally:
    """SL-8: a stroke cancels a ring first; SL-9: five points finish (decision: a stroke beyond five is void)."""
    n = len(points)
    points_, rings_, totals_ = list(points), list(rings), list(totals)
    cancelled, counted = [0] * n, [0] * n
    for i in range(n):
        for _ in range(given.strokes[i]):
            if points_[i] >= POINTS_TO_FINISH:
                break
            if rings_[i] > 0:
                rings_[i] -= 1
                cancelled[i] += 1
            else:
                points_[i] += 1
                counted[i] += 1
        if given.ringed[i]:
            rings_[i] += 1
            totals_[i] += 1
    return Tally(tuple(points_), tuple(rings_), tuple(totals_), tuple(cancelled), tuple(counted))


def reached_five(t: Tally) -> list[int]:
    """The seats whose strokes of this deal took them to five points."""
    return [i for i in range(len(t.points)) if t.counted[i] and t.points[i] >= POINTS_TO_FINISH]


def over_limit(t: Tally, given: Given, limit: int | None) -> list[int]:
    """The seats whose ring of this deal passed the ring limit (SL-11)."""
    if limit is None:
        return []
    return [i for i in range(len(t.totals)) if given.ringed[i] and t.totals[i] > limit]


@dataclass(frozen=True)
class End:
    """The money and the end of the match after one deal (``ended_by`` empty: it goes on)."""

    status: tuple[str, ...]
    paid: tuple[int, ...]
    pot: int
    loser: int | None = None
    winners: tuple[int, ...] = ()
    ended_by: str = ""


def end_loser_pays(status: Sequence[str], reached: list[int], over: list[int], eyes: Sequence[int],
                   dealer: int, stake: int, pot: int) -> End:
    """SL-9/SL-11 under ``loser_pays``: the loser (ring limit first, else the last left) pays everybody."""
    n = len(status)
    status_ = list(status)
    for i in reached:
        status_[i] = FINISHED
    loser: int | None = None
    ended_by = ""
    left = [i for i in range(n) if status_[i] == IN]
    if over:  # SL-11: passing the ring limit loses the match at once
        loser = min(over, key=lambda i: (eyes[i], -distance(n, dealer, i)))
        status_[loser], ended_by = OUT, "SL-11"
    elif len(left) == 1:  # SL-9: the last player left has lost
        loser = left[0]
        status_[loser], ended_by = LOST, "SL-9"
    if loser is None:
        return End(tuple(status_), (0,) * n, pot)
    paid = tuple(-stake * (n - 1) if i == loser else stake for i in range(n))
    return End(tuple(status_), paid, pot, loser=loser, ended_by=ended_by)


def end_pot(status: Sequence[str], reached: list[int], over: list[int], ringed: Sequence[int],
            eyes: Sequence[int], dealer: int, stake: int, pot: int) -> End:
    """SL-10/SL-11 under ``pot``: rings pay into the pot; five points, the last left or all out take it."""
    n = len(status)
    status_ = list(status)
    paid = tuple(-stake if ringed[i] else 0 for i in range(n))  # SL-10: every ring costs one stake
    pot += stake * sum(1 for i in range(n) if ringed[i])
    for i in over:  # SL-11: eliminated, the stakes stay in the pot
        status_[i] = OUT
    left = [i for i in range(n) if status_[i] == IN]
    candidates, ended_by = _pot_candidates(reached, over, left)
    if not candidates:
        return End(tuple(status_), paid, pot)
    best = max(eyes[i] for i in candidates)
    winners = tuple(i for i in candidates if eyes[i] == best)
    for i in reached:
        status_[i] = FINISHED
    return End(tuple(status_), add(paid, share(pot, winners, n, dealer)), 0, winners=winners, ended_by=ended_by)


def _pot_candidates(reached: list[int], over: list[int], left: list[int]) -> tuple[list[int], str]:
    """Who may take the pot and by which rule: five points (SL-10), else the last left or all out (SL-11)."""
    if reached:
        return reached, "SL-10"
    if len(left) == 1:
        return left, "SL-11"
    if not left:
        return over, "SL-11"
    return [], ""


__all__ = [
    "FINISHED", "IN", "LOST", "NEEDED", "OUT", "POINTS_TO_FINISH", "End", "Given", "Tally", "distance",
    "end_loser_pays", "end_pot", "give", "over_limit", "reached_five", "tally",
]
