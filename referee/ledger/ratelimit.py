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

from sqlalchemy import ColumnElement, bindparam, delete, func, select, tuple_
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError

from referee.engine import N_
from referee.ledger import tx
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

    def retry_after(self, key: str) -> int:
        """Seconds until ``key`` may try again; 0 when it is not blocked."""
        now = self.clock()
        total, oldest = db.session.connection().execute(_COUNTED, {"address": self._key(key),
                                                      "first": self._first_counted(now)}).one()
        if not total or int(total) < self.limit:
            return 0
        # Blocked until the oldest counted bucket leaves the window.
        return max(1, math.ceil((int(oldest) + 1) * self.bucket_len + self.window - now))

    def count(self, key: str) -> None:
        """Count one wrong token (or creation) from ``key``; forget buckets out of the window; keep rows bounded."""
        now = self.clock()
        table = TokenFailure.__table__
        dialect = postgresql if db.engine.dialect.name == "postgresql" else sqlite
        upsert = dialect.insert(table).values(address=self._key(key), bucket=self._bucket(now), count=1)
        upsert = upsert.on_conflict_do_update(index_elements=[table.c.address, table.c.bucket],
                                              set_={"count": table.c.count + 1})
        try:
            with tx.writing(fresh=False):
                db.session.execute(upsert)
                db.session.execute(delete(table).where(table.c.bucket < self._first_counted(now), self._mine()))
                excess = int(db.session.scalar(select(func.count()).select_from(table).where(self._mine())) or 0)
                excess -= self.max_rows
                if excess > 0:
                    oldest = (select(table.c.address, table.c.bucket).where(self._mine())
                              .order_by(table.c.bucket).limit(excess))
                    db.session.execute(delete(table).where(tuple_(table.c.address, table.c.bucket).in_(oldest)))
        except (tx.Unavailable, DBAPIError) as exc:
            log.warning("a wrong token or a creation went uncounted (database busy or read-only): %s",
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


@contextmanager
def creating(caller: Caller | None) -> Iterator[None]:
    """Around the write of a new night, tournament or import: :class:`TooManyCreated` first if ``caller``'s
    address created its hour's share; counted once the block has written (a refused request is not counted).

    With no caller, or one whose creations are not counted (scripts, the command line), nothing is counted.
    """
    if caller is None or caller.creations is None:
        yield
        return
    limiter, address = caller.creations, caller.address
    wait = limiter.retry_after(address)
    if wait:
        raise TooManyCreated(limiter.limit, wait)
    yield
    limiter.count(address)
