"""Settling a night: what is still open, and payments (how one is paid: :mod:`.paying`; carried debts:
:mod:`.debts`).

Part of the ledger (:mod:`referee.ledger`, the only code that writes).
A night's *result* is the sum of its matches; what is still *open* is that
result plus opening balances carried in from an earlier night, minus what
was carried out to a later one, corrected by the payments made. Payments and
carries are events: recorded, voidable, never edited. The plan of transfers
is always computed for what is open, so a partial payment leaves exactly the
rest open and the plan stays the smallest possible.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from sqlalchemy import func, insert, select

from referee import bounds
from referee.engine import BadInput
from referee.engine.money import Money
from referee.engine.vocab import PaymentKind
from referee.ledger import by_version, fold, live, tournament_money, tx
from referee.ledger.idempotency import Idem
from referee.ledger.inputs import POT_PARTY, clean_name, night_money
from referee.ledger.settle import Plan, settle, via_leader
from referee.ledger.tx import writing
from referee.models import MAX_ID, Match, Night, NightPlayer, Payment, Tournament, db


@dataclass
class NightSettlement:
    """Everything the settlement page, sheet and API show, in minor units."""

    night: Night
    parties: list[str]                      # players in night order, then the pot if any
    per_match: list[tuple[Match, dict[str, int]]]
    result: dict[str, int]                  # sum over the matches (+ money in pots as a party)
    opening: dict[str, int]                 # carried in from earlier nights
    carried_out: dict[str, int]             # carried away to a later night
    paid: dict[str, int]                    # effect of payments: payer +, payee -
    open: dict[str, int]                    # what each party still receives (+) or pays (-)
    payments: list[Payment] = field(default_factory=list)
    carries_out: list[Payment] = field(default_factory=list)
    open_matches: int = 0
    played: Played | None = field(default=None, repr=False)  # the matches' part, as folded (:func:`with_payment`)
    rows: list[Payment] = field(default_factory=list, repr=False)  # every payment row read, in order
    #: A tournament's entry fees owed and its prizes, per party, the pot (the pool) too (already in ``result``;
    #: shown apart). A tournament finished before fees were owed from the start has its fee and prize net in
    #: ``prizes`` and no ``fees``.
    fees: dict[str, int] = field(default_factory=dict)
    prizes: dict[str, int] = field(default_factory=dict)

    @cached_property
    def plan(self) -> Plan:
        """The fewest transfers that settle what is open, worked out when asked: a payment's check reads
        only what is open (:func:`check_payment`), its reply the plan after it (:func:`with_payment`)."""
        return settle(self.open)

    @property
    def settled(self) -> bool:
        """Nothing left to pay and no match still running, on a night that had money at all.

        A night without matches that only collects debts carried in from an
        earlier night is settled once they are paid (issue 26).
        """
        return (not self.plan.transfers and self.open_matches == 0
                and (bool(self.per_match) or any(self.opening.values())))

    @property
    def carried_to(self) -> list[Night]:
        """The later nights what was open went to (carries not void), oldest first: "settled" by carrying."""
        carries = {row.carry_id for row in self.carries_out if not row.void and row.carry_id}
        if not carries:
            return []
        return list(db.session.scalars(
            select(Night).join(Payment, Payment.night_id == Night.id)
            .where(Payment.kind == "opening", Payment.carry_id.in_(carries)).distinct().order_by(Night.id)))


def _zero(parties: list[str]) -> dict[str, int]:
    return dict.fromkeys(parties, 0)


@dataclass(frozen=True)
class Played:
    """The matches' part of a night's settlement: what each match gave each player, and the pots on the table."""

    per_match: list[tuple[Match, dict[str, int]]]
    result: dict[str, int]
    pots: int
    open_matches: int


def fold_matches(night: Night) -> Played:
    """Each match's balances from its state (the costly part of a settlement: a state per match)."""
    per_match: list[tuple[Match, dict[str, int]]] = []
    result = _zero(night.player_names)
    pots = 0
    open_matches = 0
    for match in night.matches:
        state = fold.state_of(match)
        amounts = dict(zip(state.players, state.balances, strict=True))
        per_match.append((match, amounts))
        for name, amount in amounts.items():
            result[name] = result.get(name, 0) + amount
        pots += state.pot - getattr(state, "carried_in", 0)
        open_matches += 0 if state.finished else 1
    return Played(per_match, result, pots, open_matches)


