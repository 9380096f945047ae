"""Club evening: 40 tables of 5 play Svängknack, 200 phones and two hall displays follow live (issue 30, "Scale").

Run from the repository root: ``.venv/bin/python bench/tournament.py`` (about three minutes idle: SQLite, then
PostgreSQL) or ``--quick`` (a smoke run; ``--tables 2`` makes it tiny). Only HTTP, as a club's phones do.

For each backend it starts the app as ``make run`` serves it (gunicorn, 2 gthread workers x 400 threads,
``LIVE_STREAMS`` = threads - 60): on SQLite one server; on PostgreSQL (a private cluster, as the tests start
theirs) two servers behind a round-robin balancer on loopback (``tests/faults/proxy.py``'s
``PipeRoundRobinProxy``, in a process of its own so that its copying does not compete with the phones for this
process's interpreter lock). It creates the tournament (``POST /api/tournaments``: ``--tables`` x 5 players,
``table_size`` 5) and then times alternating blocks (``--blocks`` of each, ``--block`` seconds) of:

- **without viewers**: each table's leader (its table token, kept-alive connection) enters valid Svängknack
  rounds as fast as the server takes them (``POST /api/matches/<id>/rounds``, as ``bench/load.py`` makes them);
- **with viewers**: the same, while every player's phone follows its table as ``static/js/live.js`` does: the
  night's live stream for its table (``GET /api/nights/<id>/live?match=``), and after each of its table's
  rounds a fetch of the table's match page (``GET /matches/<id>``, ``X-Live``, one at a time; events during a
  fetch make one more after it), through the session of the view link (``/v/<token>``) it opened first. The
  leader's phone (the table link) holds the stream and fetches nothing on its own rounds, as live.js (the
  leaders here enter by the API). Two hall displays follow the whole night and fetch the hall page
  (``/tournaments/<id>/hall``) at most once a second, as live.js fetches a page that follows the whole night.
  ``--phones stream``: the phones hold the stream only (the model of the figures before 2026-11-26 evening).
  A guest's page that asks for ``state`` events fetches itself at most once per its gap, and the guests start
  each block as a long evening's steady state: each last fetched its page at a time drawn evenly over the gap
  before the block. The phones hang up at the end of the block.

Printed: round entry p50/p99 and rounds/s per condition; the delay from a round's ``201`` (as its leader saw
it) to each phone's event, to the end of the phone's first page fetch that began after it, and to the end of
the first hall fetch that began after the hall's event (p50/p99); the servers' and this bench's CPU per round;
the servers' memory (RSS of masters and workers); PASS/MISS for the goals. The ratio of round entry with the
viewers to without is taken per pair of neighbouring blocks; its median and spread are judged with
``bench/spread.py`` (SPREAD when the spread crosses the goal). Latency is closed-loop (leaders that never
pause), so it includes the queue at the server. A benchmark, not a test: exits 0 when it ran.
"""

from __future__ import annotations

import argparse
import bisect
import multiprocessing
import random
import re
import shutil
import signal
import statistics
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

from live import NightMatch, Viewer, enter_rounds
from load import Client, Timings, machine, ms, percentile, verdict
from serve import Server, database
from spread import describe

GOAL_ROUND_P99 = 0.150
GOAL_EVENT_P99 = 1.0
GOAL_HALL_P99 = 2.0
GOAL_RATIO = 0.8
SEATS = 5
#: As the Makefile's ``make run``: threads per worker, and the streams a worker may hold (THREADS - 60).
THREADS = 400
LIVE_STREAMS = THREADS - 60
#: A stream's server thread notices a phone that hung up within ``referee.live.LOOK`` (2 s).
HANG_UP = 2.5
#: A page following the whole night fetches itself at most once in this many seconds (static/js/live.js ``GAP``).
HALL_GAP = 1.0
#: After a block, how long the phones' last events and the halls' last reads may take; later is "missing".
SETTLE = 15.0


class Table(NightMatch):
    """One table's match, entered by its leader with the table token (the tournament made the match)."""

    def __init__(self, client: Client, table: dict[str, Any], night: int, view_token: str) -> None:
        self.client, self.rng, self.players = client, random.Random(table["table"]), list(table["players"])
        self.night_id, self.edit_token, self.view_token = night, table["table_token"], view_token
        self.id = int(table["match"])
        match = client.json("GET", f"/api/matches/{self.id}", token=self.edit_token, expect=200)
        self.svangare = match["state"]["svangare"]
        self.answered: dict[int, float] = {}


