"""Schloapfer: may this deal be entered? The checks of SL-13 (and SL-4/SL-12 for a win without play).

:func:`referee.engine.schloapfer.apply` asks :func:`validate` first and
works out the deal only when it passes (:mod:`referee.engine.schloapfer_deal`);
:func:`check_open` also guards ``close``. Every refusal names its rule and
keeps its sentence (the catalogs key on it).
"""

from __future__ import annotations

from referee.engine import N_, BadInput, RuleViolation
from referee.engine.schloapfer_deal import FINISHED, IN
from referee.engine.schloapfer_eyes import TOTAL_EYES
from referee.engine.schloapfer_state import Round, State

#: "The match is over: ... won the pot", one template per number of winners (1 to 6).
_WON_THE_POT: tuple[str, ...] = (
    N_("The match is over: %(p1)s won the pot; no more deals."),
    N_("The match is over: %(p1)s and %(p2)s won the pot; no more deals."),
    N_("The match is over: %(p1)s and %(p2)s and %(p3)s won the pot; no more deals."),
    N_("The match is over: %(p1)s and %(p2)s and %(p3)s and %(p4)s won the pot; no more deals."),
    N_("The match is over: %(p1)s and %(p2)s and %(p3)s and %(p4)s and %(p5)s won the pot; no more deals."),
    N_("The match is over: %(p1)s and %(p2)s and %(p3)s and %(p4)s and %(p5)s and %(p6)s won the pot; "
       "no more deals."),
)


def ended_message(state: State) -> RuleViolation:
    """The refusal of a deal after the end, citing the rule that ended the match."""
    names = state.players
    if state.ended_by == "SL-10" or (state.ended_by == "SL-11" and state.winners):
        who = {f"p{k}": names[w] for k, w in enumerate(state.winners, start=1)}
        return RuleViolation(state.ended_by, _WON_THE_POT[len(state.winners) - 1], **who)
    if state.ended_by in ("SL-9", "SL-11") and state.loser is not None:
        return RuleViolation(state.ended_by, "The match is over: %(player)s has lost; no more deals.",
                             player=names[state.loser])
    return RuleViolation("SL-9", "The game leader closed this match; no more deals.")


def check_open(state: State) -> None:
    """No deal and no close after the match ended: the rule that ended it (SL-9 .. SL-11)."""
    if state.finished:
        raise ended_message(state)


def validate(state: State, rnd: Round) -> tuple[int, ...]:
    """Every SL-13 check (and SL-4/SL-12 for a win without play); the seats that played."""
    names = state.players
    n = len(names)
    if rnd.players != names or len(rnd.eyes) != n:
        raise BadInput("eyes", "This deal was entered for another match.")
    check_open(state)
    played = tuple(i for i in range(n) if rnd.eyes[i] is not None)
    for i in played:
        if state.status[i] != IN:
            if state.status[i] == FINISHED:
                raise RuleViolation("SL-13", "%(player)s has finished and takes no part in the deals; "
                                             "leave %(player)s out.", player=names[i])
            raise RuleViolation("SL-13", "%(player)s is out and takes no part in the deals; leave %(player)s out.",
                                player=names[i])
    eyes = {i: e for i in played if (e := rnd.eyes[i]) is not None}
    for i, e in eyes.items():
        if not 0 <= e <= TOTAL_EYES:
            raise RuleViolation("SL-13", "Eyes are a whole number from 0 to 152; %(player)s has %(eyes)s.",
                                player=names[i], eyes=e)
        if e in (1, TOTAL_EYES - 1):
            raise RuleViolation("SL-13", "No set of cards is worth %(eyes)s eyes; check %(player)s's count.",
                                eyes=e, player=names[i])
    total = sum(eyes.values())
    if total > TOTAL_EYES:
        raise RuleViolation("SL-13", "Eyes must add up to at most 152; you entered %(total)s.", total=total)
    dealer = names[state.dealer]
    if not state.options.turned_trump and state.dealer not in eyes:
        raise RuleViolation("SL-13", "The dealer (%(dealer)s) must always play; enter %(dealer)s's eyes.",
                            dealer=dealer)
    if len(played) == 1:
        (only,) = played
        if eyes[only] != 0:
            rule = "SL-12" if state.options.turned_trump else "SL-4"
            who = names[only]
            raise RuleViolation(rule, "Everybody else passed, so %(player)s wins without play; "
                                      "enter 0 eyes for %(player)s.", player=who)
    return played


__all__ = [
    "check_open", "ended_message", "validate",
]
