"""Why a player's balance is what it is: the lines that made it, in the order things happened (issue 46).

A pure reading, nothing written: each match's events as the fold gives
them (:func:`referee.ledger.fold.steps`, so a void leaves no line and a
corrected round comes out as it now stands), its opening stakes (the first
state's balances), the night's payments and carried debts, and a
tournament's entry fee (from its creation) and prize (once finished). The reasons come from the engine, which
knows which rule moved the money (:mod:`referee.engine.why`).

The lines add up to what the settlement has open for the player, and the
lines of a match or a tournament (stake, round, close, fee, prize) to the
player's result: both are sums of the same rows the settlement sums
(:func:`referee.ledger.payments.settlement`), one line per move. Every page
that shows a player's total shows :attr:`Explanation.balance` or
:attr:`Explanation.result` of this module, so the total and its lines
cannot disagree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select

from referee.engine import N_
from referee.engine import why as engine_why
from referee.engine.vocab import EventKind, PaymentKind
from referee.ledger import by_version, fold, standings, tournament_money
from referee.ledger.inputs import POT_PARTY
from referee.lru import LRU, MiB
from referee.models import Match, Night, Payment, Tournament, db

#: Each match's lines by the version of its snapshot (:func:`_match_lines`).
_KEPT: LRU[tuple[Any, ...], tuple[tuple[str, tuple[tuple[Any, ...], Line]], ...]] = LRU(1024, budget=4 * MiB)

#: The kinds of line, and those that make up the player's result (the rest settle it).
KINDS = ("stake", "round", "close", "fee", "prize", "payment", "carry")
RESULT_KINDS = frozenset({"stake", "round", "close", "fee", "prize"})


@dataclass(frozen=True)
class Line:
    """One move of a player's money: its kind, amount (minor units, + receives) and why."""

    kind: str
    amount: int
    why: tuple[engine_why.Reason, ...]
    match: int | None = None
    game: str | None = None
    round: int | None = None

    @property
    def rule(self) -> str | None:
        """The rule that decided the move (the first part's), if a rule did."""
        return next((r.rule for r in self.why if r.rule), None)


@dataclass(frozen=True)
class Explanation:
    """A party's lines; ``balance`` is their sum, ``result`` the sum of the :data:`RESULT_KINDS` lines."""

    player: str
    lines: tuple[Line, ...]

    @property
    def balance(self) -> int:
        return sum(line.amount for line in self.lines)

    @property
    def result(self) -> int:
        return sum(line.amount for line in self.lines if line.kind in RESULT_KINDS)

    def by_match(self) -> list[tuple[int | None, list[Line]]]:
        """The lines grouped by match in the order of their first line (the sheet's appendix); None: the rest."""
        groups: dict[int | None, list[Line]] = {}
        for line in self.lines:
            groups.setdefault(line.match, []).append(line)
        return list(groups.items())


def explain(night: Night, name: str) -> Explanation | None:
    """``name``'s lines on ``night``, or None when ``name`` is no party of the night's money."""
    return explain_all(night).get(name)


def explain_all(night: Night) -> Mapping[str, Explanation]:
    """Every party's lines (the pot left out: it is the game leader's, not a player's), once per version."""
    return by_version.kept(night, ("explain",), lambda: _work(night))


def _work(night: Night) -> dict[str, Explanation]:
    timed: dict[str, list[tuple[tuple[Any, ...], Line]]] = {name: [] for name in night.player_names}
    for match in night.matches:
        _match_lines(match, timed)
    rows = list(db.session.scalars(select(Payment).where(Payment.night_id == night.id, Payment.void.is_(False))
                                   .order_by(Payment.id)))
    _payment_lines(night, rows, timed)
    _tournament_lines(night, rows, timed)
    return {name: Explanation(name, tuple(line for _key, line in sorted(items, key=lambda item: item[0])))
            for name, items in timed.items() if name != POT_PARTY}


def _at(when: datetime | None, *order: int) -> tuple[Any, ...]:
    """A sort key: the time a thing was written, then its place among things written at once."""
    return (when or datetime.min, *order)


def _add(timed: dict[str, list[tuple[tuple[Any, ...], Line]]], name: str, key: tuple[Any, ...], line: Line) -> None:
    timed.setdefault(name, []).append((key, line))


def _match_lines(match: Match, timed: dict[str, list[tuple[tuple[Any, ...], Line]]]) -> None:
    """A match's lines, kept per version of its snapshot: a night's next version folds again only the
    matches that changed (a club evening's settlement page after each round at one of its tables)."""
    key = (*fold.identity(match), match.created_at, match.snapshot.version, match.snapshot.next_seq)
    found = _KEPT.get(key)
    if found is None:
        mine: dict[str, list[tuple[tuple[Any, ...], Line]]] = {}
        _fold_lines(match, mine)
        found = tuple((name, item) for name, items in mine.items() for item in items)
        _KEPT.put(key, found)
    for name, item in found:
        timed.setdefault(name, []).append(item)