class Follower(Viewer):
    """A page that follows the night live, as ``static/js/live.js`` does it: the stream, and a fetch of the page.

    Each event the page shows (a match page: its match's and the night-wide ones; a page of the whole night:
    all) makes the page fetch itself again with ``X-Live``: one fetch at a time, at most one per ``gap``
    seconds (live.js ``GAP``: 0 for a match page, 1 s for the hall), events during a fetch or the wait make
    one more fetch after it. The phone first opens its link (``/v/<view token>``, a table leader's
    ``/t/<table token>``) for the session cookie that carries its right, as a scanned QR code does, then its
    page; a page that says ``data-follow-gap`` (a guest's match page) asks its stream for the match's state
    (``state=1``), shows the numbers when a ``state`` event comes, and fetches itself at most once per that
    gap, as live.js. With ``page`` None only the stream is held (``--phones stream``: the figures before the
    phones fetched).
    """

    def __init__(self, port: int, night: int, token: str, match_id: int, *, whole_night: bool,
                 page: str | None, link: str, gap: float) -> None:
        super().__init__(port, night, token, match_id, whole_night=whole_night)
        self.whole_night, self.page, self.link, self.gap = whole_night, page, link, gap
        self.seen: dict[tuple[int, int], float] = {}  # (match, round) -> when its event arrived
        self.versions: dict[tuple[int, int], int] = {}  # (match, round) -> the night version of its event
        self.states: list[tuple[int, float]] = []  # (version, when) of each state event, in order
        self.reads: list[tuple[float, float]] = []  # (began, ended) of each successful fetch
        self.failed: list[int] = []
        self.dirty = threading.Event()
        self.reading = False
        self.last = -gap  # when the page last fetched itself
        self.reader = threading.Thread(target=self._read_loop, daemon=True)
        self.client = Client(port)

    def on_event(self, event: dict[str, Any], now: float) -> None:
        super().on_event(event, now)
        if event["what"] == "round" and event["match"] is not None:
            self.seen.setdefault((event["match"], event["round_no"]), now)
            self.versions.setdefault((event["match"], event["round_no"]), event["version"])
        if self.page is not None and (self.whole_night or event["match"] in (None, self.match_id)):
            self.dirty.set()

    def prepare(self) -> None:
        """Open the link (its right goes into the session cookie); before the block, not timed."""
        if self.page is not None:
            status, _, _ = self.client.request("GET", self.link)
            if status != 302:
                raise RuntimeError(f"{self.link.split('/')[1]} link answered {status}")
            status, body, _ = self.client.request("GET", self.page)
            if status != 200:
                raise RuntimeError(f"{self.page} answered {status}")
            if (follow := re.search(rb'data-follow-gap="(\d+)"', body)) and b"state=1" in body:
                self.gap = int(follow.group(1)) / 1000
                self.query += "&state=1"

    def on_state(self, data: dict[str, Any], now: float) -> None:
        self.states.append((int(data["version"]), now))

    def _read_loop(self) -> None:
        while not self.closed:
            if not self.dirty.wait(0.2):
                continue
            if (wait := self.last + self.gap - time.monotonic()) > 0:  # at most one fetch per gap, as the page
                time.sleep(wait)
            self.last = time.monotonic()
            self.reading = True
            self.dirty.clear()
            began = time.monotonic()
            status, _, _ = self.client.request("GET", self.page or "", headers={"X-Live": "1"})
            if status == 0:  # the server closed the idle kept-alive connection (2 s): once more, as a browser does
                status, _, _ = self.client.request("GET", self.page or "", headers={"X-Live": "1"})
            self.reading = False
            if status == 200:
                self.reads.append((began, time.monotonic()))
            else:
                self.failed.append(status)
        self.client.close()

    def start(self) -> None:
        super().start()
        if self.page is not None:
            self.reader.start()

    def idle(self) -> bool:
        """No fetch running and none due: the page shows every event it heard."""
        return not self.reading and not self.dirty.is_set()

    def fetched(self, match: int, round_no: int) -> float | None:
        """When the whole page showed the round: the end of the first fetch that began after the round's event."""
        arrived = self.seen.get((match, round_no))
        if arrived is None:
            return None
        k = bisect.bisect_left(self.reads, (arrived, 0.0))
        return self.reads[k][1] if k < len(self.reads) else None

    def updated(self, match: int, round_no: int) -> float | None:
        """When the page showed the round's numbers: its state event, or the fetch after it if that came first."""
        whole = self.fetched(match, round_no)
        version = self.versions.get((match, round_no))
        told = next((when for v, when in self.states if version is not None and v >= version), None)
        return min((t for t in (whole, told) if t is not None), default=None)


