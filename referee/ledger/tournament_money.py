"""A tournament's money in the ledger: the entry fees owed from the start, the prizes paid out at the finish.

Clubs take the fee at the door, so the fee is owed from the tournament's
creation (issue 43.4): one ``fee`` row per player, written in the write that
seats the player (:func:`charge_fee`), moves the fee from the player's
result into the pot, which is the prize pool (the settlement's
``pot_account``, held by the night's leader). A fee paid at the door is then
an ordinary payment into the pot. At the finish (:func:`finish`) one
``prize`` row per prize winner moves the prize from the pot to the player.
Every row moves money between a player and the pot, so balances plus pots
always sum to zero, and once finished the pot's fees and prizes cancel out.

A tournament finished before this wrote its fee and prize net, one
``prize`` row per player with no payee (the rows add up to zero); those
rows are read as before (:func:`moves`, :func:`prizes_paid`), so an old
night settles and explains exactly as it did.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select

from referee.engine import tournament as draw
from referee.engine.vocab import PaymentKind
from referee.ledger import live, standings
from referee.ledger.inputs import POT_PARTY
from referee.models import Payment, Tournament, db

#: The payment kinds that are part of a night's result (a tournament's money), not payments.
RESULT_KINDS = frozenset({PaymentKind.FEE, PaymentKind.PRIZE})


#: The ``carry_id`` of a tournament's fee and prize rows is this and the tournament's id (an import gives the
#: rows of an old id the new one, :mod:`referee.ledger.imports`).
TAG_PREFIX = "tournament:"


def tag(tourn: Tournament) -> str:
    """The ``carry_id`` of a tournament's fee and prize rows."""
    return f"{TAG_PREFIX}{tourn.id}"


def moves(row: Payment) -> tuple[tuple[str, int], ...]:
    """What a fee or prize row (not void) adds to each party's result; nothing for any other row.

    A fee: the player −fee, the pot +fee. A prize: the player +prize, the
    pot −prize. An old net ``prize`` row (no payee): the player's net only.
    """
    if row.kind == PaymentKind.FEE:
        return (row.payer, -row.amount), (row.payee, row.amount)
    if row.kind == PaymentKind.PRIZE:
        return ((row.payer, row.amount), (row.payee, -row.amount)) if row.payee else ((row.payer, row.amount),)
    return ()


def _rows(tourn: Tournament) -> list[Payment]:
    return list(db.session.scalars(select(Payment).where(
        Payment.night_id == tourn.night_id, Payment.kind.in_(RESULT_KINDS), Payment.carry_id == tag(tourn),
        Payment.void.is_(False)).order_by(Payment.id)))


def is_old(tourn: Tournament, rows: Iterable[Payment]) -> bool:
    """A tournament finished before fees were owed from the start: a fee, and no ``fee`` rows among its ``rows``
    (its net ``prize`` rows, none for a player whose prize was the fee back; :func:`finish` now always writes
    the fees)."""
    return bool(tourn.finished and tourn.entry_fee) and not any(row.kind == PaymentKind.FEE for row in rows)


def charge_fee(tourn: Tournament, name: str) -> Payment | None:
    """Inside a write: ``name`` owes the entry fee into the pool from now on (None: no fee, or already owed).

    Called for every player when the tournament is created, and for a player
    who comes late, in the write that seats them.
    """
    if not tourn.entry_fee or name in _owing(tourn, name):
        return None
    row = _fee(tourn, name)
    live.note(tourn.night_id, "payment")
    return row


def _owing(tourn: Tournament, name: str | None = None) -> set[str]:
    """The players who owe the fee already (of them, ``name``)."""
    query = select(Payment.payer).where(Payment.night_id == tourn.night_id, Payment.kind == PaymentKind.FEE,
                                        Payment.carry_id == tag(tourn), Payment.void.is_(False))
    return set(db.session.scalars(query if name is None else query.where(Payment.payer == name)))


def _fee(tourn: Tournament, name: str) -> Payment:
    row = Payment(night_id=tourn.night_id, kind=PaymentKind.FEE, payer=name, payee=POT_PARTY,
                  amount=tourn.entry_fee, carry_id=tag(tourn))
    db.session.add(row)
    return row


def charge_fees(tourn: Tournament, names: Iterable[str]) -> None:
    """Inside a write: each of ``names`` owes the fee (the creation's players; read once, not per player)."""
    if not tourn.entry_fee:
        return
    owing = _owing(tourn)
    fresh = [name for name in dict.fromkeys(names) if name not in owing]
    for name in fresh:
        _fee(tourn, name)
    if fresh:
        live.note(tourn.night_id, "payment")  # one change of the night for them all (a note is a statement)


def finish(tourn: Tournament) -> None:
    """The tournament ends: the pool (the fees owed) is split by the places, each prize a ``prize`` row.

    Finished first, then counted: the standings of a finished knockout are
    the ones shown from now on (the final's first place is the champion), and
    the prizes are counted from those same rows, so the places shown and the
    prizes agree (a tied final was shown as places 1 and 2 and paid as a
    shared first place, issue 43.1). A player of the standings who owes no
    fee yet (a tournament created before fees were owed from the start) is
    charged it now, so the pool is every player's fee as before.
    """
    tourn.finished = True
    rows = standings.standings(tourn)
    charge_fees(tourn, [row.player for row in rows])
    db.session.flush()
    pool = sum(p.amount for p in _rows(tourn) if p.kind == PaymentKind.FEE)
    won = draw.prizes(rows, pool, tourn.prizes, tourn.seed) if pool else ()
    assert sum(p.amount for p in won) == pool, won  # every unit of the pool is given out (a bug otherwise)
    for prize in won:
        if prize.amount:
            db.session.add(Payment(night_id=tourn.night_id, kind=PaymentKind.PRIZE, payer=prize.player,
                                   payee=POT_PARTY, amount=prize.amount, carry_id=tag(tourn)))
    live.note(tourn.night_id, "tournament")


def prizes_paid(tourn: Tournament, rows: tuple[draw.Standing, ...]) -> tuple[draw.Prize, ...]:
    """The prizes as written when the tournament finished (its ``prize`` rows), best place first.

    Read from the rows, not computed again, so what is shown is what the
    settlement holds even if a round was voided after the end. An old net
    row is the prize less the fee, and a player without one won the fee back.
    """
    if not tourn.finished or not tourn.entry_fee:
        return ()
    found = _rows(tourn)
    won: dict[str, int] = {}
    if is_old(tourn, found):
        nets = {row.payer: row.amount for row in found if row.kind == PaymentKind.PRIZE}
        won = {row.player: nets.get(row.player, 0) + tourn.entry_fee for row in rows}
    else:
        for row in found:
            if row.kind == PaymentKind.PRIZE:
                won[row.payer] = won.get(row.payer, 0) + row.amount
    place = {row.player: row.place for row in rows}
    return tuple(draw.Prize(name, place.get(name, 0), amount)
                 for name, amount in sorted(won.items(), key=lambda item: (place.get(item[0], 0), item[0]))
                 if amount > 0)
