"""Load benchmark: round entry and the match page against a bare-insert floor.

Run from the repository root: ``.venv/bin/python bench/load.py`` (about two
minutes) or ``.venv/bin/python bench/load.py --quick`` (a smoke run).

It starts the app with gunicorn (2 sync workers, SQLite in a temporary
directory) on loopback and measures three things:

1. Round entry: N concurrent clients, each with its own night and
   Svängknack match, loop for the duration: enter a valid round through the
   JSON API, then read the match page (HTML, with the view-link session).
2. The floor: the same clients hammer ``POST /bench/floor`` (one SQLite
   insert in the same app, same server, same database) for the same duration.
   Round entry does strictly more work; the goal is that it costs at most
   twice as much (rounds/s >= half the floor's inserts/s) with p99 < 100 ms.
3. Page size: one match with many rounds and one with a single round; the
   median time of sequential GETs of each match page. The page reads the
   state from the snapshot (no replay), so a long match should cost at most
   1.5 times a short one.

A benchmark, not a test: it always exits 0 and prints PASS/MISS per goal.
Clients are threads of this process with stdlib ``http.client`` (no new
dependencies); the server's two workers are the bottleneck, the clients
mostly wait on sockets. Latency is wall clock per request, as the client
sees it, including queueing at the server.
"""

from __future__ import annotations

import argparse
import copy
import http.client
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = ROOT / ".venv" / "bin"
HOST = "127.0.0.1"
PLAYERS = ["Anna", "Bo", "Cia", "Dan", "Eva"]

#: Goals from the issue.
GOAL_RATIO = 0.5
GOAL_P99_MS = 100.0
GOAL_PAGE_RATIO = 1.5


# --- HTTP --------------------------------------------------------------------

class Client:
    """One simulated phone: a connection, a session cookie, and timings per request type.

    Gunicorn's sync workers close the connection after each response;
    ``http.client`` reopens it by itself, so a fresh TCP connect (cheap on
    loopback) is part of every measured request, as for the floor.
    """

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection(HOST, port, timeout=60)
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, body: Any = None,
                headers: dict[str, str] | None = None) -> tuple[int, bytes, float]:
        """Send one request; returns ``(status, body, seconds)``; status 0 on a transport error."""
        hdrs = dict(headers or {})
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            hdrs["Content-Type"] = "application/json"
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
        return json.loads(payload)

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


# --- the match a client plays -----------------------------------------------

