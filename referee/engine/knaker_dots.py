"""Knaker's penalty dots: the offences, what a dot does to a match, and what a player's dots mean (KN-16).

A dot is one kind of round of the match log (:mod:`referee.engine.knaker`
reads it and asks :func:`apply_dot`); its consequences (KN-16.8) are shown
on the phone page and decide who must be listed as disqualified in a game's
result (:func:`disqualified_by`).

Offences (``offence`` -> dots, rule):

==================  =====================  ==========================================
``ordinary``        1                      KN-16 (drawing too late/too many KN-3.4,
                                           looking at a face-down card, ...)
``swap_face_down``  2                      KN-16.2
``turn_face_down``  2                      KN-16.2
``throw_last_card`` 3                      KN-16.2
``denial``          1 more                 KN-16.5
``giffelcheat``     disqualification       KN-16.3
``other``           the leader's 1 to 4    KN-16.2 ("max four dots per cheat")
``spectator``       1 for the NEXT game    KN-16.1
``bad_loser``       1 for the NEXT game    KN-16.9
==================  =====================  ==========================================

Decisions on dots where the digest is silent (the others, disqualification
in a game's result among them, are :mod:`referee.engine.knaker`'s):

- Dots of named offences are fixed by the rules: a ``dots`` value that differs
  is refused citing the offence's rule; only ``other`` takes 1 to 4 (required).
  ``giffelcheat`` takes no ``dots``. ``denial`` needs an earlier in-game offence
  of that player in this game that was not already denied (KN-16.5). Dots are
  not capped at 5 (the 6th and 7th may come from one heavy offence); the count
  is shown as given.
- Carried dots (KN-16.1, KN-16.9) become the player's dots when the next game
  starts, i.e. when the current game's result is entered; the consequences of
  KN-16.8 apply to them as to any dot (5 carried dots: disqualified from the
  start).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from referee.engine import N_, BadInput, RuleViolation, seat_of
from referee.engine.knaker_state import Dot, State

DISQUALIFYING_DOTS = 5


@dataclass(frozen=True)
class Offence:
    """One kind of offence: its default dots (None: disqualification), rule, wording."""

    name: str
    dots: int | None
    rule: str
    label: str
    fixed: bool = True
    next_game: bool = False


OFFENCES: dict[str, Offence] = {o.name: o for o in (
    Offence("ordinary", 1, "KN-16", "an ordinary cheat"),
    Offence("swap_face_down", 2, "KN-16.2", "swapping face-down cards"),
    Offence("turn_face_down", 2, "KN-16.2", "turning a face-down card face up"),
    Offence("throw_last_card", 3, "KN-16.2", "throwing away one's last card"),
    Offence("denial", 1, "KN-16.5", "denying a cheat and then being found guilty"),
    Offence("giffelcheat", None, "KN-16.3", "a giffelcheat"),
    Offence("other", None, "KN-16.2", "another cheat", fixed=False),
    Offence("spectator", 1, "KN-16.1", "a spectator pointing out a cheat", next_game=True),
    Offence("bad_loser", 1, "KN-16.9", "leaving a game after a majority decision", next_game=True),
)}

#: The refusal of a wrong ``dots`` value for each offence with fixed dots (KN-16 .. KN-16.9), one
#: translatable template each; ``entered`` is the value given.
_WRONG_DOTS: dict[str, str] = {
    "ordinary": N_("An ordinary cheat gives 1 dot; you entered %(entered)s (KN-16)."),
    "swap_face_down": N_("Swapping face-down cards gives 2 dots; you entered %(entered)s (KN-16.2)."),
    "turn_face_down": N_("Turning a face-down card face up gives 2 dots; you entered %(entered)s (KN-16.2)."),
    "throw_last_card": N_("Throwing away one's last card gives 3 dots; you entered %(entered)s (KN-16.2)."),
    "denial": N_("Denying a cheat and then being found guilty gives 1 dot; you entered %(entered)s (KN-16.5)."),
    "spectator": N_("A spectator pointing out a cheat gives 1 dot; you entered %(entered)s (KN-16.1)."),
    "bad_loser": N_("Leaving a game after a majority decision gives 1 dot; you entered %(entered)s (KN-16.9)."),
}


def disqualified_by(state: State, seat: int) -> str | None:
    """The rule that disqualified this player in the current game, if any."""
    if state.giffel[seat]:
        return "KN-16.3"
    if state.dots[seat] >= DISQUALIFYING_DOTS:
        return "KN-16.8"
    return None


def apply_dot(state: State, dot: Dot) -> State:
    """The state after one dot (KN-16 .. KN-16.9); the rule a dot breaks."""
    seat = seat_of(state.players, dot.player, "player")
    name = state.players[seat]
    offence = OFFENCES[dot.offence]
    if offence.fixed and offence.dots is None and dot.dots is not None:
        raise RuleViolation(offence.rule, "A giffelcheat means disqualification, not dots; leave dots out "
                                          "(KN-16.3).")
    if offence.fixed and offence.dots is not None and dot.dots is not None and dot.dots != offence.dots:
        raise RuleViolation(offence.rule, _WRONG_DOTS[offence.name], entered=dot.dots)
    if not offence.fixed and dot.dots is not None and not 1 <= dot.dots <= 4:
        raise RuleViolation(offence.rule, "A cheat gives 1 to 4 dots; you entered %(entered)s (KN-16.2).",
                            entered=dot.dots)
    if offence.next_game:
        return replace(state, carried=_bump(state.carried, seat, 1))
    rule = disqualified_by(state, seat)
    if rule is not None:
        if rule == "KN-16.3":
            raise RuleViolation(rule, "%(player)s is already disqualified in this game and gets no more dots in "
                                      "it (KN-16.3).", player=name)
        raise RuleViolation(rule, "%(player)s is already disqualified in this game and gets no more dots in it "
                                  "(KN-16.8).", player=name)
    if offence.name == "giffelcheat":
        return replace(state, giffel=state.giffel[:seat] + (True,) + state.giffel[seat + 1:],
                       offences=_bump(state.offences, seat, 1))
    if offence.name == "denial":
        if state.denials[seat] >= state.offences[seat]:
            raise RuleViolation("KN-16.5", "%(player)s has no cheat in this game that the extra dot for denying it "
                                           "could follow (KN-16.5).", player=name)
        return replace(state, dots=_bump(state.dots, seat, 1), denials=_bump(state.denials, seat, 1))
    amount = dot.dots if dot.dots is not None else offence.dots
    if amount is None:
        raise BadInput("dots", "dots (1 to 4) is required for offence other.")
    return replace(state, dots=_bump(state.dots, seat, amount), offences=_bump(state.offences, seat, 1))


def _bump(values: tuple[int, ...], seat: int, amount: int) -> tuple[int, ...]:
    return values[:seat] + (values[seat] + amount,) + values[seat + 1:]


#: KN-16.8: (consequence id, English text) by the number of dots.
_CONSEQUENCES: tuple[tuple[str, str], ...] = (
    ("none", "No dots."),
    ("warning", "Warning (1st dot)."),
    ("warning", "Warning (2nd dot)."),
    ("no_ladders", "May not lay ladders (KN-12)."),
    ("pick_up_pile", "Picks up the discard pile now (or at the next turn, laying nothing then); no ladders."),
    ("disqualified", "Disqualified: a spectator until the next game."),
)


def consequence(state: State, seat: int) -> dict[str, Any]:
    """The KN-16.8 (or KN-16.3) consequence of a player's current dots, for the phone page."""
    if state.giffel[seat]:
        return {"consequence": "disqualified", "rule": "KN-16.3",
                "text": "Disqualified for a giffelcheat: a spectator until the next game."}
    ident, text = _CONSEQUENCES[min(state.dots[seat], DISQUALIFYING_DOTS)]
    return {"consequence": ident, "rule": None if ident == "none" else "KN-16.8", "text": text}


__all__ = ["DISQUALIFYING_DOTS", "OFFENCES", "Offence", "apply_dot", "consequence", "disqualified_by"]
