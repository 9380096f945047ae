"""Load benchmark: round entry and the match page against a bare-insert floor.

Run from the repository root: ``.venv/bin/python bench/load.py`` (about three
minutes) or ``.venv/bin/python bench/load.py --quick`` (a smoke run).

It starts the app with gunicorn as ``make run`` does (2 gthread workers,
SQLite in a temporary directory) on loopback. The clients behave like
phones: each keeps its connection open (HTTP/1.1 keep-alive) and has its own
night and Svängknack match. It measures:

1. Phones: loop for the duration: enter a valid round through the JSON API,
   then read the match page (HTML, with the view-link session).
2. Rounds only: the same without the page.
3. The floor: the same clients hammer ``POST /bench/floor`` (one SQLite
   insert in the same app, same server, same database) for the same duration.
   Round entry does strictly more work; the goal is that it costs at most
   twice as much (rounds/s >= half the floor's inserts/s, in phase 1 and in
   phase 2) with p99 < 100 ms.
   The three phases run interleaved (issue 29: a floor timed in another block
   than its subject moves with the machine's load between the blocks):
   ``--blocks`` rounds of the three, each ``duration / blocks`` long, their
   order rotated every round; each round gives its own ratios, and a ratio is
   reported with their spread (``bench/spread.py``: PASS only when the whole
   spread meets the goal, SPREAD when it crosses it).
4. Page size: one match with many rounds and one with a single round; the
   median time of sequential GETs of each match page, read alternately. The
   page reads the state from the snapshot (no replay), so a long match should
   cost at most 1.5 times a short one; the spread is that of the ratios of
   groups of consecutive reads (medians of ``PAGE_GROUP`` reads each).

``--threads 0`` runs sync workers instead (a new connection per request).
A benchmark, not a test: it always exits 0 and prints PASS/MISS per goal.
Clients are threads of this process with stdlib ``http.client`` (no new
dependencies); the server's two workers are the bottleneck, the clients
mostly wait on sockets. Latency is wall clock per request, as the client
sees it, including queueing at the server.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serve import (  # also for bench/live.py and bench/soak.py, which import them from here
    HOST,
    ROOT,
    VENV_BIN,
    Client,
    Phase,
    Server,
    Timings,
    line,
    machine,
    ms,
    percentile,
    run_concurrently,
    verdict,
)
from spread import describe

__all__ = ["HOST", "PLAYERS", "ROOT", "VENV_BIN", "Client", "Match", "Server", "Timings", "machine", "ms",
           "percentile", "run_concurrently", "verdict"]

PLAYERS = ["Anna", "Bo", "Cia", "Dan", "Eva"]
#: Threads per gthread worker, as ``make run`` (THREADS in the Makefile).
THREADS = 150

#: Goals from the issue.
GOAL_RATIO = 0.5
GOAL_P99_MS = 100.0
GOAL_PAGE_RATIO = 1.5
#: Reads per group for the page ratio's spread (a single read pair is mostly noise; a group's median is not).
PAGE_GROUP = 5


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
        return self.took_round(timings, *self.client.request(
            "POST", f"/api/matches/{self.id}/rounds", self.next_round(),
            {"Authorization": f"Bearer {self.edit_token}"})) is not None

    def took_round(self, timings: Timings, status: int, payload: bytes, seconds: float) -> dict[str, Any] | None:
        """A round's answer, timed: its body on a 201 (the state says who is svängare next), None for no answer
        or a 5xx. A 4xx means the round was refused: the bench's idea of the state is wrong, and it stops."""
        if timings.add(status, seconds, 201):
            body: dict[str, Any] = json.loads(payload)
            self.svangare = body["state"]["svangare"]
            return body
        if status == 0 or status >= 500:
            return None
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=30.0, help="seconds per concurrent phase (30), "
                        "split over the blocks")
    parser.add_argument("--blocks", type=int, default=3, help="interleaved rounds of the three phases (3)")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients (16)")
    parser.add_argument("--rounds", type=int, default=2000, help="rounds of the long match (2000)")
    parser.add_argument("--reads", type=int, default=40, help="sequential GETs per match page (40)")
    parser.add_argument("--quick", action="store_true", help="smoke run: 5 s, 4 clients, 200 rounds, 15 reads")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (2; 1 shows the cost of "
                        "SQLite lock waits between workers)")
    parser.add_argument("--threads", type=int, default=THREADS,
                        help=f"threads per gthread worker ({THREADS}, as make run); 0: sync workers, a new "
                             "connection for every request")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (database, log)")
    args = parser.parse_args(argv)
    if args.quick:
        args.duration, args.clients, args.rounds, args.reads = 5.0, 4, 200, 15

    def on_term(_signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt  # same clean-up path as Ctrl-C

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # also when started in the background
    workdir = Path(tempfile.mkdtemp(prefix="referee-bench-"))
    server = Server(workdir, args.workers, threads=args.threads)
    try:
        server.start()
        print(f"{server.describe()} on {HOST}:{server.port}, SQLite in {workdir}; "
              f"{args.clients} clients, {args.duration:g} s per phase; {machine()}", flush=True)

        cpu: dict[str, float] = {"mixed": 0.0, "alone": 0.0, "floor": 0.0}  # the server's CPU s per phase
        block = args.duration / max(1, args.blocks)
        runs: dict[str, Callable[[], Phase]] = {
            "mixed": lambda: round_phase(server.port, args.clients, block, pages=True),
            "alone": lambda: round_phase(server.port, args.clients, block, pages=False),
            "floor": lambda: floor_phase(server.port, args.clients, block)}
        words = {"mixed": "round entry + match page, as phones do", "alone": "round entry alone",
                 "floor": "floor (one insert per request)"}
        blocks: dict[str, list[Phase]] = {name: [] for name in runs}
        order = list(runs)
        for k in range(max(1, args.blocks)):
            for name in order[k % 3:] + order[:k % 3]:  # rotated: no phase always first after a pause
                print(f"phases 1-3, block {k + 1}/{args.blocks}: {words[name]} ({block:.1f} s) ...", flush=True)
                before = server.cpu_seconds()
                blocks[name].append(runs[name]())
                cpu[name] += server.cpu_seconds() - before  # includes the clients' set-up requests (a few)
        mixed, alone, floor = (merged(blocks[name]) for name in ("mixed", "alone", "floor"))
        ratios = {name: [rate(b, "round") / rate(f, "floor") for b, f in zip(blocks[name], blocks["floor"],
                                                                                 strict=True) if rate(f, "floor")]
                  for name in ("mixed", "alone")}

        print(f"phase 4: building a {args.rounds}-round match and a 1-round match ...", flush=True)
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
    report(args, server, mixed, alone, floor, {"vs": view_short, "vl": view_long, "es": edit_short,
                                               "el": edit_long}, cpu, ratios)
    return 0


def rate(phase: Phase, kind: str) -> float:
    """Successful requests of ``kind`` per second of the phase."""
    return len(phase.by_kind.get(kind, Timings()).ok) / phase.elapsed if phase.elapsed else 0.0


def merged(phases: list[Phase]) -> Phase:
    """The blocks of one phase as one: their time added, their timings pooled."""
    by_kind: dict[str, Timings] = {}
    for phase in phases:
        for kind, timings in phase.by_kind.items():
            by_kind.setdefault(kind, Timings()).merge(timings)
    return Phase(elapsed=sum(p.elapsed for p in phases), by_kind=by_kind)


def group_ratios(long: list[float], short: list[float]) -> list[float]:
    """Ratios of the medians of groups of ``PAGE_GROUP`` consecutive reads (the reads alternate long, short)."""
    out = []
    for i in range(0, min(len(long), len(short)) - PAGE_GROUP + 1, PAGE_GROUP):
        out.append(statistics.median(long[i:i + PAGE_GROUP]) / statistics.median(short[i:i + PAGE_GROUP]))
    return out or [statistics.median(long) / statistics.median(short)]


def report(args: argparse.Namespace, server: Server, mixed: Phase, alone: Phase, floor: Phase,
           pages: dict[str, list[float]], cpu: dict[str, float], ratios: dict[str, list[float]]) -> None:
    """The figures and the verdicts; the server's CPU per request says where a ratio goes."""
    r, p, f = mixed.by_kind["round"], mixed.by_kind.get("page", Timings()), floor.by_kind["floor"]
    a = alone.by_kind["round"]
    mixed_rate, alone_rate = len(r.ok) / mixed.elapsed, len(a.ok) / alone.elapsed
    floor_rate = len(f.ok) / floor.elapsed
    mixed_ratio = mixed_rate / floor_rate if floor_rate else float("nan")
    alone_ratio = alone_rate / floor_rate if floor_rate else float("nan")
    mixed_p99, alone_p99 = percentile(r.ok, 99) * 1000, percentile(a.ok, 99) * 1000
    med = {k: statistics.median(v) for k, v in pages.items()}
    page_ratio = med["vl"] / med["vs"]
    edit_ratio = med["el"] / med["es"]

    print()
    print(f"=== results: {args.clients} clients, {args.duration:g} s per phase, {server.describe()}, SQLite, "
          f"connections {'kept alive' if args.threads else 'closed after each answer'}; {machine()} ===")
    print("phones (a round, then the match page):")
    print(line("  round entry (POST)", r, mixed.elapsed, "rounds"))
    print(line("  match page (GET)", p, mixed.elapsed, "pages "))
    print("rounds only:")
    print(line("  round entry (POST)", a, alone.elapsed, "rounds"))
    print(line("floor (POST insert)", f, floor.elapsed, "ins.  "))
    per_floor = cpu["floor"] / max(1, len(f.ok)) * 1000
    per_round = cpu["alone"] / max(1, len(a.ok)) * 1000
    per_page = cpu["mixed"] / max(1, len(r.ok)) * 1000 - per_round
    print(f"server CPU per request: floor insert {per_floor:.2f} ms, round entry {per_round:.2f} ms "
          f"({per_round / per_floor:.1f} x), match page about {per_page:.2f} ms ({per_page / per_floor:.1f} x; "
          f"phones' rounds less rounds only)")
    print(f"match page, sequential median of {args.reads}:  guest  1 round {ms(med['vs'])}, "
          f"{args.rounds} rounds {ms(med['vl'])}, ratio {page_ratio:.2f}")
    print(f"{'':<43}leader 1 round {ms(med['es'])}, {args.rounds} rounds {ms(med['el'])}, "
          f"ratio {edit_ratio:.2f}")
    print()
    print(f"round entry with page reads / floor, per interleaved block: "
          f"{describe(ratios['mixed'] or [mixed_ratio], GOAL_RATIO, at_most=False)}; overall "
          f"{mixed_rate:.1f} / {floor_rate:.1f} = {mixed_ratio:.2f}")
    print(f"round entry alone / floor, per interleaved block: "
          f"{describe(ratios['alone'] or [alone_ratio], GOAL_RATIO, at_most=False)}; overall "
          f"{alone_rate:.1f} / {floor_rate:.1f} = {alone_ratio:.2f}")
    print(f"{verdict(mixed_p99 < GOAL_P99_MS)}  round entry p99 < {GOAL_P99_MS:g} ms with page reads: "
          f"{mixed_p99:.1f} ms")
    print(f"{verdict(alone_p99 < GOAL_P99_MS)}  round entry p99 < {GOAL_P99_MS:g} ms alone: {alone_p99:.1f} ms")
    print(f"match page {args.rounds} rounds / 1 round, guest, per group of {PAGE_GROUP} reads: "
          f"{describe(group_ratios(pages['vl'], pages['vs']), GOAL_PAGE_RATIO)}")
    print(f"match page {args.rounds} rounds / 1 round, leader, per group of {PAGE_GROUP} reads: "
          f"{describe(group_ratios(pages['el'], pages['es']), GOAL_PAGE_RATIO)}")
    print()
    print(f"summary: phones {mixed_rate:.0f} rounds/s (p99 {mixed_p99:.0f} ms, {mixed_ratio:.2f} x floor) | "
          f"rounds only {alone_rate:.0f} rounds/s (p99 {alone_p99:.0f} ms, {alone_ratio:.2f} x floor) | "
          f"floor {floor_rate:.0f} inserts/s | match page 2000/1 rounds {page_ratio:.2f}")


if __name__ == "__main__":
    sys.exit(main())
