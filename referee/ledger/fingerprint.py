"""The night's fingerprint: a SHA-256 hash chain over its events in the order they were written.

Why: a player who left early, or who holds a printed sheet, should be able
to tell that the night on the leader's phone is the night that was played
(issue 46.2). Every event of the night (a match started, each row of a
match's log whatever its kind: a round, a close, a correction with the
round whose place it takes; a void, a correction's with its correction; a
payment, a carried debt's halves, a tournament's fee-and-prize rows; a
payment's void) is written as canonical JSON (sorted keys, no spaces,
UTF-8) with its time and its match's number in the night, never a database
id, and hashed with the link before it::

    link[0] = GENESIS
    link[k] = sha256(link[k-1] + canonical(event[k]))   (hex)

The fingerprint is the last link. Changing, dropping or moving any event
changes every link after it.

The order is the order of writing, told by the times the rows keep
(``created_at``, and since migration ``f46c2a0e0703`` ``voided_at``), ties
broken by what was written first within one write (a match before its
log, a log row before its void, rounds before payments, then the match's
number and the round's, or the payment's number in the night). It is a
function of the facts an export carries, so an imported night has the
fingerprint of its export. The fallback for a void written before its time
was kept: it is chained right after the event it voids, with ``"at": null``.

What is left out on purpose: database ids and carry ids (an import makes
new ones), tokens, a round's ``deal`` (the trick referee's notes, judged
against the round on import), the night's name, date and place (facts
about the night, not events of it). The chain is tamper-evident, not
signed: whoever rewrites a file can compute a new chain, which then
differs from the fingerprint printed on the sheets and seen by the phones.

This module reads rows and hashes; it writes nothing and imports no Flask.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

from sqlalchemy import select

from referee.ledger import by_version
from referee.models import Match, Night, Payment, Round, db

#: The link before the first event (an empty night's fingerprint).
GENESIS = hashlib.sha256(b"referee-night-chain/1").hexdigest()

# What comes first among events written at the same moment (one write).
_MATCH, _LOG, _LOG_VOID, _PAYMENT, _PAYMENT_VOID = range(5)


@dataclass(frozen=True)
class MatchFact:
    """A match as the chain sees it: ``number`` is its place in the night (1 = first created)."""

    number: int
    game: str
    seats: Sequence[str]
    first_dealer: str
    stake: int
    options: Mapping[str, Any]
    carried_in: int
    at: datetime


@dataclass(frozen=True)
class LogFact:
    """A row of a match's log (any kind: round, close, correction ...) and its void."""

    match: int
    seq: int
    kind: str
    payload: Mapping[str, Any]
    at: datetime
    void: bool = False
    reason: str = ""
    voided_at: datetime | None = None
    corrects: int | None = None  # a correction: the round whose place it takes
    corrected_by: int | None = None  # a corrected round (void): the correction that replaced it


@dataclass(frozen=True)
class PaymentFact:
    """A money row of the night (payment, carry half, fee-and-prize) and its void; ``number`` counts from 1."""

    number: int
    kind: str
    payer: str
    payee: str
    amount: int
    at: datetime
    void: bool = False
    reason: str = ""
    voided_at: datetime | None = None


@dataclass(frozen=True)
class Event:
    """One link of the chain: what it says (``body``, without what only the hash needs), where it comes from
    (``ref``), and its ``link``."""

    body: dict[str, Any]
    ref: tuple[str, int, int]  # ("log" | "log_void", match, seq) or ("payment" | "payment_void", number, 0)
    link: str = ""


@dataclass(frozen=True)
class Chain:
    events: tuple[Event, ...] = field(default_factory=tuple)

    @property
    def fingerprint(self) -> str:
        return self.events[-1].link if self.events else GENESIS

    @cached_property
    def links(self) -> dict[tuple[str, int, int], str]:
        """Each event's link by where it comes from (an export writes it beside the event)."""
        return {ev.ref: ev.link for ev in self.events}


def stamp(moment: datetime | None) -> str | None:
    """A stored time (naive UTC) as the chain writes it: always to the microsecond, with ``Z``."""
    return None if moment is None else moment.isoformat(timespec="microseconds") + "Z"


def canonical(body: Mapping[str, Any]) -> str:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def next_link(prev: str, body: Mapping[str, Any]) -> str:
    return hashlib.sha256((prev + canonical(body)).encode("utf-8")).hexdigest()


def part_link(fingerprint: str, part: Mapping[str, Any]) -> str:
    """The link of a part of an export that is not an event (a tournament's tables, seats and prizes):
    its canonical JSON chained to the night's fingerprint, so neither can be changed without the other
    (issue 43.6). It is not in the chain: the night's fingerprint stays the one its sheets printed."""
    return next_link(fingerprint, {"part": part})


