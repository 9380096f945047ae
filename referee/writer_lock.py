"""One SQLite writer at a time, queued in the kernel instead of in SQLite's busy handler.

Why: SQLite lets one writer in at a time, and a writer that finds the lock
taken waits in SQLite's busy handler, which polls with sleeps that grow to
100 ms. With 16 phones on two gunicorn processes that made the slow tail
of round entry and left the cores idle while writers slept
(``bench/load.py``). Here the threads of one process queue on a lock that
is handed over at once, and the processes on one file lock (``flock``) next
to the database file, which the kernel hands to the next waiter the moment
it is released, and releases when a process dies (``kill -9`` included), so
a killed server never leaves it held. SQLite's own lock stays the rule;
this only decides who asks for it first.

Reentrant within a thread (a write inside a write takes nothing more).
Databases without a file (``sqlite://`` in memory), opened read-only, or in
a directory where the lock file cannot be made get the thread lock only:
SQLite's busy handler queues their writers as before (or refuses them).
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import parse_qs


def lock_path(database: str | None, uri: bool = False) -> str | None:
    """The lock file of a SQLite database (SQLAlchemy's ``url.database``), or None for none.

    ``uri``: the name is a SQLite URI (``file:path?mode=ro``); read-only and
    in-memory URIs need no writer lock.
    """
    if not database or database == ":memory:":
        return None
    if uri and database.startswith("file:"):
        path, _, query = database[len("file:"):].partition("?")
        if parse_qs(query).get("mode", [""])[0] in ("ro", "memory") or not path or path == ":memory:":
            return None
        database = path
    return f"{database}-writer.lock"


class FairLock:
    """A thread lock handed to its waiters in the order they came (first in, first out).

    Why: ``threading.Lock`` lets the thread that releases it, or any thread
    that happens to run, take it again before the longest waiter, so with
    40 table leaders writing at once some waited several turns while others
    went again at once: the slow tail of round entry (``bench/tournament.py``).
    Here the releasing thread hands the lock to the first waiter directly.
    """

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._waiters: deque[threading.Lock] = deque()
        self._held = False

    def acquire(self) -> None:
        with self._mutex:
            if not self._held:
                self._held = True
                return
            turn = threading.Lock()
            turn.acquire()
            self._waiters.append(turn)
        turn.acquire()  # released by the thread that hands the lock over: it is ours now

    def release(self) -> None:
        with self._mutex:
            if self._waiters:
                self._waiters.popleft().release()  # still held: handed over
            else:
                self._held = False


class WriterLock:
    """The writers' queue of one SQLite database file, for threads and processes."""

    def __init__(self) -> None:
        self._thread_lock = FairLock()
        self._depth = threading.local()
        self._files: dict[tuple[int, str], int | None] = {}  # (pid, lock path) -> descriptor

    def _descriptor(self, path: str) -> int | None:
        """This process's descriptor of the lock file: opened after a fork, never inherited.

        ``flock`` belongs to an open file description; one shared by a parent
        and its forked children (gunicorn's workers) would let them all in.
        None when the file cannot be made (a read-only or missing directory).
        """
        key = (os.getpid(), path)
        if key not in self._files:
            try:
                self._files[key] = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            except OSError:
                self._files[key] = None
        return self._files[key]

    @contextmanager
    def hold(self, database: str | None, uri: bool = False) -> Iterator[None]:
        """Hold the writer lock of ``database`` (SQLAlchemy's ``url.database``; see :func:`lock_path`)."""
        depth = getattr(self._depth, "n", 0)
        if depth == 0:
            self._thread_lock.acquire()
        self._depth.n = depth + 1
        fd = None
        try:
            path = lock_path(database, uri) if depth == 0 else None
            fd = self._descriptor(path) if path else None
            if fd is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            if fd is not None:
                fcntl.flock(fd, fcntl.LOCK_UN)
            self._depth.n = depth
            if depth == 0:
                self._thread_lock.release()


#: The one queue of this process; :func:`referee.ledger.writing` holds it around every SQLite write.
WRITERS = WriterLock()