class Match:
    """A night with one Svängknack match, created through the JSON API."""

    def __init__(self, client: Client, players: list[str], rng: random.Random) -> None:
        self.client = client
        self.rng = rng
        self.players = players
        night = client.json("POST", "/api/nights", {"name": "Bench night", "currency": "SEK",
                                                    "players": players})
        self.night_id: int = night["id"]
        self.edit_token: str = night["edit_token"]
        self.view_token: str = night["view_token"]
        match = client.json("POST", f"/api/nights/{night['id']}/matches",
                            {"game": "svangknack", "players": players, "dealer": players[0],
                             "stake": "3.00"}, token=self.edit_token)
        self.id: int = match["id"]
        self.svangare: str = match["state"]["svangare"]

    def next_round(self) -> dict[str, Any]:
        """A valid round, varied: svängare alone, or with one knocker and tricks summing to 3.

        Tricks (3, 0) make the knocker bet (the pot grows, SK-9); (0, 3) makes
        the svängare bet; (2, 1) and (1, 2) pay out the pot and a fresh one is
        built (SK-6). All are valid in any state with the default options.
        """
        if self.rng.random() < 0.3:
            return {"participants": [self.svangare]}
        knocker = self.rng.choice([p for p in self.players if p != self.svangare])
        mine = self.rng.choice([3, 2, 1, 0])
        return {"participants": [self.svangare, knocker],
                "tricks": {self.svangare: mine, knocker: 3 - mine}}

    def enter_round(self, timings: Timings) -> bool:
        """POST one round; on success the state tells who is svängare next."""
        status, payload, seconds = self.client.request(
            "POST", f"/api/matches/{self.id}/rounds", self.next_round(),
            {"Authorization": f"Bearer {self.edit_token}"})
        if timings.add(status, seconds, 201):
            self.svangare = json.loads(payload)["state"]["svangare"]
            return True
        if status == 0 or status >= 500:
            return False
        # A 4xx means the round was refused: the bench's idea of the state is wrong.
        raise RuntimeError(f"round refused with {status}: {payload[:300]!r}")

    def on_new_phone(self, port: int) -> Match:
        """The same match seen from another phone (a fresh connection and no cookies yet)."""
        other = copy.copy(self)
        other.client = Client(port)
        return other

    def open_view_link(self) -> None:
        """The guest's way in: the view link puts the view right into the session cookie."""
        status, payload, _ = self.client.request("GET", f"/v/{self.view_token}")
        if status != 302 or "session" not in self.client.cookies:
            raise RuntimeError(f"view link answered {status} without a session: {payload[:200]!r}")

    def open_edit_link(self) -> None:
        """The leader's way in: the edit link (the page then shows the forms and void buttons)."""
        status, payload, _ = self.client.request("GET", f"/e/{self.edit_token}")
        if status != 302 or "session" not in self.client.cookies:
            raise RuntimeError(f"edit link answered {status} without a session: {payload[:200]!r}")

    def read_page(self, timings: Timings) -> None:
        status, _, seconds = self.client.request("GET", f"/matches/{self.id}")
        timings.add(status, seconds, 200)


# --- phases ------------------------------------------------------------------

@dataclass
class Phase:
    """The outcome of one timed, concurrent phase."""

    elapsed: float
    by_kind: dict[str, Timings]


def run_concurrently(clients: int, duration: float, setup: Any, step: Any) -> Phase:
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


def round_phase(port: int, clients: int, duration: float, pages: bool = True) -> Phase:
    """Each client: its own match; enter a round, read the match page (as a guest), repeat.

    ``pages=False`` leaves the page out: round entry alone, for diagnosis.
    """

    def setup(i: int) -> Match:
        rng = random.Random(i)
        match = Match(Client(port), PLAYERS[: 3 + i % 3], rng)  # 3, 4 or 5 players
        match.open_view_link()
        return match

    def step(match: Match, timings: dict[str, Timings]) -> None:
        match.enter_round(timings.setdefault("round", Timings()))
        if pages:
            match.read_page(timings.setdefault("page", Timings()))

    return run_concurrently(clients, duration, setup, step)


def floor_phase(port: int, clients: int, duration: float) -> Phase:
    """The same clients, one bare insert per request."""

    def step(client: Client, timings: dict[str, Timings]) -> None:
        status, _, seconds = client.request("POST", "/bench/floor")
        timings.setdefault("floor", Timings()).add(status, seconds, 201)

    return run_concurrently(clients, duration, lambda i: Client(port), step)


def build_match(port: int, rounds: int, edit: bool) -> Match:
    """A match with ``rounds`` rounds, entered one after another as fast as the server takes them."""
    match = Match(Client(port), PLAYERS[:4], random.Random(rounds))
    sink = Timings()
    while len(sink.ok) < rounds:
        match.enter_round(sink)
        if sum(sink.failed.values()) > 100:
            raise RuntimeError(f"building the match failed too often: {dict(sink.failed)}")
    match.open_edit_link() if edit else match.open_view_link()
    return match


def page_times(matches: list[Match], reads: int) -> list[list[float]]:
    """``reads`` sequential GETs of each match page, interleaved so that drift hits all alike."""
    for m in matches:  # warm-up: templates compiled, caches filled, in both workers
        for _ in range(4):
            m.read_page(Timings())
    times: list[Timings] = [Timings() for _ in matches]
    for _ in range(reads):
        for m, t in zip(matches, times, strict=True):
            m.read_page(t)
    for t in times:
        if t.failed:
            raise RuntimeError(f"match page failed: {dict(t.failed)}")
    return [t.ok for t in times]