@dataclass
class Figures:
    """What one backend's evening measured, over all its blocks."""

    backend: str
    rounds: dict[str, Timings] = field(default_factory=lambda: {"without": Timings(), "with": Timings()})
    seconds: dict[str, float] = field(default_factory=lambda: {"without": 0.0, "with": 0.0})
    rates: dict[str, list[float]] = field(default_factory=lambda: {"without": [], "with": []})
    events: list[float] = field(default_factory=list)
    halls: list[float] = field(default_factory=list)
    missing_events: int = 0
    missing_halls: int = 0
    hall_reads: list[float] = field(default_factory=list)  # seconds each fetch of the hall page took
    pages: list[float] = field(default_factory=list)  # from a round's 201 to each phone's page showing it
    wholes: list[float] = field(default_factory=list)  # ... to the phone's fetch of the whole page after it
    missing_pages: int = 0
    page_reads: list[float] = field(default_factory=list)  # seconds each fetch of a phone's match page took
    page_failed: list[int] = field(default_factory=list)
    hall_failed: list[int] = field(default_factory=list)
    memory: dict[str, int] = field(default_factory=dict)  # KiB, all servers: idle, streams open, end
    cpu: dict[str, float] = field(default_factory=lambda: {"without": 0.0, "with": 0.0})  # servers' CPU seconds
    #: This process's CPU seconds over the same spans: the leaders' and the phones' side, on the same cores
    own: dict[str, float] = field(default_factory=lambda: {"without": 0.0, "with": 0.0})

    def ratios(self) -> list[float]:
        return [w / o for w, o in zip(self.rates["with"], self.rates["without"], strict=True) if o]


def create(port: int, tables: int) -> dict[str, Any]:
    """The club evening: ``tables`` x 5 players, one series, Svängknack at 3.00 SEK (SK-2: a stake in thirds)."""
    players = [f"Spelare {i:03d}" for i in range(1, tables * SEATS + 1)]
    body = {"name": "Klubbkväll", "currency": "SEK", "game": "svangknack", "players": players,
            "table_size": SEATS, "series": 1, "stake": "3.00", "options": {}, "format": "series",
            "seed": "bench-club-evening"}
    return Client(port).json("POST", "/api/tournaments", body)