def _fold_lines(match: Match, timed: dict[str, list[tuple[tuple[Any, ...], Line]]]) -> None:
    """A match's opening stakes and every event that moved a player's money, by the fold's steps."""
    steps = fold.steps(match)
    first = steps[0][1] if steps else fold.initial_state(match)
    for seat, name in enumerate(first.players):
        if first.balances[seat]:
            _add(timed, name, _at(match.created_at, 0, match.id, 0),
                 Line("stake", first.balances[seat], engine_why.stake(match.game, first.balances[seat]),
                      match.id, match.game))
    for rnd, before, after in steps:
        if before is after:
            continue  # void: nothing moved
        for seat, name in enumerate(after.players):
            amount = after.balances[seat] - before.balances[seat]
            if not amount:
                continue
            if rnd.kind == EventKind.CLOSE:
                line = Line("close", amount, engine_why.close(match.game, rnd.payload, amount), match.id,
                            match.game, rnd.seq)
            else:
                line = Line("round", amount, engine_why.round_move(match.game, before, after, seat), match.id,
                            match.game, rnd.seq)
            _add(timed, name, _at(rnd.created_at, 0, match.id, rnd.seq), line)


def _payment_lines(night: Night, rows: list[Payment], timed: dict[str, list[tuple[tuple[Any, ...], Line]]]) -> None:
    """Payments (payer +, payee −), debts carried in from an earlier night and carried out to a later one."""
    carries = {row.carry_id for row in rows if row.carry_id and row.kind in (PaymentKind.OPENING,
                                                                             PaymentKind.CARRY_OUT)}
    other = _other_nights(carries, night.id)
    for row in rows:
        key = _at(row.created_at, 1, row.id)
        if row.kind == PaymentKind.PAYMENT:
            _add(timed, row.payer, key, Line("payment", row.amount, (
                engine_why.Reason(N_("paid to %(name)s"), words=(("name", row.payee),)),)))
            _add(timed, row.payee, key, Line("payment", -row.amount, (
                engine_why.Reason(N_("received from %(name)s"), words=(("name", row.payer),)),)))
        elif row.kind == PaymentKind.OPENING:
            _add(timed, row.payer, key, Line("carry", row.amount, (engine_why.Reason(
                N_("carried from night %(night)s"), words=(("night", str(other.get(row.carry_id or "", "?"))),)),)))
        elif row.kind == PaymentKind.CARRY_OUT:
            _add(timed, row.payer, key, Line("carry", -row.amount, (engine_why.Reason(
                N_("carried to night %(night)s"), words=(("night", str(other.get(row.carry_id or "", "?"))),)),)))


def _other_nights(carries: set[str], night_id: int) -> dict[str, int]:
    """Each carry's other night (where a debt came from or went to)."""
    if not carries:
        return {}
    found = db.session.execute(select(Payment.carry_id, Payment.night_id).where(
        Payment.carry_id.in_(carries), Payment.night_id != night_id))
    return {carry: other for carry, other in found if carry}


def _tournament_lines(night: Night, rows: list[Payment], timed: dict[str, list[tuple[tuple[Any, ...], Line]]]) -> None:
    """A tournament's entry fee (owed from its creation) and prize (once finished), a line per row, when written.

    A tournament finished before fees were owed from the start holds them
    net, a row per player: those still give a fee and a prize line each.
    """
    mine = [row for row in rows if row.kind in tournament_money.RESULT_KINDS]
    tourn = db.session.scalar(select(Tournament).where(Tournament.night_id == night.id))
    if tourn is not None and tournament_money.is_old(tourn, mine):
        _old_lines(tourn, mine, timed)
        return
    title = (("tournament", tourn.name if tourn is not None else night.name),)
    places: dict[str, int] | None = None
    for row in mine:
        key = _at(row.created_at, 1, row.id)
        if row.kind == PaymentKind.FEE:
            _add(timed, row.payer, key, Line("fee", -row.amount, (engine_why.Reason(
                N_("entry fee, %(tournament)s"), words=title),)))
            continue
        if places is None:
            places = {} if tourn is None else {
                p.player: p.place for p in tournament_money.prizes_paid(tourn, standings.standings(tourn))}
        reason = (engine_why.Reason(N_("place %(place)s, %(tournament)s"),
                                    words=(("place", str(places[row.payer])), *title)) if row.payer in places
                  else engine_why.Reason(N_("prize, %(tournament)s"), words=title))
        _add(timed, row.payer, key, Line("prize", row.amount, (reason,)))


def _old_lines(tourn: Tournament, mine: list[Payment], timed: dict[str, list[tuple[tuple[Any, ...], Line]]]) -> None:
    """An old finished tournament's fee and prize for each of its players (its ``prize`` rows hold them net)."""
    nets = {row.payer: row.amount for row in mine}
    when = max((row.created_at for row in mine), default=None)
    order = max((row.id for row in mine), default=0)
    if not tourn.entry_fee:
        for name, net in nets.items():  # (no fee, no pool: no rows; kept whole should one ever be written)
            _add(timed, name, _at(when, 1, order), Line("prize", net, (engine_why.Reason(
                N_("prize, %(tournament)s"), words=(("tournament", tourn.name),)),)))
        return
    places = {p.player: p.place for p in tournament_money.prizes_paid(tourn, standings.standings(tourn))}
    players = standings.players(tourn)
    for name in [*players, *(n for n in nets if n not in players)]:
        key = _at(when, 1, order)
        _add(timed, name, key, Line("fee", -tourn.entry_fee, (engine_why.Reason(
            N_("entry fee, %(tournament)s"), words=(("tournament", tourn.name),)),)))
        won = nets.get(name, 0) + tourn.entry_fee
        if won:
            _add(timed, name, key, Line("prize", won, (engine_why.Reason(
                N_("place %(place)s, %(tournament)s"),
                words=(("place", str(places.get(name, "?"))), ("tournament", tourn.name))),)))
