"""The SQLite writers' queue (referee.writer_lock): one writer at a time across threads and forked processes.

Each writer does a read-modify-write of a counter file with a pause in the
middle: without mutual exclusion updates get lost. The lock is used in the
parent before forking, as gunicorn's master imports the app before its
workers fork, so a descriptor inherited by the children would show here.
"""

from __future__ import annotations

import fcntl
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from referee.writer_lock import FairLock, WriterLock, lock_path

ROUNDS = 40


def _bump(lock: WriterLock, database: str, counter: Path) -> None:
    with lock.hold(database):
        value = int(counter.read_text())
        time.sleep(0.0005)  # a window for another writer, if it were let in
        counter.write_text(str(value + 1))


def _exit_codes(pids: list[int], timeout: float) -> list[int]:
    """The children's exit codes. Children still running after ``timeout`` seconds (a writer stuck on
    the lock) are all killed and the test fails, instead of hanging the suite or leaving them behind."""
    codes: dict[int, int] = {}
    deadline = time.monotonic() + timeout
    while len(codes) < len(pids) and time.monotonic() < deadline:
        for pid in pids:
            if pid not in codes:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    codes[pid] = os.waitstatus_to_exitcode(status)
        time.sleep(0.02)
    stuck = [pid for pid in pids if pid not in codes]
    for pid in stuck:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    if stuck:
        pytest.fail(f"children {stuck} still running after {timeout} s: a writer never got the lock")
    return [codes[pid] for pid in pids]


def test_processes_and_threads_take_turns(tmp_path: Path) -> None:
    database = str(tmp_path / "db.sqlite3")
    counter = tmp_path / "counter"
    counter.write_text("0")
    lock = WriterLock()
    _bump(lock, database, counter)  # the parent has its descriptor before the fork

    children = []
    for _ in range(3):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            code = 0
            try:
                threads = [threading.Thread(target=lambda: [_bump(lock, database, counter) for _ in range(ROUNDS)])
                           for _ in range(2)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
            except BaseException:
                code = 1
            os._exit(code)
        children.append(pid)
    for _ in range(ROUNDS):
        _bump(lock, database, counter)
    assert _exit_codes(children, timeout=60) == [0] * len(children)
    assert int(counter.read_text()) == 1 + ROUNDS + 3 * 2 * ROUNDS


def _file_lock_free(database: str) -> bool:
    """Whether another open file description (as another process has) can take the lock file at once."""
    path = lock_path(database, False)
    assert path is not None
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)  # (closing lets go of a lock taken)
    return True


def test_reentrant_within_a_thread(tmp_path: Path) -> None:
    """A write inside a write does not wait for itself (run in a thread with a timeout: a lock that did would
    hang here); the inner release keeps the file lock, the outer one lets go of it and of the thread lock."""
    lock = WriterLock()
    database = str(tmp_path / "db.sqlite3")
    seen: list[bool] = []

    def nested() -> None:
        with lock.hold(database):
            with lock.hold(database):
                seen.append(_file_lock_free(database))
            seen.append(_file_lock_free(database))
        seen.append(_file_lock_free(database))

    thread = threading.Thread(target=nested, daemon=True)
    thread.start()
    thread.join(timeout=10)
    assert not thread.is_alive(), "the write inside a write waited for itself"
    assert seen == [False, False, True]
    taken = threading.Event()

    def take() -> None:
        with lock.hold(database):
            taken.set()

    other = threading.Thread(target=take, daemon=True)
    other.start()
    assert taken.wait(10), "the outer release kept the thread lock"


def test_a_killed_holder_lets_go(tmp_path: Path) -> None:
    """kill -9 of a server process inside a write: the kernel drops its file lock, the others go on."""
    database = str(tmp_path / "db.sqlite3")
    held = tmp_path / "held"
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        with WriterLock().hold(database):
            held.write_text("yes")
            time.sleep(60)
        os._exit(0)
    deadline = time.monotonic() + 10
    while not held.exists():
        assert time.monotonic() < deadline, "the child never took the lock"
        time.sleep(0.01)
    waiting: list[float] = []
    lock = WriterLock()

    def take() -> None:
        start = time.monotonic()
        with lock.hold(database):
            waiting.append(time.monotonic() - start)

    taker = threading.Thread(target=take)
    taker.start()
    time.sleep(0.2)
    assert not waiting, "the lock was given while the child held it"
    os.kill(pid, signal.SIGKILL)
    assert _exit_codes([pid], timeout=10) == [-signal.SIGKILL]
    taker.join(timeout=10)
    assert waiting and waiting[0] >= 0.2