def with_viewers(port: int, tour: dict[str, Any], tables: list[Table], args: argparse.Namespace,
                 figures: Figures, servers: list[Server]) -> tuple[Timings, float]:
    """One block with every player's phone on its table's page and the hall displays; the delays go into ``figures``.

    The first seat's phone is its table leader's (the table link): it holds the stream, and fetches nothing
    on its own table's rounds, as live.js (the page its own round form answered with is newer than the
    event; this bench's leaders enter by the API, whose answer is the state). The four others opened the
    view link and fetch their table's match page after each of its rounds (``--phones stream``: they hold
    the stream only and fetch nothing, the model of the figures before 2026-11-26 evening).
    """
    night, view = tour["night"], tour["view_token"]
    fetch = args.phones == "page"
    phones = [Follower(port, night, t.edit_token if seat == 0 else view, t.id, whole_night=False,
                       page=f"/matches/{t.id}" if fetch and seat else None,
                       link=f"/t/{t.edit_token}" if seat == 0 else f"/v/{view}", gap=0.0)
              for t in tables for seat in range(len(t.players))]
    halls = [Follower(port, night, view, 0, whole_night=True, page=f"/tournaments/{tour['id']}/hall",
                      link=f"/v/{view}", gap=HALL_GAP) for _ in range(args.halls)]
    for v in [*phones, *halls]:
        v.prepare()
    spread = random.Random(len(figures.pages))
    for v in phones:  # a long evening's steady state: the guests last fetched their pages at times spread over a gap
        v.last = time.monotonic() - spread.uniform(0, v.gap)
    for v in [*phones, *halls]:
        v.start()
    deadline = time.monotonic() + 60  # one deadline for all: a stream that never opens costs 60 s, not 60 s each
    for v in [*phones, *halls]:
        v.opened.wait(max(0.0, deadline - time.monotonic()))
    failed = [v.error or "no first event" for v in [*phones, *halls] if v.error or not v.opened.is_set()]
    if failed:
        raise RuntimeError(f"{len(failed)} of {len(phones) + len(halls)} streams did not open: {failed[:3]}")
    for t in tables:
        t.answered.clear()
    cpu = sum(s.cpu_seconds() for s in servers)  # from here: the phones' pages and streams are open already
    own = time.process_time()
    timings, seconds = enter_rounds(tables, args.block)
    memory = sum(s.memory_kib() for s in servers)
    figures.memory["streams"] = max(figures.memory.get("streams", 0), memory)
    by_id = {t.id: t for t in tables}
    settle = time.monotonic() + SETTLE  # the last events and hall reads are on their way: wait for them
    while time.monotonic() < settle and not (
            all(set(by_id[p.match_id].answered) <= set(p.arrived) and p.idle() for p in phones)
            and all(h.idle() and len(h.seen) >= sum(len(t.answered) for t in tables) for h in halls)):
        time.sleep(0.1)
    figures.cpu["with"] += sum(s.cpu_seconds() for s in servers) - cpu  # the block's rounds and what followed them
    figures.own["with"] += time.process_time() - own
    for v in [*phones, *halls]:
        v.close()
    for phone in phones:
        for round_no, answered in by_id[phone.match_id].answered.items():
            arrived = phone.arrived.get(round_no)
            if arrived is None:
                figures.missing_events += 1
            else:
                figures.events.append(max(0.0, arrived - answered))
            if phone.page is not None:
                shown = phone.updated(phone.match_id, round_no)
                if shown is None:
                    figures.missing_pages += 1
                else:
                    figures.pages.append(max(0.0, shown - answered))
                if (whole := phone.fetched(phone.match_id, round_no)) is not None:
                    figures.wholes.append(max(0.0, whole - answered))
        figures.page_reads += [ended - began for began, ended in phone.reads]
        figures.page_failed += phone.failed
    for hall in halls:
        figures.hall_reads += [ended - began for began, ended in hall.reads]
        figures.hall_failed += hall.failed
        for t in tables:
            for round_no, answered in t.answered.items():
                shown = hall.updated(t.id, round_no)
                if shown is None:
                    figures.missing_halls += 1
                else:
                    figures.halls.append(max(0.0, shown - answered))
    errors = [v.error for v in [*phones, *halls] if v.error]
    if errors:
        raise RuntimeError(f"{len(errors)} streams broke during the block: {errors[:3]}")
    return timings, seconds


def evening(port: int, args: argparse.Namespace, figures: Figures, servers: list[Server]) -> None:
    """Create the tournament, then the interleaved blocks (each pair starts with the other condition)."""
    tour = create(port, args.tables)
    tables = [Table(Client(port), t, tour["night"], tour["view_token"]) for t in tour["tables"]]
    if len(tables) != args.tables:
        raise RuntimeError(f"the draw made {len(tables)} tables of {args.tables * SEATS} players, not {args.tables}")
    enter_rounds(tables, min(2.0, args.block))  # warm-up: caches, connections, both workers
    figures.memory["idle"] = sum(s.memory_kib() for s in servers)
    for b in range(args.blocks):
        for condition in (("without", "with") if b % 2 == 0 else ("with", "without")):
            print(f"  block {b + 1}/{args.blocks} {condition} viewers ...", flush=True)
            for t in tables:  # gunicorn dropped the idle kept-alive connection (keepalive 2 s): a fresh one
                t.client.close()
            if condition == "with":
                timings, seconds = with_viewers(port, tour, tables, args, figures, servers)
                time.sleep(HANG_UP if args.block >= 5 else 0.5)  # the server lets the streams go
            else:
                cpu, own = sum(s.cpu_seconds() for s in servers), time.process_time()
                timings, seconds = enter_rounds(tables, args.block)
                figures.cpu[condition] += sum(s.cpu_seconds() for s in servers) - cpu
                figures.own[condition] += time.process_time() - own
            figures.rounds[condition].merge(timings)
            figures.seconds[condition] += seconds
            figures.rates[condition].append(len(timings.ok) / seconds)
    figures.memory["end"] = sum(s.memory_kib() for s in servers)
    for t in tables:  # no kept-alive connection for gunicorn's graceful stop to wait for
        t.client.close()


def _proxy_process(targets: list[int], conn: Connection) -> None:
    from tests.faults.proxy import PipeRoundRobinProxy

    proxy = PipeRoundRobinProxy(targets)
    conn.send(proxy.port)
    conn.recv()  # until the bench says stop (or dies: then recv raises and the process ends)