def settlement(night: Night) -> NightSettlement:
    """The night's settlement as it stands now: its matches' states and its payment rows, read once."""
    rows = list(db.session.scalars(select(Payment).where(Payment.night_id == night.id).order_by(Payment.id)))
    return _settled(night, fold_matches(night), rows)


def with_payment(s: NightSettlement, row: Payment) -> NightSettlement:
    """``s`` with ``row``, a payment just added: what :func:`settlement` would read after it, worked out from
    the matches ``s`` folded and the rows ``s`` read (issue 48.3: a payment's reply is not a second settlement
    under the night's lock)."""
    assert s.played is not None, "a settlement made by settlement()"
    return _settled(s.night, s.played, [*s.rows, row])


def _settled(night: Night, done: Played, rows: list[Payment]) -> NightSettlement:
    """The settlement of the matches' part ``done`` and the payment rows ``rows`` (in the order of their ids)."""
    players = night.player_names
    result = dict(done.result)
    parties = list(players)
    names = set(players)
    for row in rows:
        for name in (row.payer, row.payee):
            if name and name not in names:
                names.add(name)
                parties.append(name)
    if done.pots and POT_PARTY not in names:
        parties.append(POT_PARTY)
    if done.pots:
        result[POT_PARTY] = done.pots
    opening, carried_out, paid = _zero(parties), _zero(parties), _zero(parties)
    fees: dict[str, int] = {}
    prizes: dict[str, int] = {}
    for row in rows:
        if row.void:
            continue
        if row.kind == PaymentKind.PAYMENT:
            paid[row.payer] += row.amount
            paid[row.payee] -= row.amount
        elif row.kind == PaymentKind.OPENING:
            opening[row.payer] += row.amount
        elif row.kind == PaymentKind.CARRY_OUT:
            carried_out[row.payer] += row.amount
        else:  # a tournament's fee or prize: part of the night's result, between a player and the pot
            part = fees if row.kind == PaymentKind.FEE else prizes
            for party, amount in tournament_money.moves(row):
                result[party] = result.get(party, 0) + amount
                part[party] = part.get(party, 0) + amount
    open_ = {p: result.get(p, 0) + opening[p] - carried_out[p] + paid[p] for p in parties}
    return NightSettlement(
        night=night, parties=parties, per_match=done.per_match, result={p: result.get(p, 0) for p in parties},
        opening=opening, carried_out=carried_out, paid=paid, open=open_,
        payments=[r for r in rows if r.kind in (PaymentKind.PAYMENT, PaymentKind.OPENING)],
        carries_out=[r for r in rows if r.kind == PaymentKind.CARRY_OUT], open_matches=done.open_matches,
        played=done, rows=rows, fees=fees, prizes=prizes)


@dataclass(frozen=True)
class Why:
    """The facts one transfer is explained by ("Anna lost 12,00 kr over two matches")."""

    payer: str
    payee: str
    amount: int
    payer_open: int
    payee_open: int
    payer_matches: int
    payee_matches: int


def explain(s: NightSettlement, plan: Plan) -> list[Why]:
    """Each transfer with what its payer owes and its payee is owed, and over how many matches.

    The matches are counted once per party, in one pass (counting them per transfer walked every match
    twice for each of a tournament's hundreds of transfers: 1,000 tables, 233 transfers, half a million
    look-ups).
    """
    played: Counter[str] = Counter()
    for _m, amounts in s.per_match:
        played.update(name for name, amount in amounts.items() if amount)
    return [Why(t.payer, t.payee, t.amount, s.open.get(t.payer, 0), s.open.get(t.payee, 0),
                played[t.payer], played[t.payee]) for t in plan.transfers]


@dataclass(frozen=True)
class Owed:
    """What is open for each party now and the plan's transfers explained: each player's own view shows its part."""

    open: Mapping[str, int]
    transfers: tuple[Why, ...]
    open_matches: int

    def of(self, name: str) -> dict[str, Any]:
        """``name``'s balance, what it pays and what it gets (a player's own view)."""
        return {"balance": self.open.get(name, 0), "pays": [w for w in self.transfers if w.payer == name],
                "gets": [w for w in self.transfers if w.payee == name], "open_matches": self.open_matches}


