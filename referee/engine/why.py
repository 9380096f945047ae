"""Why a player's money moved: the rule and a sentence for each move of a match (issue 46).

The ledger's explanation of a balance (:mod:`referee.ledger.explain`) walks
the fold's steps and asks here, for each player whose balance an event
changed, which rule moved it and how to say so. The engine is the one that
knows: Svängknack's round records its payouts, bets and stakes
(:class:`referee.engine.svangknack.Result`), so its sentence names each part
with its own rule (SK-7, SK-8, SK-9, SK-6); the other games name the rule of
their money (KU-4, SW-9, SL-9/SL-10, KN-L) and whether the player won or
paid, since their states keep no finer record of the move.

A :class:`Reason` keeps its amounts as minor units until it is shown, so the
house formats them with the app's one money filter, in the request's
language (:meth:`Reason.text`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from referee.engine import N_, MatchState, fill, with_rule
from referee.engine.vocab import CloseHow


@dataclass(frozen=True)
class Reason:
    """One part of a move: an English template, its rule, its amounts (minor units) and plain words."""

    template: str
    rule: str | None = None
    money: tuple[tuple[str, int], ...] = ()
    words: tuple[tuple[str, str], ...] = ()

    def text(self, translate: Callable[[str], str], fmt: Callable[[int], str]) -> str:
        """The sentence in the language of ``translate``, amounts through ``fmt`` (the money filter)."""
        params: dict[str, object] = {k: fmt(v) for k, v in self.money}
        params.update(self.words)
        out = fill(translate(self.template), params)
        return with_rule(out, self.rule).rstrip(".") if self.rule else out


def joined(parts: tuple[Reason, ...], translate: Callable[[str], str], fmt: Callable[[int], str]) -> str:
    """A move's parts as one sentence ("went bet …; pays the stake … as the new dealer …")."""
    return "; ".join(p.text(translate, fmt) for p in parts)


#: Each game's rule for its opening stakes, its rounds' money and its close.
_STAKE_RULE = {"svangknack": "SK-5", "kul": "KU-2", "schwimmen": "SW-9", "schloapfer": "SL-10", "knaker": "KN-L"}
_ROUND_RULE = {"kul": "KU-4", "schwimmen": "SW-9", "schloapfer": "SL-9", "knaker": "KN-L"}
_CLOSE_RULE = {"svangknack": "SK-14", "kul": "SK-14", "schwimmen": "SW-9", "schloapfer": "SL-10", "knaker": "KN-L"}


def stake(game: str, amount: int) -> tuple[Reason, ...]:
    """A match's opening stake paid into the pot (``amount`` negative)."""
    return (Reason(N_("pays the opening stake %(amount)s into the pot"), _STAKE_RULE.get(game),
                   (("amount", -amount),)),)


def close(game: str, payload: Mapping[str, Any], amount: int) -> tuple[Reason, ...]:
    """A close that moved the player's money: a pot split among the players or awarded to one."""
    rule = _CLOSE_RULE.get(game)
    if payload.get("pot") == CloseHow.AWARD:
        return (Reason(N_("the match was closed and the pot awarded: %(amount)s"), rule, (("amount", amount),)),)
    if amount >= 0:
        return (Reason(N_("the match was closed and the pot split: %(amount)s"), rule, (("amount", amount),)),)
    return (Reason(N_("pays %(amount)s when the match was closed"), rule, (("amount", -amount),)),)


def round_move(game: str, before: MatchState, after: MatchState, seat: int) -> tuple[Reason, ...]:
    """Why seat ``seat``'s balance went from ``before`` to ``after`` in one round of ``game``."""
    amount = after.balances[seat] - before.balances[seat]
    last = getattr(after, "last", None)
    if game == "svangknack" and last is not None and hasattr(last, "bets"):
        return _svangknack(last, seat) or _plain(game, amount, options=getattr(after, "options", None))
    return _plain(game, amount, options=getattr(after, "options", None))


def _svangknack(res: Any, seat: int) -> tuple[Reason, ...]:
    """A Svängknack round's parts for one seat, from the round's record (SK-6 .. SK-9)."""
    parts: list[Reason] = []
    if res.payouts[seat]:
        if res.alone:
            parts.append(Reason(N_("took the pot alone: %(amount)s"), "SK-7", (("amount", res.payouts[seat]),)))
        else:
            parts.append(Reason(N_("took %(tricks)s of 3 tricks: %(amount)s"), "SK-8",
                                (("amount", res.payouts[seat]),), (("tricks", str(res.tricks[seat])),)))
    if res.bets[seat]:
        parts.append(Reason(N_("went bet with 0 tricks: pays the pot %(amount)s"), "SK-9",
                            (("amount", res.bets[seat]),)))
    if res.stakes[seat]:
        if res.fresh_pot:
            parts.append(Reason(N_("pays the stake %(amount)s into the fresh pot"), "SK-6",
                                (("amount", res.stakes[seat]),)))
        else:
            parts.append(Reason(N_("pays the stake %(amount)s into the pot as the new dealer"), "SK-6",
                                (("amount", res.stakes[seat]),)))
    return tuple(parts)


def _plain(game: str, amount: int, *, options: Any = None) -> tuple[Reason, ...]:
    """A round of a game whose state keeps no finer record: won or paid, under the game's money rule."""
    rule = _ROUND_RULE.get(game)
    if game == "schloapfer" and getattr(options, "scoring", "") == "pot":
        rule = "SL-10"
    if amount > 0:
        return (Reason(N_("won %(amount)s in this round"), rule, (("amount", amount),)),)
    return (Reason(N_("paid %(amount)s in this round"), rule, (("amount", -amount),)),)