def run_backend(backend: str, args: argparse.Namespace) -> Figures | None:
    """One backend's evening; None (and the reason printed) when it could not run."""
    workdir = Path(tempfile.mkdtemp(prefix=f"referee-tourn-{backend}-"))
    figures = Figures(backend)
    proxy: multiprocessing.process.BaseProcess | None = None
    parent: Connection | None = None
    servers: list[Server] = []
    cluster = ExitStack()  # the PostgreSQL cluster, if any: stopped after the servers
    try:
        url = cluster.enter_context(database(backend == "postgres", "tourn_bench"))
        for k in range(args.servers if backend == "postgres" else 1):
            (workdir / str(k)).mkdir()
            server = Server(workdir / str(k), 2, url, threads=THREADS)
            server.env["LIVE_STREAMS"] = str(LIVE_STREAMS)
            servers.append(server)
            server.start()
        port = servers[0].port
        if len(servers) > 1:
            parent, child = multiprocessing.get_context("fork").Pipe()
            proxy = multiprocessing.get_context("fork").Process(
                target=_proxy_process, args=([s.port for s in servers], child), daemon=True)
            proxy.start()
            port = int(parent.recv())
        where = ("SQLite, one server" if backend == "sqlite" else
                 f"PostgreSQL, {len(servers)} servers behind the balancer" if len(servers) > 1 else
                 "PostgreSQL, one server, no balancer")
        print(f"{backend}: {where}, each gunicorn 2 gthread workers x {THREADS} threads; {args.tables} tables "
              f"of {SEATS}, {args.blocks} blocks of {args.block:g} s each way; {machine()}", flush=True)
        evening(port, args, figures, servers)
        return figures
    except KeyboardInterrupt:
        raise
    except Exception as exc:
        tails = "\n".join(f"--- server {s.port} ---\n{s.tail()}" for s in servers)
        print(f"{backend}: benchmark failed: {exc}\n{tails}", file=sys.stderr)
        return None
    finally:
        if parent is not None:
            parent.send("stop")
        if proxy is not None:
            proxy.join(5)
            if proxy.is_alive():
                proxy.terminate()
        for s in servers:
            s.stop()
        cluster.close()
        shutil.rmtree(workdir, ignore_errors=True)


