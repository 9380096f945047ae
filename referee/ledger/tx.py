"""Writing: the write transaction, the nights' locks, and the errors every action raises.

Every action of the ledger writes inside :func:`writing`: one transaction,
committed at the end or rolled back on any error, after this process's other
writers and the other processes' ones (:mod:`referee.writer_lock`), with the
write's idempotency key looked for again under the lock. The errors live here
because every action raises them and :mod:`referee.errors` maps them to status
codes (404, 409, 503).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from typing import Any

from sqlalchemy import event, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError

from referee.engine import Explained
from referee.ledger import idempotency
from referee.ledger.idempotency import Idem
from referee.models import Match, Night, db
from referee.writer_lock import WRITERS


class NotFound(LookupError):
    """The night, match or round does not exist (404)."""


class Conflict(Explained):
    """Someone else changed the match first (409); carries the fresh state.

    ``message`` is a template with ``params``, as for the engine's
    exceptions, so :func:`referee.messages.explain` shows it in the phone's
    language.
    """

    def __init__(self, message: str, match: Match, /, **params: object) -> None:
        self.match = match
        super().__init__(message, params)


class Unavailable(Exception):
    """The database cannot be reached or is locked for too long (503)."""


# --- transactions ------------------------------------------------------------

_immediate: ContextVar[bool] = ContextVar("immediate", default=False)
#: The session's ``info`` key while :func:`writing` runs on it.
_WRITING = "referee.writing"


def configure_engine(engine: Engine) -> None:
    """SQLite: WAL, foreign keys, a busy timeout, and BEGIN IMMEDIATE for writes.

    A deferred SQLite transaction that reads and then writes fails at once if
    another process committed in between; writes therefore take the write
    lock up front (``BEGIN IMMEDIATE``) and wait for it (busy timeout).
    """
    if engine.dialect.name != "sqlite":
        return

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=10000")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if _immediate.get() else "BEGIN")


@contextmanager
def writing(fresh: bool = True, idem: Idem | None = None) -> Iterator[None]:
    """A write transaction: committed at the end, rolled back on any error.

    On SQLite any read transaction is ended first (before this writer queues,
    so that no queued writer holds a pooled connection), so the write starts with the write
    lock (``BEGIN IMMEDIATE``, after this process's other writers and
    the other processes' ones: :mod:`referee.writer_lock`). On PostgreSQL the
    write goes on in the read's transaction (READ COMMITTED: each statement
    sees every commit so far). ``fresh=False``
    keeps the objects already loaded (the caller checks the snapshot version
    itself); otherwise they are reloaded inside the write transaction.

    ``idem`` (the write's idempotency key) is looked for again first thing
    under SQLite's lock, and once more when the write fails (on PostgreSQL a
    twin with the same key may commit meanwhile): a twin's write raises
    :class:`referee.ledger.idempotency.Replayed` with its answer instead.
    """
    if db.session.info.get(_WRITING):  # a write inside a write: part of the outer one, committed or rolled back
        yield                           # with it (on this session: another app context's write is its own)
        return
    url = db.engine.url
    sqlite = url.get_backend_name() == "sqlite"
    if sqlite:
        # End the read transaction before queueing, not after: its pooled connection goes back while this
        # writer waits for the lock. Else 40 writers queued on one server held every connection, the
        # readers' requests (and the live hub's poll) waited for one, and after pool_timeout failed
        # (bench/tournament.py, docs/speed.md). Nothing is written yet; loaded objects keep their values.
        db.session.commit()
    queue = WRITERS.hold(url.database, uri=url.query.get("uri") == "true") if sqlite else nullcontext()
    with queue, _write_transaction(fresh, idem, sqlite):
        yield


@contextmanager
def _write_transaction(fresh: bool, idem: Idem | None, queued: bool) -> Iterator[None]:
    # SQLite: the read transaction ended before the queue (:func:`writing`), so the write begins IMMEDIATE (it was
    # ended a second time here, for nothing). PostgreSQL goes on in the read's transaction: under READ COMMITTED
    # each statement sees every commit so far, so a new transaction would see nothing more; it would cost a
    # COMMIT, a BEGIN and a pooled connection's check (pool_pre_ping) out of the 16 round trips of a round entry
    # (bench/profile_round.py).
    if fresh:
        db.session.expire_all()
    token = _immediate.set(True)
    db.session.info[_WRITING] = True
    try:
        with idempotency.guard(idem):  # a failed keyed write looks again: its twin's answer, if it made it
            try:
                if queued:  # SQLite: a twin may have written while this one queued (its first look was before)
                    idempotency.recheck(idem)
                # PostgreSQL: no second look (the request's first, idempotency.bind, was moments
                # before): a twin that commits after it meets this write at the key's row (store: the unique
                # key), and the guard then answers with the twin's reply. It cost a query per keyed write.
                yield
                db.session.commit()
            except OperationalError as exc:
                db.session.rollback()
                raise Unavailable(str(exc.orig)) from exc
            except BaseException:
                db.session.rollback()
                raise
    finally:
        db.session.info.pop(_WRITING, None)
        _immediate.reset(token)


def lock_nights(*night_ids: int) -> None:
    """Inside :func:`writing`: no other write that locks these nights runs until this one ends.

    For writes whose check reads more than the row they change (what is still
    open on a night, read before a payment or a carry): the check must be
    made after this, inside the same write, or two phones at once both pass
    it. SQLite has one writer at a time already (the writer lock, ``BEGIN
    IMMEDIATE``); PostgreSQL lets writers overlap, so each night's row is
    locked (``SELECT ... FOR UPDATE``), in id order so that two writes
    locking the same nights never wait for each other crosswise. Round
    entry does not take it: its check is the snapshot's version.
    """
    if db.session.get_bind().dialect.name == "sqlite":
        return
    for night_id in sorted(set(night_ids)):
        db.session.execute(select(Night.id).where(Night.id == night_id).with_for_update())


store_reply = idempotency.store
