"""The ledger's tables (SQLAlchemy 2 typed models).

Events are the truth: a :class:`Round` row is never changed except for its
void flag and reason. A match's state is the engine's fold over its non-void
events; :class:`Snapshot` caches the latest fold so a page need not replay a
long match, and its ``version`` is the optimistic lock that turns two phones
writing at once into one success and one clear conflict.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, date, datetime
from typing import Any

from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import JSON, BigInteger, ForeignKey, Index, Integer, String, Text, UniqueConstraint, event
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


class Base(DeclarativeBase):
    pass


#: Objects stay loaded after a commit: a request that has just written reads
#: what it wrote instead of loading it again.
db = SQLAlchemy(model_class=Base, session_options={"expire_on_commit": False})


#: The largest id (and round number) the tables hold: they are 32-bit INTEGER
#: columns on PostgreSQL. A larger number in a URL is a 404, in a body a 400.
MAX_ID = 2**31 - 1


def new_token() -> str:
    """An unguessable token: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


def token_key(token: str) -> str:
    """What a token is looked up by: its SHA-256, never the token itself.

    A database index compares strings byte by byte, so looking up the token
    itself would let response times tell a guesser how many leading
    characters were right. The hash of a guess says nothing about the real
    token; the token is then compared in constant time as well.
    """
    return hashlib.sha256(token.encode()).hexdigest()


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Group(db.Model):  # type: ignore[name-defined,misc]
    """The circle of people who meet for game nights; players belong to it."""

    __tablename__ = "groups"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    token: Mapped[str] = mapped_column(String(64), unique=True, default=new_token)
    #: ``token_key(token)``, filled in on insert (see :func:`_fill_token_keys`).
    token_key: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=now)

    players: Mapped[list[Player]] = relationship(back_populates="group", order_by="Player.id")
    nights: Mapped[list[Night]] = relationship(back_populates="group", order_by="Night.id")


