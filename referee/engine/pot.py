"""The pot games' common ending: Svängknack and Kul close the same way (SK-14).

Both keep a pot that can outlive the match: carried in from an earlier
night, and split, awarded or carried on when the leader closes. One place
for that, so that the two games cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TypeVar

from referee.engine import BadInput, MatchState, RuleViolation, check_conserved
from referee.engine.money import add, pay, share
from referee.engine.vocab import CloseHow


@dataclass(frozen=True, kw_only=True)
class PotState(MatchState):
    """A state whose pot may come from, and go to, another night's match."""

    carried_in: int = 0
    carried_out: int | None = None
    closed_how: str | None = None
    closed_to: int | None = None


S = TypeVar("S", bound=PotState)


def conserved(state: PotState) -> None:
    """Money is conserved once the pot carried in is counted as coming from outside."""
    check_conserved(state.balances, state.pot - state.carried_in)


def close(state: S, how: str, to: str | None) -> S:
    """The leader ends the match; a pot is split, awarded or carried (SK-14)."""
    if state.finished:
        raise RuleViolation("SK-14", "The match is already closed (SK-14).")
    n = len(state.players)
    if state.pot == 0:
        nxt = replace(state, finished=True)
    elif how == CloseHow.SPLIT:
        shares = share(state.pot, range(n), n, state.dealer)
        nxt = replace(state, balances=add(state.balances, shares), pot=0, finished=True, closed_how=CloseHow.SPLIT)
    elif how == CloseHow.AWARD:
        if to is None or to not in state.players:
            raise BadInput("to", "Say which player of this match is awarded the pot.")
        who = state.players.index(to)
        nxt = replace(state, balances=pay(state.balances, who, state.pot), pot=0, finished=True,
                      closed_how=CloseHow.AWARD, closed_to=who)
    elif how == CloseHow.CARRY:
        nxt = replace(state, finished=True, carried_out=state.pot, closed_how=CloseHow.CARRY)
    else:
        raise BadInput("pot", "pot must be one of: split, award, carry.")
    conserved(nxt)
    return nxt
