"""Knaker, part B: the pile referee — "may I lay this here?" answered with the rule.

Digest ``rules/knaker.md`` part B (KN-3 ... KN-17.2.6; the 17.2.x numbers are
the seed's: 17.2.1 single kajak ... 17.2.6 hexa kajak). Unlike the game
modules this is not a match: it is one pure question, ``judge(play)``.

This module is the turn (the lays in order, their sources, which error is
reported, the verdict) and the referee's door; each other job has a module
of its own: the request, its records and parser (``knaker_pile_play``), the
rules of one card and of a shape (``knaker_pile_rules``), one combination on
the pile (``knaker_pile_group``) and the texts (``knaker_pile_words``). The
public names of all of them are importable from here.

Request (``POST /api/referee/knaker/play``), read by :func:`parse_play`::

    {"pile": ["5H", "5S", "7C"],          # bottom to top
     "lays": [["5D"]],                     # the turn: lays in order, each laid together
     "source": "hand",                     # hand | face_up | face_down | chance
     "instick": false, "last_card": false, "dots": 0, "double_deck": false,
     "handicaps": []}                      # optional: "no_insticks", "hexa_kajak"

Only ``pile`` and ``lays`` are required; the rest default as shown. Extensions:

- a pile entry may be ``{"card": "KS", "by": "self"}`` (``by``: ``other``, the
  default, or ``self``); who laid a card matters only for the hexa-kajak
  handicap (KN-17.2.6: court cards and aces laid *by others*);
- a lay may be ``{"cards": ["6H", "8D"], "source": "face_up"}`` to give its
  own source (KN-6.1: face-up cards extending a combination begun from the
  hand); a plain list takes the top-level ``source``.

Answer (:func:`verdict_json`): ``legal``, ``rule`` (the rule that makes the
play legal, or the most specific rule it breaks), ``reason`` (one sentence),
``effects`` (``flip`` if the pile was flipped during the turn; the knäker or
kajak level now on top: ``knaker`` ``double_knaker`` ``triple_knaker``
``fripple_knaker`` / ``kajak`` ... ``hexa_kajak``; ``trippelknug`` while that
restriction is in force), ``again`` (the player lays again), ``outcome``
(``out``/``lost`` when ``last_card``, else null) plus ``outcome_rule``,
``lay`` (index of the offending lay), ``steps`` (one per combination laid)
and ``pile`` (the pile after the turn: what :func:`lay` returns).

Decisions where the digest is silent (tested, and in the report):

1. The pile is taken as given (its history is not re-judged), except that it
   may not hold a 10 (a 10 always flips, KN-4.1) and the card counts must fit
   the deck (BadInput).
2. A turn: a lay that does not earn ``again`` (a 2, a 7 on a 2, a flip) ends
   the turn. A following lay is accepted only as an *extension*: together with
   the cards laid since the last ``again`` it must form one valid combination,
   judged as if laid at once (KN-6.1's "(5, 5) from hand then (6, 8)
   face-up", KN-9's right to add cards). Likewise a lay that is illegal on its
   own may be completed by the next lays of the turn (KN-10.3: the plays that
   complete a fripple knäker are allowed "during that move"; a ladder laid in
   two taps). If nothing mends it, the error of the combination is reported
   (for cards that extend nothing: KN-3, or KN-6.1 for face-up cards). Chance
   and face-down cards never extend. A legal turn's ``rule``/``reason`` are
   those of its last combination; ``steps`` has each combination's.
3. Sources move forward within a turn: hand/chance, then face-up (KN-6.1),
   then face-down (KN-6.2). A face-down card is turned and laid alone, one per
   lay (KN-6.2); a chance is exactly one card (KN-3.2), never an instick.
4. 7s are transparent everywhere (KN-13): in same-rank runs (the digest's
   KN-4.2 decision), in knäker/kajak runs (``joker, 7, joker`` is a double
   knäker), for a trippelknug, for the fripple knäker and for the card that
   counts. A 7 only "acts as a 2" (KN-13.2) when the card that counts beneath
   it is a 2. Consequently the API example ``["5H","5S","7C"] + 5D`` makes
   three 5s, not four: no flip (digest over the example).
5. Combinations are checked at their first ranked card: leading 7s of a
   ladder are transparent, so ``(7, 8, 9)`` needs the 8 to go on the pile. A
   ladder or kåk whose first group is too low is refused citing KN-12/KN-15.
6. A set is one rank; cards of two ranks that are not a kåk are refused with
   KN-3.1, three or more ranks are judged as a ladder (KN-12 ... KN-12.4).
   Ladder order: 3 4 5 6 (7) 8 9 J Q K A joker 3 ..., a rank may not come back
   (no full wrap-around); repeats must be adjacent.
7. A kåk (KN-15) is exactly 3+2 or 2+3 cards of two ordinary ranks (no 7s,
   2s, 10s or jokers) laid lower group first (the seed: "the lowest is laid
   first"). Like a ladder it counts as its top group and never flips.
8. Trippelknug (KN-14): the restriction covers every card laid while it is
   in force, i.e. any leading 7s and the first other card of the lay; a red
   king on it makes four kings and flips.
9. Fripple knäker (KN-10.3): the top six ranked cards are three jokers and
   three 3s (single deck only; with a double deck kajaks never combine with
   3s, KN-17.2, and a kajak may never go on a 3). Only a set of jokers or 3s
   completing it is excused from KN-10/KN-10.2. The last face-down 3 laid on
   it is legal, does not flip (even if four 3s end up in a row) and goes out.
10. Nothing can lie on a triple knäker except 10s and three or four 3s: a 2
    or 7 there cites KN-10.2, on a double knäker a 7 cites KN-10.1 (the level
    rule decides; KN-13.1 is cited for legal 7s).
11. Instick (KN-11): exactly one lay, a set of the rank that counts on top
    (beneath 7s), from the hand; jokers may be sticked in on a joker. It must
    also pass every placement rule. Face-up insticks cite KN-6.1.
12. Dots (KN-16.8): from 3 dots no ladders; from 5 dots the player is
    disqualified and may not lay at all (KN-16.8). 4 dots (picking up the pile)
    is table conduct. ``dots`` accepts 0..99 (part A does not cap dots).
13. The hexa-kajak handicap exists only with a double deck (BadInput
    otherwise); it applies to the card that counts (beneath 7s) when that is
    J, Q, K or A laid by another player.
14. Last card (KN-7, KN-13.4): ``lost`` exactly when the last lay earns
    ``again`` (a 2, a 7 on a 2, a flip, an instick flip), else ``out``.
15. ``lay(play)`` takes the pile from the play itself (one input, no chance
    of a mismatch) and marks the cards of the turn as laid by ``self`` when the
    player lays again, else by ``other`` (the next question comes from the
    next player).

Table-only rules (KN-2, KN-3.4, KN-8, KN-9 take-backs, KN-13.4's fist on the
table, KN-16.8's pick-up at the 4th dot) are not modelled.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.engine import N_, Arg, Msg, RuleViolation, as_msg, msg, show
from referee.engine.cards import Card
from referee.engine.knaker_pile_group import Group, judge_group
from referee.engine.knaker_pile_play import (
    HANDICAPS,
    MAX_DOTS,
    SOURCES,
    Lay,
    PileCard,
    Play,
    Step,
    Verdict,
    parse_play,
    pile_json,
    play_json,
)
from referee.engine.knaker_pile_rules import ShapeError, pile_top
from referee.engine.knaker_pile_words import AS_IS, KAJAK_NAME, KNAKER_NAME, LEVEL_WORDS, RULE_TEXT

NAME = "knaker"


# --- the turn ----------------------------------------------------------------

_STAGE = {"hand": 0, "chance": 0, "face_up": 1, "face_down": 2}

#: KN-6.1/KN-6.2: a lay from a source already left behind, by (stage reached, source of the lay).
_SOURCE_GONE: dict[tuple[int, str], str] = {
    (1, "hand"): N_("After laying face-up cards your hand is empty, so you cannot lay from the hand now (KN-6.1)."),
    (1, "chance"): N_("After laying face-up cards your hand is empty, so you cannot lay from the chance now "
                      "(KN-6.1)."),
    (2, "hand"): N_("After laying face-down cards your hand and face-up cards are empty, so you cannot lay from "
                    "the hand now (KN-6.2)."),
    (2, "chance"): N_("After laying face-down cards your hand and face-up cards are empty, so you cannot lay from "
                      "the chance now (KN-6.2)."),
    (2, "face_up"): N_("After laying face-down cards your hand and face-up cards are empty, so you cannot lay from "
                       "the face-up now (KN-6.2)."),
}


def _check_source(lay_: Lay, stage: int, extends: bool) -> int:
    """KN-6.1, KN-6.2, KN-3.2: where the cards of one lay come from."""
    new = _STAGE[lay_.source]
    if new < stage:
        rule = "KN-6.2" if stage == 2 else "KN-6.1"
        raise RuleViolation(rule, _SOURCE_GONE[stage, lay_.source])
    if lay_.source == "face_down" and (len(lay_.cards) != 1 or extends):
        raise RuleViolation("KN-6.2", "Face-down cards are turned and laid one at a time, each as a lay of its "
                                      "own (KN-6.2).")
    if lay_.source == "chance" and (len(lay_.cards) != 1 or extends):
        raise RuleViolation("KN-3.2", "A chance is the one top card of the draw pile, laid instead of cards "
                                      "from the hand (KN-3.2).")
    return new


def judge(play: Play) -> Verdict:
    """Is this turn legal on this pile, by which rule, and what happens?"""
    if play.dots >= 5:
        return _illegal(RuleViolation("KN-16.8", "With %(dots)s dots you are disqualified and may not lay "
                                                 "until the next game (KN-16.8).", dots=play.dots), 0, play)
    if play.instick and len(play.lays) != 1:
        return _illegal(RuleViolation("KN-11", "An instick is a single lay of cards of the top card's rank "
                                               "(KN-11)."), 1, play)
    pile = play.pile
    groups: list[Group] = []
    steps: list[Step] = []
    stage, i, n = 0, 0, len(play.lays)
    while i < n:
        # One combination: lay i, extended by the following lays until one earns "again" (decision 2).
        cards: tuple[Card, ...] = ()
        sources: tuple[str, ...] = ()
        ok: tuple[Group, int] | None = None
        err: tuple[RuleViolation, int] | None = None
        first_err: tuple[RuleViolation, int] | None = None
        for j in range(i, n):
            try:
                stage = _check_source(play.lays[j], stage, j > i)
            except RuleViolation as bad_source:
                if err is None:
                    return _illegal(bad_source, j, play)
                break
            cards, sources = cards + play.lays[j].cards, sources + (play.lays[j].source,)
            try:
                group = judge_group(pile, cards, sources, play, j == n - 1)
            except RuleViolation as broken:
                err = (broken, j)
                first_err = first_err or err
                continue
            ok, err = (group, j), None
            if group.again:
                break
        if err is not None:
            assert first_err is not None
            bad, index = _pick_error(err, first_err, ok, i, play)
            return _illegal(bad, index, play)
        assert ok is not None
        group, end = ok
        groups.append(group)
        steps.append(Step(tuple(range(i, end + 1)), group.rule, group.why, group.flip, group.again))
        pile, i = group.pile, end + 1
    return _legal(play, groups, tuple(steps))


def _pick_error(err: tuple[RuleViolation, int], first_err: tuple[RuleViolation, int],
                ok: tuple[Group, int] | None, start: int, play: Play) -> tuple[RuleViolation, int]:
    """Which error to report for a combination no later lay could mend."""
    v, _ = err
    if not isinstance(v, ShapeError):
        return v, start if ok is None else ok[1] + 1  # a real combination, refused by a rule
    if ok is None:
        return first_err
    index = ok[1] + 1  # a legal lay ended the turn and the next did not extend it
    if play.lays[index].source == "face_up":
        return RuleViolation("KN-6.1", "Face-up cards may only extend the combination begun from the hand, and "
                                       "these do not (KN-6.1)."), index
    return RuleViolation("KN-3", "Your turn ended with the previous lay; you lay again only after a 2, a 7 on "
                                 "a 2 or a flip, or to extend the same combination (KN-3)."), index


def _illegal(v: RuleViolation, index: int, play: Play) -> Verdict:
    why = as_msg(v)
    if play.lays[index].source == "chance" and v.rule != "KN-3.2":  # KN-3.3: a failed chance is picked up
        base = Msg(AS_IS, (Arg("why", msg=why),), strip=v.rule)
        why = msg(N_("%(why)s, so the chance failed: pick up the pile with that card"), rule=v.rule, why=base)
    return Verdict(legal=False, rule=v.rule, why=why, lay_index=index)


def _legal(play: Play, groups: list[Group], steps: tuple[Step, ...]) -> Verdict:
    last = groups[-1]
    flipped = any(g.flip for g in groups)
    top = pile_top(last.pile, play.double_deck)
    effects = ["flip"] if flipped else []
    if top.fripple:
        effects.append("fripple_knaker")
    elif top.knaker:
        effects.append(KAJAK_NAME[min(top.knaker, 6)] if play.double_deck else KNAKER_NAME[min(top.knaker, 3)])
    if top.trippelknug:
        effects.append("trippelknug")
    outcome: str | None = None
    outcome_rule: str | None = None
    if play.last_card:
        outcome = "lost" if last.again else "out"
        outcome_rule = "KN-13.4" if play.lays[-1].cards[-1].rank == "7" else "KN-7"
    old = play.pile if not flipped else ()
    new = tuple(PileCard(pc.card, last.again) for pc in last.pile[len(old):])
    return Verdict(legal=True, rule=last.rule, why=last.why, effects=tuple(effects), again=last.again,
                   outcome=outcome, outcome_rule=outcome_rule, steps=steps, pile=old + new)


def check(play: Play) -> RuleViolation | None:
    """The yes/no twin of :func:`lay`: the broken rule, or None."""
    verdict = judge(play)
    return None if verdict.legal else RuleViolation(verdict.rule, AS_IS, why=verdict.why)


def lay(play: Play) -> tuple[PileCard, ...]:
    """The pile after this legal turn ("Lay it"); empty after a final flip. Raises RuleViolation if illegal."""
    verdict = judge(play)
    if not verdict.legal:
        raise RuleViolation(verdict.rule, AS_IS, why=verdict.why)
    return verdict.pile


def verdict_json(v: Verdict, translate: Callable[[str], str] = str) -> dict[str, Any]:
    """The API answer, its texts in the language of ``translate`` (the asker's gettext; English by default)."""
    return {
        "legal": v.legal,
        "rule": v.rule,
        "rule_text": translate(RULE_TEXT[v.rule]) if v.rule in RULE_TEXT else "",
        "reason": show(v.why, translate),
        "effects": list(v.effects),
        "again": v.again,
        "outcome": v.outcome,
        "outcome_rule": v.outcome_rule,
        "lay": v.lay_index,
        "steps": [{"lays": list(s.lays), "rule": s.rule, "reason": show(s.why, translate), "flip": s.flip,
                   "again": s.again} for s in v.steps],
        "pile": pile_json(v.pile) if v.legal else None,
    }


__all__ = [
    "HANDICAPS", "LEVEL_WORDS", "MAX_DOTS", "NAME", "RULE_TEXT", "SOURCES", "Lay", "PileCard", "Play", "Step",
    "Verdict", "check", "judge", "lay", "parse_play", "pile_json", "play_json", "verdict_json",
]
