"""What the HTTP benchmarks share: a gunicorn server, phones as clients, timings and verdicts.

``bench/load.py``, ``bench/live.py``, ``bench/soak.py`` and ``bench/peer.py``
import from here. :class:`Server` starts this app under gunicorn on a
throw-away database; :func:`wait_until_up` is the one wait-for-gunicorn loop,
also used for the peer (ihatemoney) in ``bench/peer.py``. :class:`Client` is
one phone: one connection that it keeps open as long as the server allows
(gthread workers keep it alive, sync workers close it after each answer and
the client opens a new one), its cookies, and wall-clock timings.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = ROOT / ".venv" / "bin"
HOST = "127.0.0.1"


@contextmanager
def database(postgres: bool, name: str) -> Iterator[str | None]:
    """A benchmark's database URL: None for SQLite (the app makes its file in its own directory), else a new
    database ``name`` on a private PostgreSQL cluster, started as the tests start theirs
    (``tests/components.py``; the calling script has the project on ``sys.path``) and stopped when the benchmark
    is done."""
    if not postgres:
        yield None
        return
    from tests.components import PostgresServer

    server = PostgresServer()
    server.start()
    try:
        yield server.create_database(name)
    finally:
        server.stop()


# --- HTTP --------------------------------------------------------------------

class Client:
    """One simulated phone: a connection, a session cookie, and timings per request type.

    ``http.client`` keeps the connection open between requests when the
    server does (HTTP/1.1 keep-alive, gthread workers) and reopens it when the
    server closed it (sync workers), so a fresh TCP connect is part of a
    measured request only when the server asks for it.
    """

    def __init__(self, port: int, headers: dict[str, str] | None = None) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection(HOST, port, timeout=60)
        self.cookies: dict[str, str] = {}
        self.headers = dict(headers or {})

    def request(self, method: str, path: str, body: Any = None,
                headers: dict[str, str] | None = None, form: dict[str, str] | None = None) -> tuple[int, bytes, float]:
        """Send one request (a JSON ``body`` or an urlencoded ``form``); returns ``(status, body, seconds)``.

        Status 0 is a transport error (the connection is then reset).
        """
        from urllib.parse import urlencode

        hdrs = {**self.headers, **(headers or {})}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            hdrs["Content-Type"] = "application/json"
        elif form is not None:
            data = urlencode(form).encode()
            hdrs["Content-Type"] = "application/x-www-form-urlencoded"
        if self.cookies:
            hdrs["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        start = time.perf_counter()
        try:
            self.conn.request(method, path, body=data, headers=hdrs)
            resp = self.conn.getresponse()
            payload = resp.read()
        except (OSError, http.client.HTTPException):
            # Reset the connection so that the next request starts clean.
            self.conn.close()
            self.conn = http.client.HTTPConnection(HOST, self.port, timeout=60)
            return 0, b"", time.perf_counter() - start
        elapsed = time.perf_counter() - start
        for header in resp.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                self.cookies[name] = morsel.value
        return resp.status, payload, elapsed

    def json(self, method: str, path: str, body: Any = None, token: str | None = None,
             expect: int = 201) -> dict[str, Any]:
        """A setup call that must succeed (setup is not measured)."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        status, payload, _ = self.request(method, path, body, headers)
        if status != expect:
            raise RuntimeError(f"{method} {path} answered {status}: {payload[:300]!r}")
        return dict(json.loads(payload))

    def close(self) -> None:
        self.conn.close()


@dataclass
class Timings:
    """Latencies (seconds) of successful requests and a count of failures, by status."""

    ok: list[float] = field(default_factory=list)
    failed: Counter[int] = field(default_factory=Counter)

    def add(self, status: int, seconds: float, expect: int) -> bool:
        if status == expect:
            self.ok.append(seconds)
            return True
        self.failed[status] += 1
        return False

    def merge(self, other: Timings) -> None:
        self.ok.extend(other.ok)
        self.failed.update(other.failed)


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100): a value that was actually measured."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))  # ceil(n * q / 100), at least 1
    return ordered[int(rank) - 1]


# --- concurrent phases ---------------------------------------------------------

@dataclass
class Phase:
    """The outcome of one timed, concurrent phase."""

    elapsed: float
    by_kind: dict[str, Timings]


def run_concurrently(clients: int, duration: float, setup: Callable[[int], Any],
                     step: Callable[[Any, dict[str, Timings]], None]) -> Phase:
    """Prepare each client (not timed), then run ``step`` in a loop on all of them for ``duration``.

    ``setup(i)`` returns the client's context; ``step(ctx, timings)`` does one
    iteration and records into ``timings`` (a dict of kind -> Timings). The
    loop is bounded by time; a thread that fails stops and its error is raised.
    """
    contexts = [setup(i) for i in range(clients)]
    results: list[dict[str, Timings]] = [{} for _ in range(clients)]
    errors: list[BaseException] = []
    stop = threading.Event()
    barrier = threading.Barrier(clients + 1)
    deadline = 0.0

    def worker(i: int) -> None:
        barrier.wait()
        try:
            while not stop.is_set() and time.monotonic() < deadline:
                step(contexts[i], results[i])
        except BaseException as exc:
            errors.append(exc)
            stop.set()

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(clients)]
    for t in threads:
        t.start()
    start = time.monotonic()
    deadline = start + duration
    barrier.wait()
    try:
        for t in threads:
            while t.is_alive():
                t.join(0.5)
    except KeyboardInterrupt:
        stop.set()
        raise
    elapsed = time.monotonic() - start
    for ctx in contexts:
        getattr(ctx, "client", ctx).close()
    if errors:
        raise RuntimeError(f"a client failed: {errors[0]!r}") from errors[0]
    merged: dict[str, Timings] = {}
    for r in results:
        for kind, t in r.items():
            merged.setdefault(kind, Timings()).merge(t)
    return Phase(elapsed, merged)


