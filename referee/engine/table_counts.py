"""A tournament table's own numbers as they stand now, for the hall (issue 43.3): each game counts its own.

Why not the balances: a tournament is often played for no stake, and then
every balance is zero for the whole series while lives go, marks are taken
and places are played; the hall showed nothing changing at 16 of 22 saved
Schwimmen games. So Schwimmen counts lives (and who swims or is out), Kul
marks, Knaker points and dots, the other games their balances (minor units).

``lead`` orders the players a game's ranking puts level while the match is
still on: a Schwimmen table's ranking has everyone still in at the top until
the end, and the one with the most lives left is the one ahead.
"""

from __future__ import annotations

from referee.engine import MatchState, knaker, kul, schwimmen

#: One player's numbers: name → value (``balance`` in minor units; ``lives``, ``swimming``, ``out``,
#: ``marks``, ``points``, ``dots``).
Count = dict[str, int | bool]


def counts(state: MatchState) -> tuple[Count, ...]:
    """Each seat's numbers, in seat order, by the game the state is of."""
    if isinstance(state, schwimmen.State):
        return tuple({"lives": lives, "swimming": swim, "out": out}
                     for lives, swim, out in zip(state.lives, state.swimming, state.out, strict=True))
    if isinstance(state, kul.State):
        return tuple({"marks": marks, "balance": bal} for marks, bal in zip(state.marks, state.balances, strict=True))
    if isinstance(state, knaker.State):
        return tuple({"points": points, "dots": dots}
                     for points, dots in zip(state.standings, state.dots, strict=True))
    return tuple({"balance": bal} for bal in state.balances)


def lead(state: MatchState) -> tuple[int, ...]:
    """Per seat, more is further ahead among players the ranking puts level (all equal: no order)."""
    if isinstance(state, schwimmen.State):
        return tuple(-1 if out else (0 if swim else 1 + lives)
                     for lives, swim, out in zip(state.lives, state.swimming, state.out, strict=True))
    return (0,) * len(state.players)