def owed(night: Night) -> Owed:
    """:class:`Owed` by the settlement as it stands, worked out once per version of the night: every player's
    own view at a club evening fetches it after each change (:mod:`referee.ledger.by_version`)."""
    def work() -> Owed:
        s = settlement(night)
        return Owed(open=dict(s.open), transfers=tuple(explain(s, s.plan)), open_matches=s.open_matches)

    return by_version.kept(night, ("owed",), work)


class NoLeader(Exception):
    """The leader plan asked of a night without a leader (409 naming ``leader``, issue 43.4)."""

    field = "leader"


def leader_of(night: Night) -> str:
    """Who the leader plan goes through: the night's leader (who may not play), or "" for a night without one.

    Never whoever was listed first: money routed through a player who did
    not agree to hold it is how a club evening ends in an argument.
    """
    return night.leader or ""


def leader_plan(s: NightSettlement) -> Plan:
    """Everything through the leader: each party pays or is paid by the leader only (:class:`NoLeader` if none)."""
    leader = leader_of(s.night)
    if not leader:
        raise NoLeader("This night has no leader, so there is no plan through the leader: name one "
                       "(leader) or settle with the fewest payments.")
    return via_leader(s.open, leader)


# --- payments ----------------------------------------------------------------

@dataclass(frozen=True)
class Paid:
    """A payment recorded: its row and the night's settlement with it (what the API answers)."""

    row: Payment
    settlement: NightSettlement


def record_payment(night: Night, payer: object, payee: object, amount: object, *,
                   idem: Idem | None = None) -> Paid:
    """Payer paid payee; fully or partly. Refused when it pays more than is open.

    What is open is read inside the write, under the night's lock
    (:func:`tx.lock_nights`): two phones paying at once are checked one
    after the other, the second against what the first left open. A double
    tap (the same ``idem`` again, also one sent twice at once) pays nothing
    more: it raises :class:`referee.ledger.idempotency.Replayed` with the first answer.

    The night is settled once: the settlement the payment is checked
    against, with the new row added (:func:`with_payment`), is the one
    returned (and rendered into the kept reply).
    """
    money = night_money(night)
    minor = money.parse(amount, "amount")
    with writing(idem=idem):
        tx.lock_nights(night.id)
        current = settlement(night)
        payer, payee = check_payment(current, payer, payee, minor, money)
        check_room(night.id, 1, "amount", held=len(current.rows))  # (every row of the night, just read)
        row = add_row(night.id, PaymentKind.PAYMENT, payer, minor, payee=payee,
                      idem_key=idem.key if idem else None)  # which request made it (the reply is in idempotency)
        db.session.flush()
        live.note(night.id, "payment")
        paid = Paid(row, with_payment(current, row))
        tx.store_reply(idem, paid)
    return paid


def add_row(night_id: int, kind: PaymentKind, payer: str, amount: int, *, payee: str = "",
            carry_id: str | None = None, idem_key: str | None = None) -> Payment:
    """A new Payment row in the session (inside :func:`writing`, after the caller's checks under its locks).

    With :func:`insert_payments` (an import's rows) the only code that
    creates Payment rows: a payment and both halves of a carried debt (:mod:`.debts`).
    """
    row = Payment(night_id=night_id, kind=kind, payer=payer, payee=payee, amount=amount, carry_id=carry_id,
                  idempotency_key=idem_key)
    db.session.add(row)
    return row


def check_room(night_id: int, adding: int, field: str, *, held: int | None = None) -> None:
    """Refuses (``400`` on ``field``) ``adding`` payment rows past :data:`referee.bounds.NIGHT_PAYMENTS`.

    Why: a night's payment rows had no bound (pay, void, pay again), and the
    import of its export refused past the bound, so the app's own export of
    a valid night did not import (issue 43.6). A tournament not finished
    keeps room for its prize rows (one per player at most), so its end is
    never refused. Called inside the write, under the night's lock; ``held``:
    the night's payment rows when the caller has just read them all (a
    payment's settlement), so they are not counted again.
    """
    if held is None:
        held = int(db.session.scalar(select(func.count()).select_from(Payment)
                                     .where(Payment.night_id == night_id)) or 0)
    if db.session.scalar(select(Tournament.id).where(Tournament.night_id == night_id,
                                                     Tournament.finished.is_(False))) is not None:
        held += int(db.session.scalar(select(func.count()).select_from(NightPlayer)
                                      .where(NightPlayer.night_id == night_id)) or 0)
    if held + adding > bounds.NIGHT_PAYMENTS:
        raise BadInput(field, "Night %(night)s holds %(n)s payment rows, the most a night may hold; settle the "
                              "rest on a new night.", night=night_id, n=bounds.NIGHT_PAYMENTS)