# --- servers -------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def wait_until_up(proc: subprocess.Popen[bytes], port: int, tail: Callable[[], str], path: str = "/",
                  timeout: float = 30.0, settle: float = 1.0) -> None:
    """Wait until ``GET path`` on ``port`` answers below 400 (gunicorn up, app loaded), or fail with the log.

    ``settle``: a moment more, so that the second worker has imported the app too.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}:\n{tail()}")
        try:
            conn = http.client.HTTPConnection(HOST, port, timeout=2)
            conn.request("GET", path)
            status = conn.getresponse().status
            conn.close()
            if status < 400:
                time.sleep(settle)
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"the server did not answer within {timeout:g} s:\n{tail()}")


def stop_process(proc: subprocess.Popen[bytes] | None) -> None:
    """SIGTERM to a gunicorn master (it stops its workers), SIGKILL if it lingers."""
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


def _family(pid: int) -> list[int]:
    """A process and its children (gunicorn's master and workers)."""
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        pids += [int(p) for p in children.read_text().split()]
    return pids


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) used so far by a process and its children, from /proc: the server's own work,
    whatever else shares the machine (the clients included)."""
    total = 0
    for p in _family(pid):
        fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime in clock ticks
    return total / os.sysconf("SC_CLK_TCK")


def memory_kib(pid: int) -> int:
    """Resident memory of a process and its children (gunicorn's master and workers), in KiB, from /proc."""
    total = 0
    for p in _family(pid):
        for row in Path(f"/proc/{p}/status").read_text().splitlines():
            if row.startswith("VmRSS:"):
                total += int(row.split()[1])
    return total


class Server:
    """gunicorn with the app on a throw-away database; stopped on exit, errors and Ctrl-C.

    The database is SQLite in ``workdir`` unless ``database_url`` names another
    (empty) one, e.g. a throw-away PostgreSQL database (``bench/soak.py``).
    ``threads`` > 0 runs gthread workers as ``make run`` does (connections
    kept alive, one thread per connection); 0 runs sync workers.
    """

    def __init__(self, workdir: Path, workers: int = 2, database_url: str | None = None, threads: int = 0) -> None:
        self.workdir = workdir
        self.workers = workers
        self.threads = threads
        self.port = free_port()
        self.log = workdir / "gunicorn.log"
        self.database_url = database_url or f"sqlite:///{workdir / 'bench.sqlite3'}"
        # (the benchmarks' phones create their nights from one address: no per-address creation limit)
        self.env = {"CREATIONS_PER_HOUR": "1000000", **os.environ, "DATABASE_URL": self.database_url,
                    "REFEREE_BENCH": "1", "SECRET_KEY": "bench"}
        self.proc: subprocess.Popen[bytes] | None = None

    def describe(self) -> str:
        kind = f"gthread workers x {self.threads} threads" if self.threads else "sync workers"
        return f"gunicorn {self.workers} {kind}"

    def start(self) -> None:
        subprocess.run([str(VENV_BIN / "flask"), "--app", "referee", "db", "upgrade"], cwd=ROOT, env=self.env,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        worker = (["--worker-class", "gthread", "--threads", str(self.threads), "--graceful-timeout", "5"]
                  if self.threads else [])
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                [str(VENV_BIN / "gunicorn"), "--workers", str(self.workers), *worker,
                 "--bind", f"{HOST}:{self.port}", "--no-control-socket", "referee:create_app()"],
                cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        wait_until_up(self.proc, self.port, self.tail, timeout=90)  # importing the app takes long on a busy machine

    def tail(self) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-30:])
        except OSError:
            return ""

    def memory_kib(self) -> int:
        assert self.proc is not None
        return memory_kib(self.proc.pid)

    def cpu_seconds(self) -> float:
        assert self.proc is not None
        return cpu_seconds(self.proc.pid)

    def stop(self) -> None:
        stop_process(self.proc)


# --- report ----------------------------------------------------------------------

def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def line(label: str, t: Timings, elapsed: float, unit: str) -> str:
    rate = len(t.ok) / elapsed if elapsed else 0.0
    failed = f", failed {dict(t.failed)}" if t.failed else ""
    return (f"{label:<22} {rate:8.1f} {unit}/s   p50 {ms(percentile(t.ok, 50)):>9}   "
            f"p99 {ms(percentile(t.ok, 99)):>9}   max {ms(max(t.ok, default=float('nan'))):>9}   "
            f"n={len(t.ok)}{failed}")


def machine() -> str:
    """CPU count and load: the figures mean little on a machine busy with other work."""
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"{os.cpu_count()} CPUs, load average {load}"


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"
