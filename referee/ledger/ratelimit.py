"""Failed token attempts, and new nights, per client address, and a 429 when there are too many.

Tokens are 192 random bits, so guessing is hopeless anyway; the limit answers
a guessing script's wrong tokens with 429 and keeps logs readable. It refuses
wrong tokens only (:func:`referee.ledger.rights.counted`): a right token from a
blocked address still opens, so one prankster cannot lock out a room of phones
behind one router (issue 44.5). The counts live in the
database (table ``token_failures``), so every gunicorn worker and every app
server sharing the database counts the same failures: a script spreading its
guesses over workers or servers still meets the limit.

The table stays small: one row per address and time bucket (a tenth of the
window), rows whose bucket has left the window are deleted with each new
failure, and at most ``max_rows`` rows are kept (the oldest go first). It
holds an address and a count, never the token that was tried.

Counting a failure is a write; when the database cannot take it (busy,
read-only, away), the failure goes uncounted (one warning in the log) and the
answer stays the 401/403/404 it was going to be: a refused token must never
turn into a 500.

The ledger reads no request: the caller's address and the app's limiter come
in as a :class:`Caller` the web layer builds (``referee/web/caller.py``), so
a script or a command can count and check wrong tokens as a request does.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import ColumnElement, Insert, bindparam, delete, func, select, tuple_
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError

from referee.engine import N_
from referee.ledger import tx
from referee.ledger.idempotency import Idem
from referee.models import TokenFailure, db

#: A window is counted in this many buckets: a failure is remembered for the
#: window and at most a tenth longer.
BUCKETS = 10
#: The most rows the table keeps (addresses times buckets).
MAX_ROWS = 10_000

#: The app's logger (Flask's ``app.logger`` is this one: the app is named ``referee``).
log = logging.getLogger("referee")

#: The check every request with a token makes, built once (a statement built per request costs more
#: CPU than the query itself; a built one keeps its compiled form and cache key).
_COUNTED = (select(func.sum(TokenFailure.count), func.min(TokenFailure.bucket))
            .where(TokenFailure.address == bindparam("address"), TokenFailure.bucket >= bindparam("first")))


class FailureLimiter:
    """At most ``limit`` failures (or creations) per address within ``window`` seconds, counted in the database.

    ``kind`` keeps a second limiter's rows apart in the one table: its keys
    are stored as ``<kind>|<address>`` (no address holds a ``|``), and its
    purges and its row bound touch its own rows only.
    """

    def __init__(self, limit: int, window: float, clock: Callable[[], float] = time.time,
                 max_rows: int = MAX_ROWS, kind: str = "") -> None:
        self.limit = limit
        self.window = window
        self.clock = clock  # wall-clock time: the same on every server
        self.max_rows = max_rows
        self.bucket_len = max(1.0, window / BUCKETS)
        self.prefix = f"{kind}|" if kind else ""

    def _key(self, key: str) -> str:
        return (self.prefix + key)[:64]

    def _mine(self) -> ColumnElement[bool]:
        """This limiter's rows of the table."""
        address: ColumnElement[str] = TokenFailure.__table__.c.address
        return address.startswith(self.prefix, autoescape=True) if self.prefix else ~address.contains("|")

    def _bucket(self, t: float) -> int:
        return math.floor(t / self.bucket_len)

    def _first_counted(self, now: float) -> int:
        """The oldest bucket still inside the window (it ends after ``now - window``)."""
        return math.floor((now - self.window) / self.bucket_len)

    def _total(self, key: str, now: float) -> tuple[int, int]:
        """``key``'s count within the window and its oldest counted bucket."""
        total, oldest = db.session.connection().execute(_COUNTED, {"address": self._key(key),
                                                      "first": self._first_counted(now)}).one()
        return int(total or 0), int(oldest or 0)

    def _wait(self, oldest: int, now: float) -> int:
        """Seconds until the oldest counted bucket leaves the window (the address may act again)."""
        return max(1, math.ceil((oldest + 1) * self.bucket_len + self.window - now))

    def retry_after(self, key: str) -> int:
        """Seconds until ``key`` may try again; 0 when it is not blocked."""
        now = self.clock()
        total, oldest = self._total(key, now)
        return 0 if total < self.limit else self._wait(oldest, now)

    def claim(self, key: str) -> int:
        """Inside the caller's write transaction: count one creation of ``key``; the seconds to wait when it is
        over the limit (the caller refuses and rolls the count back with its write), else 0.

        Counted first and checked after, in the one transaction: on SQLite the write lock orders creators, on
        PostgreSQL the upsert holds the address's bucket row until commit, so a second creator from the address
        reads the first one's count (a check before the write and a count after it let a burst through).
        """
        now = self.clock()
        db.session.execute(self._upsert(key, now))
        total, oldest = self._total(key, now)
        return 0 if total <= self.limit else self._wait(oldest, now)

    def _upsert(self, key: str, now: float) -> Insert:
        """One more in ``key``'s current bucket (a row per address and bucket)."""
        table = TokenFailure.__table__
        dialect = postgresql if db.engine.dialect.name == "postgresql" else sqlite
        upsert = dialect.insert(table).values(address=self._key(key), bucket=self._bucket(now), count=1)
        built: Insert = upsert.on_conflict_do_update(index_elements=[table.c.address, table.c.bucket],
                                                     set_={"count": table.c.count + 1})
        return built

    def count(self, key: str) -> None:
        """Count one wrong token from ``key`` and tidy the table, in a transaction of its own; a database that
        cannot take the write leaves it uncounted (a warning), never an error."""
        self._best_effort(lambda: db.session.execute(self._upsert(key, self.clock())),
                          "a wrong token or a creation went uncounted")

    def tidy(self) -> None:
        """Forget this limiter's buckets out of the window and keep its rows bounded (a transaction of its own,
        best effort: after a creation, whose own transaction touches only its address's row)."""
        self._best_effort(lambda: None, "the limiter's old rows were kept for now")

    def _best_effort(self, first: Callable[[], object], failed: str) -> None:
        """``first()``, then the purge of old buckets and the row bound, in one short write; never raises (the log
        says ``failed`` when the database could not take it)."""
        now = self.clock()
        table = TokenFailure.__table__
        try:
            with tx.writing(fresh=False):
                first()
                db.session.execute(delete(table).where(table.c.bucket < self._first_counted(now), self._mine()))
                excess = int(db.session.scalar(select(func.count()).select_from(table).where(self._mine())) or 0)
                excess -= self.max_rows
                if excess > 0:
                    oldest = (select(table.c.address, table.c.bucket).where(self._mine())
                              .order_by(table.c.bucket).limit(excess))
                    db.session.execute(delete(table).where(tuple_(table.c.address, table.c.bucket).in_(oldest)))
        except (tx.Unavailable, DBAPIError) as exc:
            log.warning("%s (database busy or read-only): %s", failed,
                        (str(getattr(exc, "orig", exc)).strip().splitlines() or [""])[0])


