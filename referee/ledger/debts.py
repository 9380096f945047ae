"""Carrying a night's open debts to a later night of its group: opening balances there (the pot carried
for a game's next match is :mod:`.carries`).

Both halves of a carry are Payment rows with one carry id (``carry_out`` here, ``opening`` there), written in one
transaction under both nights' locks and voided together; what is carried is read under those locks, so it is
carried once. Split from :mod:`.payments`, which settles one night.
"""

from __future__ import annotations

import uuid

from sqlalchemy import select

from referee import bounds
from referee.engine import BadInput
from referee.engine.vocab import PaymentKind
from referee.ledger import live, nights, payments, tx
from referee.ledger.idempotency import Idem
from referee.ledger.inputs import POT_PARTY
from referee.ledger.tx import writing
from referee.models import MAX_ID, Night, db


def later_nights(night: Night) -> list[Night]:
    """Nights of the same group and currency created after this one: where debts can go."""
    return list(db.session.scalars(select(Night).where(Night.group_id == night.group_id, Night.id > night.id,
                                                       Night.currency == night.currency).order_by(Night.id)))


def carry_debts(night: Night, to_night_id: object, *, idem: Idem | None = None) -> str:
    """Carry everything still open to a later night of the group (opening balances there).

    Returns the carry's id; both halves are voided together.
    """
    if isinstance(to_night_id, bool) or not isinstance(to_night_id, int) or not 0 < to_night_id <= MAX_ID:
        raise BadInput("to_night", "to_night must be the number of a later night of this group.")
    target = db.session.get(Night, to_night_id)
    if target is None or target.group_id != night.group_id or target.id <= night.id:
        raise BadInput("to_night", "Debts can only be carried to a later night of the same group.")
    if target.currency != night.currency:
        # Kronor are not euros one for one; the group settles across currencies by hand, as anyone would.
        raise BadInput("to_night", "Debts in %(currency)s can only be carried to a night in %(currency)s; "
                                   "night %(night)s is in %(other)s.", currency=night.currency,
                       night=target.id, other=target.currency)
    carry_id = uuid.uuid4().hex
    with writing(idem=idem):
        tx.lock_nights(night.id, target.id)  # what is open is read under the lock: carried once
        current = payments.settlement(night)
        if current.open_matches:
            raise BadInput("to_night", "Close the night's matches before carrying its debts.")
        amounts = {p: a for p, a in current.open.items() if a}
        if not amounts:
            raise BadInput("to_night", "Nothing is open on this night; there is nothing to carry.")
        for held in (night.id, target.id):
            payments.check_room(held, len(amounts), "to_night")
        new_players = [p for p in amounts if p != POT_PARTY and p not in target.player_names]
        if len(target.player_names) + len(new_players) > bounds.NIGHT_PLAYERS:
            raise BadInput("to_night", "Night %(night)s would have more than %(n)s players with those carried "
                                       "to it.", night=target.id, n=bounds.NIGHT_PLAYERS)
        for party, amount in amounts.items():
            payments.add_row(night.id, PaymentKind.CARRY_OUT, party, amount, carry_id=carry_id)
            payments.add_row(target.id, PaymentKind.OPENING, party, amount, carry_id=carry_id)
        for party in new_players:
            nights.seat_player(target, party)
        for night_id in sorted((night.id, target.id)):
            live.note(night_id, "carry")
        tx.store_reply(idem, night)
    return carry_id
