"""Carried pots (SK-14): the pot a closed match left for the group's next night.

A carry is read when a match is created (:func:`open_carry`) and guarded when
a round of the match that carried it is voided (:func:`_check_carry_kept`).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from referee.engine import RuleViolation
from referee.engine.spec import spec
from referee.engine.vocab import MatchStatus
from referee.ledger import fold
from referee.models import Match, Night, db


def open_carry(night: Night, game: str) -> tuple[int, int] | None:
    """The pot an earlier night of the group carried for this game, not yet taken.

    Returns ``(match id, amount)`` of the oldest such pot. SK-14: a carried
    pot is "kept as an open pot that the next night's match of the same group
    starts with". Only a night in the pot's own currency takes it: a pot of
    kronor waits for the group's next night in kronor (issue 26).
    """
    if not spec(game).can_carry:
        return None
    taken = select(Match.carried_from_id).where(Match.carried_from_id.is_not(None))
    candidates = db.session.scalars(
        select(Match).join(Night).where(Night.group_id == night.group_id, Night.id != night.id,
                                        Night.currency == night.currency,
                                        Match.game == game, Match.status == MatchStatus.CLOSED,
                                        Match.id.not_in(taken)).order_by(Match.id))
    for match in candidates:
        amount = fold.carried_out(match)
        if amount:
            return match.id, amount
    return None



def _check_carry_kept(match: Match, old: Any, new: Any) -> None:
    """A pot a later night already took (SK-14 carry) cannot change or reopen here."""
    taker = db.session.scalar(select(Match.id).where(Match.carried_from_id == match.id))
    if taker is None:
        return
    if (old.finished, getattr(old, "carried_out", None)) != (new.finished, getattr(new, "carried_out", None)):
        raise RuleViolation("SK-14", "The pot of this match was carried to match %(taker)s on a later night; "
                                     "this void would change or reopen that pot (SK-14).", taker=taker)