# --- the server ----------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


class Server:
    """gunicorn with the app on a throw-away database; stopped on exit, errors and Ctrl-C.

    The database is SQLite in ``workdir`` unless ``database_url`` names another
    (empty) one, e.g. a throw-away PostgreSQL database (``bench/soak.py``).
    """

    def __init__(self, workdir: Path, workers: int = 2, database_url: str | None = None) -> None:
        self.workdir = workdir
        self.workers = workers
        self.port = free_port()
        self.log = workdir / "gunicorn.log"
        self.database_url = database_url or f"sqlite:///{workdir / 'bench.sqlite3'}"
        self.env = {**os.environ, "DATABASE_URL": self.database_url,
                    "REFEREE_BENCH": "1", "SECRET_KEY": "bench"}
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        subprocess.run([str(VENV_BIN / "flask"), "--app", "referee", "db", "upgrade"], cwd=ROOT, env=self.env,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                [str(VENV_BIN / "gunicorn"), "--workers", str(self.workers), "--bind", f"{HOST}:{self.port}",
                 "referee:create_app()"],
                cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.proc.returncode}:\n{self.tail()}")
            try:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=2)
                conn.request("GET", "/")
                if conn.getresponse().status == 200:
                    conn.close()
                    # Both workers import the app; give the second a moment too.
                    time.sleep(1.0)
                    return
                conn.close()
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"gunicorn did not answer within 30 s:\n{self.tail()}")

    def tail(self) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-30:])
        except OSError:
            return ""

    def stop(self) -> None:
        """SIGTERM to the gunicorn master (it stops its workers), SIGKILL if it lingers."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=30.0, help="seconds per concurrent phase (30)")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients (16)")
    parser.add_argument("--rounds", type=int, default=2000, help="rounds of the long match (2000)")
    parser.add_argument("--reads", type=int, default=40, help="sequential GETs per match page (40)")
    parser.add_argument("--quick", action="store_true", help="smoke run: 5 s, 4 clients, 200 rounds, 15 reads")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (2; 1 shows the cost of "
                        "SQLite lock waits between workers)")
    parser.add_argument("--no-pages", action="store_true",
                        help="phase 1 enters rounds only, without reading the match page (diagnosis)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (database, log)")
    args = parser.parse_args(argv)
    if args.quick:
        args.duration, args.clients, args.rounds, args.reads = 5.0, 4, 200, 15

    def on_term(_signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt  # same clean-up path as Ctrl-C

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # also when started in the background
    workdir = Path(tempfile.mkdtemp(prefix="referee-bench-"))
    server = Server(workdir, args.workers)
    try:
        server.start()
        print(f"gunicorn: {args.workers} workers on {HOST}:{server.port}, SQLite in {workdir}; "
              f"{args.clients} clients, {args.duration:g} s per phase; {machine()}", flush=True)

        print(f"phase 1: round entry{'' if args.no_pages else ' + match page'} ...", flush=True)
        rounds = round_phase(server.port, args.clients, args.duration, pages=not args.no_pages)
        print("phase 2: floor (one insert per request) ...", flush=True)
        floor = floor_phase(server.port, args.clients, args.duration)

        print(f"phase 3: building a {args.rounds}-round match and a 1-round match ...", flush=True)
        t0 = time.monotonic()
        long_view, short_view = build_match(server.port, args.rounds, False), build_match(server.port, 1, False)
        built = time.monotonic() - t0
        print(f"  built in {built:.1f} s ({(args.rounds + 1) / built:.0f} sequential rounds/s); "
              f"{args.reads} reads of each page, as guest and as leader ...", flush=True)
        view_short, view_long = page_times([short_view, long_view], args.reads)
        # The leader's phone sees the same matches with the round form and a void form per round.
        short_edit, long_edit = short_view.on_new_phone(server.port), long_view.on_new_phone(server.port)
        short_edit.open_edit_link()
        long_edit.open_edit_link()
        edit_short, edit_long = page_times([short_edit, long_edit], args.reads)
    except KeyboardInterrupt:
        print("\ninterrupted; stopping gunicorn", file=sys.stderr)
        return 130
    except Exception as exc:
        print(f"benchmark failed: {exc}\n--- gunicorn log (tail) ---\n{server.tail()}", file=sys.stderr)
        return 1
    finally:
        server.stop()
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)

    r, p, f = rounds.by_kind["round"], rounds.by_kind.get("page", Timings()), floor.by_kind["floor"]
    round_rate = len(r.ok) / rounds.elapsed
    mixed_rate = (len(r.ok) + len(p.ok)) / rounds.elapsed
    floor_rate = len(f.ok) / floor.elapsed
    ratio = round_rate / floor_rate if floor_rate else float("nan")
    p99 = percentile(r.ok, 99) * 1000
    med = {k: statistics.median(v) for k, v in
           {"vs": view_short, "vl": view_long, "es": edit_short, "el": edit_long}.items()}
    page_ratio = med["vl"] / med["vs"]
    edit_ratio = med["el"] / med["es"]

    print()
    print(f"=== results: {args.clients} clients, {args.duration:g} s per phase, "
          f"gunicorn {args.workers} sync workers, SQLite; {machine()} ===")
    print(line("round entry (POST)", r, rounds.elapsed, "rounds"))
    if p.ok:
        print(line("match page (GET)", p, rounds.elapsed, "pages "))
    print(f"{'  mixed phase total':<22} {mixed_rate:8.1f} req/s")
    print(line("floor (POST insert)", f, floor.elapsed, "ins.  "))
    print(f"match page, sequential median of {args.reads}:  guest  1 round {ms(med['vs'])}, "
          f"{args.rounds} rounds {ms(med['vl'])}, ratio {page_ratio:.2f}")
    print(f"{'':<43}leader 1 round {ms(med['es'])}, {args.rounds} rounds {ms(med['el'])}, "
          f"ratio {edit_ratio:.2f}")
    print()
    print(f"goal: round entry >= {GOAL_RATIO} x floor throughput: {round_rate:.1f} / {floor_rate:.1f} = "
          f"{ratio:.2f}  {verdict(ratio >= GOAL_RATIO)}"
          f"   (all requests of the mixed phase / floor: {mixed_rate / floor_rate:.2f})")
    print(f"goal: round entry p99 < {GOAL_P99_MS:g} ms: {p99:.1f} ms  {verdict(p99 < GOAL_P99_MS)}")
    print(f"goal: match page {args.rounds} rounds <= {GOAL_PAGE_RATIO} x 1 round (guest): {page_ratio:.2f}  "
          f"{verdict(page_ratio <= GOAL_PAGE_RATIO)}   (leader: {edit_ratio:.2f} "
          f"{verdict(edit_ratio <= GOAL_PAGE_RATIO)})")
    print()
    print(f"summary: round entry: {round_rate:.0f} rounds/s, p50 {ms(percentile(r.ok, 50))}, p99 {p99:.0f} ms | "
          f"floor: {floor_rate:.0f} inserts/s, p50 {ms(percentile(f.ok, 50))}, "
          f"p99 {ms(percentile(f.ok, 99))} | ratio {ratio:.2f} (goal >= {GOAL_RATIO}) | "
          f"match page 1 round: {ms(med['vs'])}, {args.rounds} rounds: {ms(med['vl'])}, "
          f"ratio {page_ratio:.2f} (goal <= {GOAL_PAGE_RATIO})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