def insert_payments(night_id: int, rows: Sequence[Mapping[str, Any]]) -> None:
    """An imported night's payment rows, as one Core INSERT inside :func:`writing` (thousands at once)."""
    if rows:
        db.session.connection().execute(insert(Payment.__table__), [dict(r) | {"night_id": night_id} for r in rows])


def check_payment(current: NightSettlement, payer: object, payee: object, minor: int,
                  money: Money) -> tuple[str, str]:
    """What a payment may pay, decided in this one place: it must follow one of the two plans.

    Returns the payer and the payee, checked to be parties of the night.

    Fewest payments: the payer owes at least ``minor`` and the payee is owed
    at least as much. Everything through the leader (:func:`leader_of`, who
    may not be a player of the night): a pay-in to the leader is bounded
    only by what the payer owes, a pay-out by the leader only by what the
    payee is owed; in between the leader holds the money (their own open
    balance runs ahead). Either way nobody pays more than they owe or
    receives more than they are owed, except the leader as the bank, and the
    night is settled when every balance is met (a leader who is not a
    player then stands at zero again).
    """
    leader = leader_of(current.night)
    parties = set(current.parties) | ({leader} if leader else set())
    if not isinstance(payer, str) or payer not in parties:
        raise BadInput("from", "from must be a player of this night.")
    if not isinstance(payee, str) or payee not in parties:
        raise BadInput("to", "to must be a player of this night.")
    if payer == payee:
        raise BadInput("to", "A player cannot pay themselves.")
    if minor <= 0:
        raise BadInput("amount", "amount must be more than zero.")
    owes, due = -current.open.get(payer, 0), current.open.get(payee, 0)
    fewest = minor <= owes and minor <= due
    through_leader = (payee == leader and minor <= owes) or (payer == leader and minor <= due)
    if not (fewest or through_leader):
        # Not a rule of the game: a slip of the thumb, answered like any bad input.
        raise BadInput("amount", "%(payer)s owes %(owes)s and %(payee)s is owed %(due)s; a payment of "
                                 "%(amount)s would pay more than is open.", payer=payer, payee=payee,
                       owes=money.format(max(owes, 0)), due=money.format(max(due, 0)), amount=money.format(minor))
    return payer, payee


def void_payment(night: Night, payment_id: object, reason: object, *, idem: Idem | None = None) -> Payment:
    """Void a payment, or both halves of a carried debt; nothing is deleted.

    ``idem`` (a queued entry's key, from the phone's offline queue) is kept in
    the void's own transaction, so that a resent entry is known as done.
    """
    if isinstance(payment_id, bool) or not isinstance(payment_id, int) or not 0 < payment_id <= MAX_ID:
        raise BadInput("payment", "payment must be a number.")
    why = "" if reason in (None, "") else clean_name(reason, "reason", 500)
    with writing(idem=idem):
        row = db.session.get(Payment, payment_id)
        if row is None or row.night_id != night.id:
            raise tx.NotFound(f"Night {night.id} has no payment {payment_id}.")
        if row.kind in tournament_money.RESULT_KINDS:
            raise BadInput("payment", "A tournament's fees and prizes are part of its result; they cannot be voided.")
        rows = [row]
        if row.carry_id:
            rows = list(db.session.scalars(select(Payment).where(Payment.carry_id == row.carry_id)))
        tx.lock_nights(*{r.night_id for r in rows})  # a payment checks what is open against these rows
        for r in rows:
            db.session.refresh(r)  # read again under the lock
        if row.void:
            raise BadInput("payment", "Payment %(id)s is already void.", id=payment_id)
        for r in rows:
            r.void = True
            r.void_reason = why
        for night_id in sorted({r.night_id for r in rows}):
            live.note(night_id, "carry" if row.carry_id else "payment")
        tx.store_reply(idem, row)
    return row