class Player(db.Model):  # type: ignore[name-defined,misc]
    """A person, the same from night to night within a group."""

    __tablename__ = "players"
    __table_args__ = (UniqueConstraint("group_id", "name", name="uq_player_name"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    group_id: Mapped[int] = mapped_column(ForeignKey("groups.id"), index=True)
    name: Mapped[str] = mapped_column(String(40))
    #: Payment details, so the sheet can print a payment QR code per transfer.
    swish: Mapped[str] = mapped_column(String(20), default="")
    iban: Mapped[str] = mapped_column(String(34), default="")
    account_holder: Mapped[str] = mapped_column(String(70), default="")

    group: Mapped[Group] = relationship(back_populates="players")


class Night(db.Model):  # type: ignore[name-defined,misc]
    """One game night: its matches, its players, its settlement."""

    __tablename__ = "nights"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    group_id: Mapped[int] = mapped_column(ForeignKey("groups.id"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    date: Mapped[date | None] = mapped_column(default=None)
    place: Mapped[str] = mapped_column(String(100), default="")
    currency: Mapped[str] = mapped_column(String(3))
    #: The game leader (a player's name or anyone's): printed on the sheet,
    #: the hub of the "everything through the leader" plan.
    leader: Mapped[str] = mapped_column(String(40), default="")
    edit_token: Mapped[str] = mapped_column(String(64), unique=True)
    view_token: Mapped[str] = mapped_column(String(64), unique=True)
    #: The tokens' ``token_key``s, which the links are looked up by.
    edit_key: Mapped[str] = mapped_column(String(64), unique=True)
    view_key: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=now)
    #: Grows by one with every write to the night, in the write's transaction (the live stream's
    #: event id; see ``referee/ledger/live.py``).
    live_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: The language the night was created in ("sv", "de", "en"): its sheets' language for a reader who asks
    #: for none (a PDF app sends no Accept-Language). None for a night from before it was kept: English.
    language: Mapped[str | None] = mapped_column(String(5), default=None)

    group: Mapped[Group] = relationship(back_populates="nights")
    seats: Mapped[list[NightPlayer]] = relationship(order_by="NightPlayer.position",
                                                    cascade="all, delete-orphan")
    matches: Mapped[list[Match]] = relationship(back_populates="night", order_by="Match.id")

    @property
    def player_names(self) -> list[str]:
        return [seat.player.name for seat in self.seats]


class NightPlayer(db.Model):  # type: ignore[name-defined,misc]
    """Who takes part in a night, in the order they were entered."""

    __tablename__ = "night_players"
    night_id: Mapped[int] = mapped_column(ForeignKey("nights.id"), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer)

    #: Loaded with the seat (a join): ``Night.player_names`` of a club evening's 200 players made
    #: 200 lazy SELECTs per call, most of a player's own view's time (bench/tournament.py).
    player: Mapped[Player] = relationship(lazy="joined", innerjoin=True)


class Match(db.Model):  # type: ignore[name-defined,misc]
    """One match of one game; its options never change after creation."""

    __tablename__ = "matches"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    night_id: Mapped[int] = mapped_column(ForeignKey("nights.id"), index=True)
    game: Mapped[str] = mapped_column(String(20))
    seats: Mapped[list[str]] = mapped_column(JSON)
    first_dealer: Mapped[str] = mapped_column(String(40))
    stake: Mapped[int] = mapped_column(BigInteger)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(10), default="open")
    created_at: Mapped[datetime] = mapped_column(default=now)
    #: A pot carried from an earlier night's match (SK-14 ``carry``), taken once.
    carried_from_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id"), unique=True, default=None)
    carried_in: Mapped[int] = mapped_column(BigInteger, default=0)

    night: Mapped[Night] = relationship(back_populates="matches")
    rounds: Mapped[list[Round]] = relationship(back_populates="match", order_by="Round.seq")
    #: Loaded with the match (a join): every reader of a match reads its state. ``night.matches`` of a
    #: club evening made one SELECT per table for it, on every fetch of a player's own view.
    snapshot: Mapped[Snapshot] = relationship(uselist=False, back_populates="match", lazy="joined")


class Round(db.Model):  # type: ignore[name-defined,misc]
    """An immutable event of a match: a round (``kind`` "round") or a close.

    ``(match_id, seq)`` is unique: of two phones that submit round 7 at once,
    the database accepts one.
    """

    __tablename__ = "rounds"
    __table_args__ = (
        UniqueConstraint("match_id", "seq", name="uq_round_seq"),
        UniqueConstraint("match_id", "idempotency_key", name="uq_round_idem"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(10), default="round")
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(default=now)
    void: Mapped[bool] = mapped_column(default=False)
    void_reason: Mapped[str] = mapped_column(String(500), default="")
    #: When the round was voided (set with ``void``, :func:`_void_time`); None for a valid round and for a
    #: void written before the time was kept (the fingerprint's fallback, ``referee/ledger/fingerprint.py``).
    voided_at: Mapped[datetime | None] = mapped_column(nullable=True, default=None)
    idempotency_key: Mapped[str | None] = mapped_column(String(100), default=None)
    #: The trick referee's log of the deal this round was entered from (trump, players, leader,
    #: tricks, winners), or None. Written with the round, never changed; replay ignores it.
    deal: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True, default=None)
    #: What the state before the round gave it beyond its payload (who dealt, the svängare, who passed:
    #: :mod:`referee.engine.facts`), written with the round; replay sets the state to them. None: an old row
    #: not yet given its facts (:mod:`referee.ledger.facts`).
    facts: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True, default=None)
    #: A correction: the number of the round whose place in the order of play it takes (issue 42).
    corrects: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    #: A corrected round (also void): the number of the correction that replaced it.
    corrected_by: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)

    match: Mapped[Match] = relationship(back_populates="rounds")


class Snapshot(db.Model):  # type: ignore[name-defined,misc]
    """The cached fold of a match's events, and its optimistic lock.

    ``version`` grows with every change to the match (round, void, close);
    a write updates the row only ``WHERE version = <the version it read>``.
    """

    __tablename__ = "snapshots"
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, default=0)
    next_seq: Mapped[int] = mapped_column(Integer, default=1)
    state: Mapped[dict[str, Any]] = mapped_column(JSON)

    match: Mapped[Match] = relationship(back_populates="snapshot")


class FoldCheckpoint(db.Model):  # type: ignore[name-defined,misc]
    """The fold of a match's log up to a round number, kept so a cold page need not fold the whole log.

    Written by :mod:`referee.ledger.fold` (the one fold) in the transaction that
    stores the round numbered ``seq`` when ``seq`` is a multiple of its
    ``CHECKPOINT_EVERY``; a void of round ``v`` deletes those with ``seq >= v``
    and writes them again from the nearest one before it. ``state`` is the
    engine state after every non-void event numbered ``<= seq``, in the
    engine's JSON form (``records.dump``); ``segment`` the running balances,
    pots and finished Knaker games of the events numbered ``since < seq' <= seq``
    (the chart's points), so a cold fold reads the checkpoints and folds only
    the events after the last one.
    """

    __tablename__ = "fold_checkpoints"
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    since: Mapped[int] = mapped_column(Integer)
    events: Mapped[int] = mapped_column(Integer)
    state: Mapped[dict[str, Any]] = mapped_column(JSON)
    segment: Mapped[dict[str, Any]] = mapped_column(JSON)


