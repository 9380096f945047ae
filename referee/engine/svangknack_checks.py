"""Svängknack: the checks of one round as entered (SK-4, SK-7, SK-8, SK-10, SK-11), step by step.

:func:`referee.engine.svangknack.apply` asks, in this order, who svängar
(:func:`svangare_of`), who plays (:func:`inside_of`) and the tricks each
took (:func:`tricks_of`); every step refuses with its rule and sentence, and
only a round that passes all three moves money (the pot's arithmetic stays
in ``apply``). The decisions where the digest is silent are in
:mod:`referee.engine.svangknack`'s docstring.
"""

from __future__ import annotations

from referee.engine import RuleViolation, seat_of
from referee.engine.svangknack_state import Round, State

#: Tricks in a round: the pot splits into three (SK-8).
TRICKS = 3


def svangare_of(state: State, rnd: Round) -> tuple[int, bool]:
    """Who svängar (SK-4, SK-11): the seat left of the dealer, or the next if the sväng was passed on."""
    players = state.players
    n = len(players)
    left, next_left = (state.dealer + 1) % n, (state.dealer + 2) % n
    sv = left if rnd.svangare is None else seat_of(players, rnd.svangare, "svangare")
    if sv not in (left, next_left):
        raise RuleViolation("SK-11", "The svängare must be %(left)s (left of the dealer) or "
                                     "%(next_left)s if the sväng was passed; not %(svangare)s (SK-11).",
                              left=players[left], next_left=players[next_left], svangare=players[sv])
    passed = sv == next_left
    if passed and rnd.redeal:
        raise RuleViolation("SK-11", "%(svangare)s got the sväng passed on and may not ask for a redeal (SK-11).",
                              svangare=players[sv])
    return sv, passed


def inside_of(state: State, rnd: Round, sv: int, must_play: bool) -> tuple[bool, ...]:
    """Who plays (SK-10), per seat; the svängare always does (SK-8)."""
    players = state.players
    n = len(players)
    if rnd.participants is None:
        if not must_play:
            raise RuleViolation("SK-10", "Enter who knocked: participants is needed unless everyone must play (SK-10).")
        inside = (True,) * n
    else:
        seats = {seat_of(players, p, "participants") for p in rnd.participants}
        inside = tuple(i in seats for i in range(n))
        if must_play and not all(inside):
            missing = ", ".join(players[i] for i in range(n) if not inside[i])
            raise RuleViolation("SK-10", "Everyone must play this round (forced participation); "
                                         "missing: %(missing)s (SK-10).", missing=missing)
    if not inside[sv]:
        raise RuleViolation("SK-8", "The svängare %(svangare)s always plays and must be a participant (SK-8).",
                              svangare=players[sv])
    return inside


def tricks_of(state: State, rnd: Round, sv: int, inside: tuple[bool, ...], alone: bool) -> list[int]:
    """The tricks each seat took (SK-7 alone: all three; SK-8: participants only, adding up to three)."""
    players = state.players
    tricks = [0] * len(players)
    if alone:
        if rnd.tricks is not None and rnd.tricks != ((players[sv], TRICKS),):
            raise RuleViolation("SK-7", "%(svangare)s played alone and takes the whole pot: leave the tricks "
                                        "out or give %(svangare)s all 3 (SK-7).", svangare=players[sv])
        tricks[sv] = TRICKS
        return tricks
    if rnd.tricks is None:
        raise RuleViolation("SK-8", "Enter the tricks each participant took; they must add up to 3 (SK-8).")
    for name, count in rnd.tricks:
        i = seat_of(players, name, "tricks")
        if not inside[i]:
            raise RuleViolation("SK-8", "%(name)s did not knock and cannot hold tricks (SK-8).", name=name)
        if not 0 <= count <= TRICKS:
            raise RuleViolation("SK-8", "Tricks are whole numbers from 0 to 3; %(name)s has %(count)s (SK-8).",
                                  name=name, count=count)
        tricks[i] = count
    total = sum(tricks)
    if total != TRICKS:
        raise RuleViolation("SK-8", "Tricks must add up to 3; you entered %(total)s (SK-8).",
                              total=total)
    return tricks


__all__ = [
    "TRICKS", "inside_of", "svangare_of", "tricks_of",
]