@dataclass(frozen=True)
class Caller:
    """Who brings a token: the client's address (``"unknown"`` when none is known) and the limiter counting it.

    Plain values, built once per request by the web layer (``referee.web.caller``) or by a script:
    ``creations`` counts the nights, tournaments and imports the address creates (None: not counted, a script).
    """

    address: str
    limiter: FailureLimiter
    creations: FailureLimiter | None = None


class TooManyCreated(Exception):
    """Too many nights, tournaments and imports from this address within the hour: 429 with ``Retry-After: wait``
    (``referee/errors.py``, ``referee/api``). ``message``/``plural`` are templates the web layer translates with
    ``n=limit`` and ``num`` the minutes to wait, not a sentence in a language."""

    message = N_("This address has created %(n)s nights and tournaments within the hour, as many as one address "
                 "may; try again in %(num)s minute.")
    #: (its catalog entry is the plural of ``message``: not marked, so extraction keeps the two one entry)
    plural = ("This address has created %(n)s nights and tournaments within the hour, as many as one address "
              "may; try again in %(num)s minutes.")

    def __init__(self, limit: int, wait: int) -> None:
        super().__init__(limit, wait)
        self.limit, self.wait = limit, wait
        self.minutes = max(1, math.ceil(wait / 60))


def full(caller: Caller | None) -> None:
    """:class:`TooManyCreated` if ``caller``'s address has created its hour's share: a read, nothing counted.

    Asked before any work (an import's replay) and before the write lock is queued for, so that a flood of
    refused creations neither replays files nor holds the writer the evening's rounds wait for.
    """
    if caller is not None and caller.creations is not None:
        wait = caller.creations.retry_after(caller.address)
        if wait:
            raise TooManyCreated(caller.creations.limit, wait)


@contextmanager
def creating(caller: Caller | None, idem: Idem | None = None) -> Iterator[None]:
    """The write transaction of a new night, tournament or import, counted towards ``caller``'s creations.

    Refused first (:func:`full`) without a write; then counted inside the write itself
    (:meth:`FailureLimiter.claim`) and refused there when creations sent at once have filled the hour meanwhile:
    the write and its count roll back together, and a refused or replayed request (``idem``) is not counted.
    With no caller, or one whose creations are not counted (scripts, the command line), nothing is counted.
    """
    full(caller)
    limiter = caller.creations if caller is not None else None
    with tx.writing(idem=idem):
        if limiter is not None and caller is not None:
            wait = limiter.claim(caller.address)
            if wait:
                raise TooManyCreated(limiter.limit, wait)
        yield
    if limiter is not None:
        limiter.tidy()
