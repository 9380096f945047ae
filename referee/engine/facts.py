"""A round's facts: what the state before it gave the round that its payload does not say (issue 42).

A round's payload says what happened at the table (the tricks, the eyes,
who knocked); who dealt it, who was the svängare and who paid a stake as
dealer come from the state before it, from the seat rotation. A void or a
correction of an earlier round changes that state, so a later round
replayed on it would get another dealer than the one who dealt it. The
ledger therefore stores each round's facts with it (:func:`facts`, read from
the state before the round when it is entered) and replays each round on a
state set to them (:func:`with_facts`): the rotation of the rounds played
stays as it was, only their money may change.

Every game rotates its deal by the state's ``dealer`` (Kul's winner deals
next, KU-4; Schloapfer skips players out, SL-4; Schwimmen turns with the
deck's direction, SW-1; Knaker one seat on): the dealer is the common fact.
Svängknack adds the svängare, whether the sväng was passed on (SK-11) and
who pays the new pot's stake as dealer when somebody goes bet (SK-6: the
next dealer, the seat left of this round's dealer, SK-4).

Facts are names, never seats: they read the same in an export and after a
player was renamed nowhere (names are unique within a night). A stored fact
naming no player of the match is a :class:`BadInput` (a corrupted log).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, TypeVar

from referee.engine import BadInput, MatchState

St = TypeVar("St", bound=MatchState)


def facts(state: MatchState, payload: Mapping[str, Any]) -> dict[str, Any]:
    """The facts every game's state gives a round: who deals it."""
    return {"dealer": state.players[state.dealer]}


def with_facts(state: St, kept: Mapping[str, Any]) -> St:
    """``state`` set to a stored round's facts before that round is replayed (its dealer)."""
    dealer = kept.get("dealer")
    if dealer is None:
        return state
    if not isinstance(dealer, str) or dealer not in state.players:
        raise BadInput("facts", "The stored dealer %(name)s is not a player of this match.",
                       name=repr(str(dealer)[:40]))
    return replace(state, dealer=state.players.index(dealer))


def svangknack_facts(state: MatchState, payload: Mapping[str, Any]) -> dict[str, Any]:
    """Svängknack's: the dealer, the svängare (the payload's, else left of the dealer), whether the sväng
    was passed on (SK-11) and who pays a stake as dealer if somebody goes bet (the next dealer, SK-4, SK-6)."""
    players, n, d = state.players, len(state.players), state.dealer
    left, passed_to = players[(d + 1) % n], players[(d + 2) % n]
    svangare = payload.get("svangare") or left
    return {"dealer": players[d], "svangare": svangare, "passed": svangare == passed_to and svangare != left,
            "stake_dealer": left}