def chain(matches: Iterable[MatchFact], log: Iterable[LogFact], payments: Iterable[PaymentFact]) -> Chain:
    """The night's events in the order they were written, each with its link."""
    keyed: list[tuple[tuple[datetime, int, int, int], dict[str, Any], tuple[str, int, int]]] = []
    for m in matches:
        keyed.append(((m.at, _MATCH, m.number, 0), {
            "event": "match", "match": m.number, "game": m.game, "seats": list(m.seats),
            "first_dealer": m.first_dealer, "stake": m.stake, "options": dict(m.options),
            "carried_in": m.carried_in, "at": stamp(m.at)}, ("match", m.number, 0)))
    for r in log:
        keyed.append(((r.at, _LOG, r.match, r.seq), {
            "event": r.kind, "match": r.match, "seq": r.seq, "payload": dict(r.payload), "at": stamp(r.at)}
            | ({"corrects": r.corrects} if r.corrects is not None else {}), ("log", r.match, r.seq)))
        if r.void:
            keyed.append(((r.voided_at or r.at, _LOG_VOID, r.match, r.seq), {
                "event": "void", "match": r.match, "seq": r.seq, "reason": r.reason, "at": stamp(r.voided_at)}
                | ({"corrected_by": r.corrected_by} if r.corrected_by is not None else {}),
                ("log_void", r.match, r.seq)))
    for p in payments:
        keyed.append(((p.at, _PAYMENT, p.number, 0), {
            "event": p.kind, "payment": p.number, "payer": p.payer, "payee": p.payee, "amount": p.amount,
            "at": stamp(p.at)}, ("payment", p.number, 0)))
        if p.void:
            keyed.append(((p.voided_at or p.at, _PAYMENT_VOID, p.number, 0), {
                "event": "void", "payment": p.number, "reason": p.reason, "at": stamp(p.voided_at)},
                ("payment_void", p.number, 0)))
    keyed.sort(key=lambda item: item[0])
    out = []
    link = GENESIS
    for _key, body, ref in keyed:
        link = next_link(link, body)
        # Kept without what only the hash needs (a round's payload, a match's seats and options): a chain of
        # 20,000 rounds stays light in the per-version cache, and what changed is told without them.
        out.append(Event({k: v for k, v in body.items() if k not in _HASHED_ONLY}, ref, link))
    return Chain(tuple(out))


#: The parts of an event's body the chain hashes but does not keep.
_HASHED_ONLY = frozenset({"payload", "seats", "options"})


def night_chain(night: Night) -> Chain:
    """The stored night's chain, worked out once per version of the night (:mod:`.by_version`)."""
    return by_version.kept(night, ("fingerprint",), lambda: _read_chain(night))


def fingerprint(night: Night) -> str:
    return night_chain(night).fingerprint


def _read_chain(night: Night) -> Chain:
    """The chain from the rows: two SELECTs of plain columns (no objects), whatever the night's size."""
    number = {m.id: k for k, m in enumerate(night.matches, start=1)}
    matches = [MatchFact(number[m.id], m.game, m.seats, m.first_dealer, m.stake, m.options, m.carried_in,
                         m.created_at) for m in night.matches]
    rows = db.session.execute(
        select(Round.match_id, Round.seq, Round.kind, Round.payload, Round.created_at, Round.void,
               Round.void_reason, Round.voided_at, Round.corrects, Round.corrected_by)
        .join(Match, Match.id == Round.match_id).where(Match.night_id == night.id))
    log = [LogFact(number[r.match_id], r.seq, r.kind, r.payload, r.created_at, r.void, r.void_reason or "",
                   r.voided_at, r.corrects, r.corrected_by) for r in rows]
    pays = db.session.execute(
        select(Payment.kind, Payment.payer, Payment.payee, Payment.amount, Payment.created_at, Payment.void,
               Payment.void_reason, Payment.voided_at).where(Payment.night_id == night.id).order_by(Payment.id))
    payments = [PaymentFact(k, p.kind, p.payer, p.payee, p.amount, p.created_at, p.void, p.void_reason or "",
                            p.voided_at) for k, p in enumerate(pays, start=1)]
    return chain(matches, log, payments)


@dataclass(frozen=True)
class Since:
    """What a phone that saw the night at ``seen`` events, ending in link ``link``, has not seen.

    ``known`` is False when the chain no longer passes through what the phone
    saw (an earlier event differs: a restored backup, a rewritten record); the
    phone is then told so, and shown the events after the point where it
    stood all the same.
    """

    known: bool
    events: tuple[Event, ...]
    first: int  # the number (from 1) of the first event listed


def since(chain: Chain, seen: int, link: str) -> Since:
    seen = max(0, min(seen, len(chain.events)))
    at = chain.events[seen - 1].link if seen else GENESIS
    return Since(at == link, chain.events[seen:], seen + 1)
