"""Knaker's pile referee, one combination on the pile: every placement rule, then what it does.

:func:`judge_group` takes the cards laid together (one lay, or a lay and the
lays that extend it, :mod:`referee.engine.knaker_pile`'s decision 2) and
either raises the rule they break or answers a :class:`Group`: the rule
that allows them, the reason, the pile after them, and whether the pile
flipped (KN-4, KN-11.2, KN-17.1) and the player lays again (KN-5, KN-13.2).
The order of the checks is the decisions': the instick (KN-11), the fripple
knäker (KN-10.3), the combination's first cards (7s transparent), then the
effect.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from referee.engine import N_, Msg, RuleViolation, msg
from referee.engine.cards import Card
from referee.engine.knaker_pile_play import PileCard, Play
from referee.engine.knaker_pile_rules import KNAKER_RULE, NO_RUN, Top, check_card, pile_top, shape
from referee.engine.knaker_pile_words import card_word, count_word, how_many, level_word, plural, rank_word

# --- a combination on the pile -------------------------------------------------

@dataclass(frozen=True)
class Group:
    rule: str
    why: Msg
    pile: tuple[PileCard, ...]
    flip: bool
    again: bool


def _check_instick(top: Top, cards: tuple[Card, ...], kind: str, source: str, play: Play) -> None:
    """KN-11 .. KN-11.1 (and KN-6.1, KN-3.2, KN-10.3's handicap)."""
    if source == "face_up":
        raise RuleViolation("KN-6.1", "Face-up cards may never be laid as an instick (KN-6.1).")
    if source == "chance":
        raise RuleViolation("KN-3.2", "A chance is taken in your own turn, never as an instick (KN-3.2).")
    if source != "hand":
        raise RuleViolation("KN-11", "An instick is laid from the hand (KN-11).")
    if "no_insticks" in play.handicaps:
        raise RuleViolation("KN-10.3", "Having picked up a fripple knäker, you may lay no insticks for the "
                                       "rest of the game (KN-10.3).")
    if kind != "set":
        raise RuleViolation("KN-11", "An instick is never a combination such as a ladder or a kåk (KN-11).")
    rank = cards[0].rank
    if rank == "2":
        raise RuleViolation("KN-11.1", "2s may not be laid as an instick (KN-11.1).")
    if rank == "10":
        raise RuleViolation("KN-11.1", "10s may not be laid as an instick (KN-11.1).")
    if rank == "7":
        raise RuleViolation("KN-11.1", "7s may not be laid as an instick (KN-11.1).")
    if top.card is None:
        if top.empty:
            raise RuleViolation("KN-11", "An instick needs a top card of the same rank, and the empty pile has "
                                         "none (KN-11).")
        raise RuleViolation("KN-11", "An instick needs a top card of the same rank, and a pile of only 7s has "
                                     "none (KN-11).")
    if rank != top.rank:
        raise RuleViolation("KN-11", "An instick must be of the same rank as %(top)s, not %(word)s (KN-11).",
                            top=top.describe(), word=rank_word(rank, play.double_deck))


def _check_entry(top: Top, cards: tuple[Card, ...], kind: str, play: Play) -> None:
    """The combination's first cards on the pile (7s transparent: leading 7s and the first ranked card)."""
    first = cards[0]
    if not play.double_deck and top.knaker >= 3 and first.rank == "3" and kind == "set":
        if len(cards) >= 4:
            return  # KN-10.2: four 3s flip (three 3s make a fripple knäker, judged before)
        raise RuleViolation("KN-10.2", "On a triple knäker only a 10, three 3s (making a fripple knäker) or "
                                       "four 3s may be laid, not %(count)s (KN-10.2).", count=count_word(len(cards)))
    lead: list[Card] = []
    for card in cards:
        lead.append(card)
        if card.rank != "7":
            break
    for card in lead:
        try:
            check_card(top, card, play)
        except RuleViolation as v:
            if kind == "set" or v.rule not in ("KN-3", "KN-13"):
                raise
            if kind == "ladder":
                raise RuleViolation("KN-12", "A ladder is judged by its bottom card: %(word)s may not go on "
                                             "%(top)s (KN-12).", word=rank_word(card.rank),
                                    top=top.describe()) from None
            raise RuleViolation("KN-15", "In a kåk the group laid first decides: %(word)s may not go on %(top)s "
                                         "(KN-15).", word=rank_word(card.rank), top=top.describe()) from None


def _new_run_of_four(pile: tuple[PileCard, ...], new_from: int) -> bool:
    """Four or more of an ordinary rank in a row (7s transparent) touching the new cards (KN-12.1)."""
    ranked = [(pc.card.rank, i >= new_from) for i, pc in enumerate(pile) if pc.card.rank != "7"]
    start = 0
    for i in range(1, len(ranked) + 1):
        if i == len(ranked) or ranked[i][0] != ranked[start][0]:
            block = ranked[start:i]
            if block[0][0] not in NO_RUN and len(block) >= 4 and any(new for _, new in block):
                return True
            start = i
    return False


def judge_group(pile: tuple[PileCard, ...], cards: tuple[Card, ...], sources: tuple[str, ...],
                 play: Play, final: bool) -> Group:
    """One combination on the pile: every placement rule, then what it does."""
    dd = play.double_deck
    top = pile_top(pile, dd)
    kind = shape(cards, play)
    if play.instick:
        _check_instick(top, cards, kind, sources[0], play)
    after = pile + tuple(PileCard(c, True) for c in cards)
    first = cards[0]
    if top.fripple:  # KN-10.3: only the last face-down 3
        if final and play.last_card and sources == ("face_down",) and len(cards) == 1 and first.rank == "3":
            return Group("KN-10.3", msg(N_("Your last face-down card is a 3, the only card that may go on a "
                                            "fripple knäker (KN-10.3).")), after, False, False)
        raise RuleViolation("KN-10.3", "Only a player's last face-down card, if it is a 3, may be laid on a "
                                       "fripple knäker; pick up the pile (KN-10.3).")
    if not dd and kind == "set" and first.rank in ("X", "3") and pile_top(after, dd).fripple:
        return Group("KN-10.3", msg(N_("That completes a fripple knäker: the next player must pick it up and "
                                        "may lay no insticks for the rest of the game (KN-10.3).")),
                      after, False, False)
    _check_entry(top, cards, kind, play)
    return _effect(top, cards, kind, pile, after, play)


def _effect(top: Top, cards: tuple[Card, ...], kind: str, pile: tuple[PileCard, ...],
            after: tuple[PileCard, ...], play: Play) -> Group:
    """The legal combination's rule and effects: flip (KN-4), again (KN-5, KN-13.2)."""
    dd = play.double_deck
    first, n = cards[0], len(cards)
    if kind == "ladder":
        rule = _ladder_rule([c.rank for c in cards], after, len(pile))
        template = N_("A ladder whose bottom card may go on %(top)s; it counts as its top card, %(word)s")
        if rule == "KN-12.1":
            template = N_("A ladder whose bottom card may go on %(top)s; it counts as its top card, %(word)s, "
                          "and never flips the pile")
        why = msg(template, rule=rule, top=top.describe(), word=rank_word(cards[-1].rank, dd))
        return Group(rule, why, after, False, False)
    if kind == "kak":
        why = msg(N_("A kåk whose first group may go on %(top)s; it counts as the %(ranks)s on top and never "
                     "flips"), rule="KN-15", top=top.describe(), ranks=plural(cards[-1].rank))
        return Group("KN-15", why, after, False, False)
    rank = first.rank
    run = pile_top(after, dd).run
    reason: Msg
    if rank == "10":
        rule, reason, flip = "KN-4.1", msg(N_("A 10 flips the pile: lay again")), True
    elif rank not in NO_RUN and run >= 4:
        flip = True
        if play.instick:
            rule = "KN-11.2"
            reason = msg(N_("The instick makes %(many)s in a row: the pile flips and it is your turn"),
                         many=how_many(run, rank))
        elif dd:
            rule, reason = "KN-17.1", msg(N_("%(many)s in a row flip the pile: lay again"),
                                          many=how_many(run, rank, cap=True))
        elif top.knaker >= 3:
            rule, reason = "KN-10.2", msg(N_("Four 3s on a triple knäker flip the pile: lay again"))
        else:
            rule, reason = "KN-4.2", msg(N_("That makes %(many)s in a row, so the pile flips: lay again"),
                                         many=how_many(run, rank))
    else:
        flip = False
        rule, reason = _plain_rule(top, first, n, after, play)
    again = flip or rank == "2" or (rank == "7" and top.rank == "2")
    why = replace(reason, rule=rule)
    return Group(rule, why, after if not flip else (), flip, again)


def _plain_rule(top: Top, first: Card, n: int, after: tuple[PileCard, ...], play: Play) -> tuple[str, Msg]:
    """The rule that allows a set that does not flip."""
    dd, rank = play.double_deck, first.rank
    many = how_many(n, rank, dd) if n > 1 else rank_word(rank, dd)
    if play.instick:
        return "KN-11", msg(N_("An instick of %(many)s on %(top)s of the same rank"), many=many, top=top.describe())
    if rank == "2":
        return "KN-5", msg(N_("A 2 may go on anything but a triple or fripple knäker: lay again"))
    if rank == "7":
        if top.rank == "2":
            return "KN-13.2", msg(N_("A 7 on a 2 acts as a 2: lay again"))
        if top.sevens + n >= 4:
            return "KN-13.6", msg(N_("Four 7s in a row do not flip the pile"))
        return "KN-13.1", msg(N_("A 7 may go on %(top)s; it is transparent"), top=top.describe())
    if rank == "X":
        level = pile_top(after, dd).knaker
        if dd:
            rule = f"KN-17.2.{min(level, 6)}"
            if level >= 6:
                return rule, msg(N_("That makes a %(level)s: nothing may be laid on it"),
                                 level=level_word(level, dd))
            return rule, msg(N_("That makes a %(level)s"), level=level_word(level, dd))
        return KNAKER_RULE[min(level, 3)], msg(N_("A knäker may go on anything but a 3; that makes a %(level)s"),
                                                level=level_word(level, dd))
    if top.card is None:
        if top.empty:
            return ("KN-3.1" if n > 1 else "KN-3"), msg(N_("Anything may be laid on an empty pile, so %(many)s"),
                                                        many=many)
        return "KN-13.3", msg(N_("A pile of only 7s counts as empty, so %(many)s may be laid"), many=many)
    if top.rank == "2":
        return "KN-5", msg(N_("Any card may be laid on a 2, so %(many)s"), many=many)
    if top.knaker:
        rule = f"KN-17.2.{min(top.knaker, 6)}" if dd else KNAKER_RULE[min(top.knaker, 3)]
        return rule, msg(N_("A 3 may be laid on a %(level)s"), level=level_word(top.knaker, dd))
    if top.sevens:
        return "KN-13", msg(N_("The 7 is transparent: %(many)s on the %(card)s beneath it, equal or higher"),
                            many=many, card=card_word(top.card.card))
    if n > 1:
        return "KN-3.1", msg(N_("%(many)s laid together on %(top)s: equal or higher"),
                             many=how_many(n, rank, dd, cap=True), top=top.describe())
    return "KN-3", msg(N_("%(word)s may go on %(top)s: equal or higher"), word=rank_word(rank, cap=True),
                       top=top.describe())


def _ladder_rule(ranks: list[str], after: tuple[PileCard, ...], new_from: int) -> str:
    if _new_run_of_four(after, new_from):
        return "KN-12.1"
    if "X" in ranks:
        return "KN-12.4"
    if "9" in ranks and "J" in ranks:
        return "KN-12.3"
    if "7" in ranks or ("6" in ranks and "8" in ranks):
        return "KN-12.2"
    return "KN-12"


__all__ = [
    "Group", "judge_group",
]