@pytest.mark.parametrize(("database", "uri", "expected"), [
    ("/srv/referee.sqlite3", False, "/srv/referee.sqlite3-writer.lock"),
    ("file:/srv/referee.sqlite3", True, "/srv/referee.sqlite3-writer.lock"),
    ("file:/srv/referee.sqlite3?mode=rw", True, "/srv/referee.sqlite3-writer.lock"),
    ("file:/srv/referee.sqlite3?mode=ro", True, None),
    ("file:shared?mode=memory&cache=shared", True, None),
    (":memory:", False, None), ("", False, None), (None, False, None),
])
def test_lock_path(database: str | None, uri: bool, expected: str | None) -> None:
    assert lock_path(database, uri) == expected


@pytest.mark.parametrize("database", [None, "", ":memory:"])
def test_no_file_no_file_lock(database: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with WriterLock().hold(database):
        pass
    assert not list(tmp_path.iterdir())


def test_a_directory_without_the_lock_file_still_writes(tmp_path: Path) -> None:
    """No lock file can be made there: the threads still queue, SQLite's busy handler does the rest."""
    lock = WriterLock()
    with lock.hold(str(tmp_path / "missing" / "db.sqlite3")):
        pass
    assert not (tmp_path / "missing").exists()


class _Holding:
    """A :class:`WriterLock` (of a database without a file: its thread lock only) as acquire and release."""

    def __init__(self) -> None:
        self.lock = WriterLock()
        self.held = threading.local()

    def acquire(self) -> None:
        self.held.cm = self.lock.hold(None)
        self.held.cm.__enter__()

    def release(self) -> None:
        self.held.cm.__exit__(None, None, None)


class _LastComeFirstServed(FairLock):
    """A lock that hands itself to the newest waiter: what the test must tell from first come, first served."""

    def release(self) -> None:
        with self._mutex:
            if self._waiters:
                self._waiters.pop().release()
            else:
                self._held = False


def _queue(lock: FairLock | _Holding) -> FairLock:
    return lock.lock._thread_lock if isinstance(lock, _Holding) else lock


def _order_of_turns(lock: FairLock | _Holding, waiters: int) -> list[str]:
    """Who gets the lock, in turn: ``waiters`` threads queue one after another on a held lock (each started once
    the one before it is seen in the lock's queue: no sleeping, no guess of the scheduler); then its holder lets
    go and at once asks again, as a server thread with the next round does."""
    turns: list[str] = []
    queue = _queue(lock)
    lock.acquire()

    def wait(name: str) -> None:
        lock.acquire()
        turns.append(name)
        lock.release()

    threads = []
    for n in range(waiters):
        thread = threading.Thread(target=wait, args=(f"w{n}",))
        thread.start()
        threads.append(thread)
        deadline = time.monotonic() + 10
        while len(queue._waiters) <= n:  # queued behind the ones before it (blocked in acquire)
            assert time.monotonic() < deadline, "a waiter never queued"
            time.sleep(0.001)
    lock.release()
    lock.acquire()
    turns.append("holder again")
    lock.release()
    for thread in threads:
        thread.join(5)
    return turns


def test_the_threads_take_the_lock_first_come_first_served() -> None:
    """The FIFO the round entry's tail needs (bench/tournament.py: p99 256 -> 124 ms): the thread that lets go
    and asks again goes behind the ones already waiting, and they go in the order they came.

    A lock that hands itself to the newest waiter gives another order (checked below, so that this test is
    known to tell the two apart). The waiters queue in a known order, so one try tells, every time.
    """
    assert _order_of_turns(FairLock(), 4) == ["w0", "w1", "w2", "w3", "holder again"]
    assert _order_of_turns(_Holding(), 4) == ["w0", "w1", "w2", "w3", "holder again"]
    assert _order_of_turns(_LastComeFirstServed(), 4) == ["w3", "holder again", "w2", "w1", "w0"]
