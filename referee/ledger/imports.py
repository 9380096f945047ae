"""The import's one write: a night read from an export file becomes rows.

:mod:`referee.exports` reads the file and checks its shape, names and money;
this action builds the rows through the modules that own them (the night and
its players: :mod:`.nights`; matches and snapshots: :mod:`.matches`; events:
:mod:`.rounds`; payments: :mod:`.payments`) and stores them in one
transaction with the write's idempotency key, as any other write.

Every match is built in memory and replayed (``fold``, the reader's check of
each log: the first bad event raises, naming its match and round) before
anything is written: a refused file stores nothing. Snapshots come from the
replay, never from the file.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date as Date
from datetime import datetime
from typing import Any

from referee.ledger import matches, nights, payments, ratelimit, rounds, tournament_money
from referee.ledger.idempotency import Idem
from referee.ledger.matches import MatchIn
from referee.ledger.ratelimit import Caller
from referee.ledger.tx import store_reply
from referee.models import Match, Night, Tournament, TournamentEntry, TournamentTable, db

#: The carry id of a tournament's own money rows (:func:`referee.ledger.tournament_money.tag`). An imported
#: night's rows of its tournament get the new tournament's id, every other carry a new id of its own.
TOURNAMENT_CARRY = tournament_money.TAG_PREFIX


@dataclass
class PaymentIn:
    """A payment row of an imported night, checked by the reader of the file (:mod:`referee.exports`)."""

    kind: str
    payer: str
    payee: str
    amount: int
    carry_id: str | None
    void: bool
    void_reason: str
    created_at: datetime
    voided_at: datetime | None = None


@dataclass
class EntryIn:
    """A player who came late or left early (``TournamentEntry``), checked by the reader of the file."""

    player: str
    joined_series: int
    left_series: int | None
    created_at: datetime | None


@dataclass
class TournamentIn:
    """A tournament night's tournament, checked by the reader of the file: its row, and its tables as
    (series, table number, the match's number in the night)."""

    name: str
    game: str
    format: str
    series_count: int
    current_series: int
    table_size: int
    advance: int
    stake: int
    options: dict[str, Any]
    entry_fee: int
    prizes: list[int]
    seed: str
    seating: str
    finished: bool
    created_at: datetime | None
    series_minutes: int | None
    series_started_at: datetime | None
    tables: list[tuple[int, int, int]] = field(default_factory=list)
    entries: list[EntryIn] = field(default_factory=list)


def _tournament(night: Night, t_in: TournamentIn, matches_made: Sequence[Match]) -> Tournament:
    """Inside the write: the tournament's row, its tables (new tokens: the model's defaults) and entries."""
    tourn = Tournament(night=night, name=t_in.name, game=t_in.game, format=t_in.format,
                       series_count=t_in.series_count, current_series=t_in.current_series,
                       table_size=t_in.table_size, advance=t_in.advance, stake=t_in.stake, options=t_in.options,
                       entry_fee=t_in.entry_fee, prizes=t_in.prizes, seed=t_in.seed, seating=t_in.seating,
                       finished=t_in.finished, series_minutes=t_in.series_minutes,
                       series_started_at=t_in.series_started_at,
                       **({"created_at": t_in.created_at} if t_in.created_at else {}))
    db.session.add(tourn)
    for series, number, match in t_in.tables:
        db.session.add(TournamentTable(tournament=tourn, series=series, number=number, match=matches_made[match - 1]))
    for entry in t_in.entries:
        db.session.add(TournamentEntry(tournament=tourn, player=entry.player, joined_series=entry.joined_series,
                                       left_series=entry.left_series,
                                       **({"created_at": entry.created_at} if entry.created_at else {})))
    db.session.flush()
    return tourn


def import_night(group_name: str, name: str, currency: str, players: Sequence[Mapping[str, str]], *,
                 date: Date | None, place: str, leader: str, created_at: datetime,
                 matches_in: Sequence[MatchIn], payments_in: Sequence[PaymentIn],
                 fold: Callable[[Match, int], Any], idem: Idem | None = None,
                 caller: Caller | None = None, verify: Callable[[], None] | None = None,
                 tournament: TournamentIn | None = None) -> Night:
    """A new group and night from checked export data; ``fold(match, number)`` replays match ``number``'s log.

    Carried rows get a *new* carry id each (the other half of an opening or
    a carried-out debt lives in another night): keeping the file's id would
    tie the imported row to the original night's half. With ``tournament``
    (the night is a tournament's) it is re-created with new table tokens,
    and the rows of its old id (``tournament:<id>``) get the new
    tournament's, so its prizes are read as its. ``verify()``, called once
    every log has replayed and before anything is written, is the reader's
    last check (the file's hash chain).
    """
    ratelimit.full(caller)  # an import creates a night: refused before the replay when the hour is full
    night = nights.imported_night(group_name, name, currency, players, date=date, place=place, leader=leader,
                                  created_at=created_at)
    logs: list[tuple[Match, list[dict[str, Any]]]] = []
    for number, m_in in enumerate(matches_in, start=1):
        match = matches.draft_match(night, m_in)
        state = fold(match, number)
        logs.append((match, [{"seq": ev.seq, "kind": ev.kind, "payload": ev.payload, "created_at": ev.created_at,
                              "void": ev.void, "void_reason": ev.void_reason, "idempotency_key": None,
                              "deal": ev.deal, "facts": ev.facts, "corrects": ev.corrects,
                              "corrected_by": ev.corrected_by, "voided_at": ev.voided_at} for ev in m_in.events]))
        matches.settle_draft(match, number, m_in, state)
    if verify is not None:
        verify()
    new_carry = {old: uuid.uuid4().hex for old in {p.carry_id for p in payments_in if p.carry_id}}
    if tournament is not None:
        new_carry |= {old: TOURNAMENT_CARRY for old in new_carry if old.startswith(TOURNAMENT_CARRY)}
    rows = [{"kind": p.kind, "payer": p.payer, "payee": p.payee, "amount": p.amount,
             "carry_id": new_carry.get(p.carry_id) if p.carry_id else None, "void": p.void,
             "void_reason": p.void_reason, "created_at": p.created_at, "voided_at": p.voided_at}
            for p in payments_in]

    # Everything is checked and built: the write only inserts. The few rows that need their ids
    # (group, night, players, matches, snapshots) go through the ORM, the many (events, payments) as
    # one Core INSERT each: 20,000 events through the ORM held the writer for seconds.
    with ratelimit.creating(caller, idem):  # counted as a night, inside the write
        db.session.add(night.group)
        db.session.flush()
        if tournament is not None:
            tourn = _tournament(night, tournament, [match for match, _log in logs])
            for row in rows:
                if row["carry_id"] == TOURNAMENT_CARRY:
                    row["carry_id"] = tournament_money.tag(tourn)
        events = [row | {"match_id": match.id} for match, log in logs for row in log]
        if events:
            rounds.insert_events(events)
        payments.insert_payments(night.id, rows)
        store_reply(idem, night)
    return night