def report(f: Figures, args: argparse.Namespace) -> list[str]:
    """The backend's figures and its verdict lines (returned for the summary)."""
    w, o = f.rounds["with"], f.rounds["without"]
    print(f"\n=== {f.backend}: {args.tables} tables of {SEATS} ({args.tables * SEATS} phones + {args.halls} hall "
          f"displays), {args.blocks} x {args.block:g} s each way; {machine()} ===")
    for name, t in (("without viewers", o), ("with viewers", w)):
        failed = f", failed {dict(t.failed)}" if t.failed else ""
        print(f"round entry {name:<16} {len(t.ok) / f.seconds[name.split()[0]]:7.1f} rounds/s  "
              f"p50 {ms(percentile(t.ok, 50))}  p99 {ms(percentile(t.ok, 99))}  n={len(t.ok)}{failed}  "
              f"(blocks: {', '.join(f'{r:.1f}' for r in f.rates[name.split()[0]])})")
    print(f"phone's event after the 201:  p50 {ms(percentile(f.events, 50))}  p99 {ms(percentile(f.events, 99))}  "
          f"max {ms(max(f.events, default=float('nan')))}  events={len(f.events)} missing={f.missing_events}")
    print(f"hall display updated after:   p50 {ms(percentile(f.halls, 50))}  p99 {ms(percentile(f.halls, 99))}  "
          f"max {ms(max(f.halls, default=float('nan')))}  rounds={len(f.halls)} missing={f.missing_halls}  "
          f"(reads {len(f.hall_reads)}{f', failed {f.hall_failed[:5]}' if f.hall_failed else ''})")
    print(f"hall page's fetch:            p50 {ms(percentile(f.hall_reads, 50))}  "
          f"p99 {ms(percentile(f.hall_reads, 99))}  (one fetch at a time per hall)")
    if args.phones == "page":
        print(f"phone's page shown after:     p50 {ms(percentile(f.pages, 50))}  p99 {ms(percentile(f.pages, 99))}  "
              f"rounds={len(f.pages)} missing={f.missing_pages}  (fetches {len(f.page_reads)}, "
              f"p50 {ms(percentile(f.page_reads, 50))}, p99 {ms(percentile(f.page_reads, 99))}"
              f"{f', failed {f.page_failed[:5]}' if f.page_failed else ''})")
        print(f"phone's whole page after:     p50 {ms(percentile(f.wholes, 50))}  p99 {ms(percentile(f.wholes, 99))}  "
              f"(its history and chart: the first fetch after the round's event)")
    cpu = {k: f.cpu[k] / len(t.ok) * 1000 if t.ok else float("nan") for k, t in f.rounds.items()}
    print(f"servers' CPU per round entered: without viewers {cpu['without']:.1f} ms, with {cpu['with']:.1f} ms "
          f"(the servers' work from the block's first round until its last was shown: the streams' and pages' "
          f"included, the phones' opening of their pages not)")
    own = {k: f.own[k] / len(t.ok) * 1000 if t.ok else float("nan") for k, t in f.rounds.items()}
    print(f"this bench's CPU per round:     without viewers {own['without']:.1f} ms, with {own['with']:.1f} ms "
          f"(the leaders', phones' and halls' side, on the servers' cores)")
    mem = f.memory
    print(f"server memory (RSS, {'both servers' if f.backend == 'postgres' else 'master + workers'}): "
          f"idle {mem['idle'] / 1024:.0f} MiB, streams open {mem['streams'] / 1024:.0f} MiB, "
          f"end {mem['end'] / 1024:.0f} MiB")
    ratios = f.ratios()
    p99 = percentile(w.ok, 99)
    ev99, hall99 = percentile(f.events, 99), percentile(f.halls, 99)
    lines = [
        f"{verdict(p99 < GOAL_ROUND_P99 and not w.failed)}  round entry p99 < {GOAL_ROUND_P99 * 1000:g} ms "
        f"(with viewers): {ms(p99)}",
        f"{verdict(ev99 < GOAL_EVENT_P99 and not f.missing_events)}  phone's event p99 < {GOAL_EVENT_P99:g} s: "
        f"{ev99:.3f} s{f' ({f.missing_events} missing)' if f.missing_events else ''}",
        f"{verdict(hall99 < GOAL_HALL_P99 and not f.missing_halls)}  hall update p99 < {GOAL_HALL_P99:g} s: "
        f"{hall99:.3f} s{f' ({f.missing_halls} missing)' if f.missing_halls else ''}" if args.halls else
        "----  hall update: no hall displays (--halls 0)",
        (f"{describe(ratios, GOAL_RATIO, at_most=False)}  round entry with viewers / without, per pair of blocks"
         if not (w.failed or o.failed) else
         f"MISS  round entry with viewers / without: no fair ratio, round entries failed "
         f"(without {dict(o.failed)}, with {dict(w.failed)}): {statistics.median(ratios):.2f}x")
        if ratios else "MISS  no ratio: a condition entered no rounds",
    ]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=40, help="tables of 5 players (40)")
    parser.add_argument("--block", type=float, default=8.0, help="seconds per timed block (8)")
    parser.add_argument("--blocks", type=int, default=3, help="blocks of each condition, alternating (3)")
    parser.add_argument("--halls", type=int, default=2, help="hall displays (2; 0: what the phones alone cost)")
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--servers", type=int, default=2,
                        help="PostgreSQL's app servers (2, behind the balancer; 1: no balancer, to see what it costs)")
    parser.add_argument("--phones", choices=("page", "stream"), default="page",
                        help="page: each phone fetches its table's page after its events, as live.js (the default); "
                             "stream: the phones hold the stream only (the figures before 2026-11-26 evening)")
    parser.add_argument("--quick", action="store_true", help="smoke run: 2 blocks of 2 s each way")
    args = parser.parse_args(argv)
    if args.quick:
        args.block, args.blocks = 2.0, 2

    def on_term(_signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    results: list[Figures] = []
    try:
        for backend in (("sqlite", "postgres") if args.backend == "both" else (args.backend,)):
            figures = run_backend(backend, args)
            if figures is not None:
                results.append(figures)
    except KeyboardInterrupt:
        print("\ninterrupted; servers stopped", file=sys.stderr)
        return 130
    if not results:
        return 1
    summary = [(f, report(f, args)) for f in results]
    print(f"\ngoals ({args.tables} tables; a shared machine: {machine()}):")
    for f, rows in summary:
        for row in rows:
            print(f"  {f.backend:<8} {row}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