class IdempotentReply(db.Model):  # type: ignore[name-defined,misc]
    """The first answer to an API write sent with an ``Idempotency-Key``.

    The same key sent again (a retry after a lost answer, a double tap) gets
    this answer back and changes nothing.
    """

    __tablename__ = "idempotent_replies"
    __table_args__ = (UniqueConstraint("scope", "key", name="uq_idem"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    scope: Mapped[str] = mapped_column(String(200))
    key: Mapped[str] = mapped_column(String(100))
    status: Mapped[int] = mapped_column(Integer)
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=now)


class Payment(db.Model):  # type: ignore[name-defined,misc]
    """Money that changed hands after a night: an event like a round.

    Recorded, voidable (flag and reason), never edited. ``kind`` is
    ``"payment"`` (payer paid payee), or the two halves of a debt carried to a
    later night of the group: ``"carry_out"`` on the night it leaves (it
    settles the player's open balance there) and ``"opening"`` on the night
    it arrives (an opening balance), sharing a ``carry_id``.
    """

    __tablename__ = "payments"
    __table_args__ = (UniqueConstraint("night_id", "idempotency_key", name="uq_payment_idem"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    night_id: Mapped[int] = mapped_column(ForeignKey("nights.id"), index=True)
    kind: Mapped[str] = mapped_column(String(10), default="payment")
    payer: Mapped[str] = mapped_column(String(40), default="")
    payee: Mapped[str] = mapped_column(String(40), default="")
    amount: Mapped[int] = mapped_column(BigInteger)
    carry_id: Mapped[str | None] = mapped_column(String(40), default=None, index=True)
    created_at: Mapped[datetime] = mapped_column(default=now)
    void: Mapped[bool] = mapped_column(default=False)
    void_reason: Mapped[str] = mapped_column(String(500), default="")
    #: When the row was voided (as ``Round.voided_at``).
    voided_at: Mapped[datetime | None] = mapped_column(nullable=True, default=None)
    idempotency_key: Mapped[str | None] = mapped_column(String(100), default=None)


class NightChange(db.Model):  # type: ignore[name-defined,misc]
    """One write to a night, as the live stream tells it (``version`` is the night's ``live_version``).

    Kept so that a phone that lost its connection gets exactly what it missed
    (``Last-Event-ID``), and so that SQLite servers can find new writes with
    one cheap query on the primary key.
    """

    __tablename__ = "night_changes"
    #: ``ix_night_changes_wide``: the night's last write of no match in one index seek
    #: (:func:`referee.ledger.live.wide_version`, the key of a guest's copy of a match page).
    __table_args__ = (UniqueConstraint("night_id", "version", name="uq_night_change"),
                      Index("ix_night_changes_wide", "night_id", "match_id", "version"))
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    night_id: Mapped[int] = mapped_column(ForeignKey("nights.id"), index=True)
    version: Mapped[int] = mapped_column(Integer)
    match_id: Mapped[int | None] = mapped_column(Integer, default=None)
    what: Mapped[str] = mapped_column(String(10))
    round_no: Mapped[int | None] = mapped_column(Integer, default=None)
    created_at: Mapped[datetime] = mapped_column(default=now)


class TokenFailure(db.Model):  # type: ignore[name-defined,misc]
    """Wrong tokens from one client address in one time bucket (the limiter of ``referee/ledger/ratelimit.py``).

    In the database so that every worker of every app server counts the same
    failures; one row per address and bucket, purged once out of the window.
    Holds the address and a count, never the token that was tried.
    """

    __tablename__ = "token_failures"
    address: Mapped[str] = mapped_column(String(64), primary_key=True)
    bucket: Mapped[int] = mapped_column(BigInteger, primary_key=True, index=True)
    count: Mapped[int] = mapped_column(Integer, default=0)


class Tournament(db.Model):  # type: ignore[name-defined,misc]
    """A club evening over several tables (issue 30): one night whose matches are its tables.

    The night holds the ledger (rounds, settlement, live stream); this row
    holds what the draw and the standings need: the game, format, seed and
    how far the tournament has come.
    """

    __tablename__ = "tournaments"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    night_id: Mapped[int] = mapped_column(ForeignKey("nights.id"), unique=True)
    name: Mapped[str] = mapped_column(String(100))
    game: Mapped[str] = mapped_column(String(20))
    format: Mapped[str] = mapped_column(String(10), default="series")
    #: Series to play (series format; a knockout's count follows from its plan).
    series_count: Mapped[int] = mapped_column(Integer, default=1)
    current_series: Mapped[int] = mapped_column(Integer, default=1)
    table_size: Mapped[int] = mapped_column(Integer)
    advance: Mapped[int] = mapped_column(Integer, default=1)
    stake: Mapped[int] = mapped_column(BigInteger, default=0)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    entry_fee: Mapped[int] = mapped_column(BigInteger, default=0)
    #: Whole percentages of the prize pool, best place first.
    prizes: Mapped[list[int]] = mapped_column(JSON)
    seed: Mapped[str] = mapped_column(String(100))
    #: How each series is seated: ``draw``, ``standings`` (series 2 on) or ``rating`` (API.md "Tournaments").
    seating: Mapped[str] = mapped_column(String(10), default="draw", server_default="draw")
    finished: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(default=now)
    #: A series' time limit in minutes (``None``: none); it decides nothing, the hall counts down to
    #: ``series_started_at`` plus it and shows a table past it as late (API.md ``series_minutes``).
    series_minutes: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: When the current series was drawn (naive UTC), for the view's ``ends_at``.
    series_started_at: Mapped[datetime | None] = mapped_column(nullable=True)

    night: Mapped[Night] = relationship()
    tables: Mapped[list[TournamentTable]] = relationship(
        back_populates="tournament", order_by="(TournamentTable.series, TournamentTable.number)")
    entries: Mapped[list[TournamentEntry]] = relationship(
        back_populates="tournament", order_by="TournamentEntry.id")


class TournamentEntry(db.Model):  # type: ignore[name-defined,misc]
    """A player who came late or left early (issue 43.2); the players drawn at creation have no row.

    ``joined_series``: the first series the player may be seated in (1 for
    those there from the start); ``left_series``: the series the player
    withdrew in (not seated after it; in a knockout out in it), ``None``
    while still playing. Only the organiser's write adds or changes a row,
    under the night's lock, so the next series is drawn from one list.
    """

    __tablename__ = "tournament_entries"
    __table_args__ = (UniqueConstraint("tournament_id", "player"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), index=True)
    player: Mapped[str] = mapped_column(String(40))
    joined_series: Mapped[int] = mapped_column(Integer, default=1)
    left_series: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(default=now)

    tournament: Mapped[Tournament] = relationship(back_populates="entries")


class TournamentTable(db.Model):  # type: ignore[name-defined,misc]
    """One table of one series: its match and the table leader's token (an edit right for that match only)."""

    __tablename__ = "tournament_tables"
    __table_args__ = (UniqueConstraint("tournament_id", "series", "number"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), index=True)
    series: Mapped[int] = mapped_column(Integer)
    number: Mapped[int] = mapped_column(Integer)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"), unique=True)
    token: Mapped[str] = mapped_column(String(64), unique=True, default=new_token)
    #: The token's ``token_key``, which the token is looked up by (as ``Night.edit_key``).
    token_key: Mapped[str] = mapped_column(String(64), unique=True)
    revoked: Mapped[bool] = mapped_column(default=False)

    tournament: Mapped[Tournament] = relationship(back_populates="tables")
    match: Mapped[Match] = relationship()


@event.listens_for(TournamentTable, "before_insert")
def _fill_table_key(_mapper: Any, _conn: Any, table: TournamentTable) -> None:
    """A new table gets its token, and the key it is looked up by."""
    table.token = table.token or new_token()
    table.token_key = token_key(table.token)


@event.listens_for(Group, "before_insert")
def _fill_group_key(_mapper: Any, _conn: Any, group: Group) -> None:
    """A new group gets its token, and the key it is looked up by."""
    group.token = group.token or new_token()
    group.token_key = token_key(group.token)


@event.listens_for(Night, "before_insert")
def _fill_token_keys(_mapper: Any, _conn: Any, night: Night) -> None:
    """A new night gets its two tokens, and the keys they are looked up by."""
    night.edit_token = night.edit_token or new_token()
    night.view_token = night.view_token or new_token()
    night.edit_key = token_key(night.edit_token)
    night.view_key = token_key(night.view_token)


@event.listens_for(Round.void, "set")
@event.listens_for(Payment.void, "set")
def _void_time(target: Round | Payment, value: bool, old: Any, _initiator: Any) -> None:
    """A void keeps its time, whoever sets the flag: the night's fingerprint chains it where it was written.

    Rows an import inserts bring their times from the file (no ORM, no event).
    """
    if value and old is not True and target.voided_at is None:
        target.voided_at = now()
