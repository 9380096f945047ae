"""A big club evening at a real pace: 120 tables of 4 play Svängknack, 480 phones and two hall displays follow live
(issue 43.7, "Bigger evenings"; issue 30 measured 40 tables of 5 whose leaders never paused).

Run from the repository root: ``.venv/bin/python bench/tournament.py`` (the default, about 12 minutes a backend on
an idle machine: 3 series of 120 tables, each a block of 60 s without the phones and one with them, alternating,
and the burst that ends the series; SQLite, then PostgreSQL) or ``--quick`` (one series of 30 s blocks, about 3
minutes a backend; ``--tables 4`` makes it tiny). Only HTTP, as a club's phones do; the bench's side is one asyncio
loop (``bench/follow.py``, ``httpx``).

For each backend it starts the app as ``make run`` serves it (gunicorn gthread workers, 2 a server), with the limits
raised for 480 phones as docs/deploying.md says ("A big evening"): ``THREADS`` threads a worker, ``LIVE_STREAMS`` =
threads - 60, the caps per night, link and address at their most (3/4 of a worker's streams: a club's phones share
one address and one view link), gunicorn's ``--worker-connections`` above the phones' two connections each and
``GUEST_PAGES`` twice the tables. On SQLite one server; on PostgreSQL (a private cluster, as the tests start theirs)
two servers behind a round-robin balancer on loopback (``tests/faults/proxy.py``'s ``PipeRoundRobinProxy``, in a
process of its own). It creates the tournament (``POST /api/tournaments``: ``--tables`` x 4 players, table size 4,
``--series`` + 1 series, so that every burst's ``next`` draws one), then per series:

- **two blocks** of ``--block`` seconds, in alternating order: **without phones**, and **with phones**. In both,
  each table's leader (its table token) enters a valid round about every ``PACE`` seconds (a random first moment,
  then 20 to 40 s apart: 4 rounds a second at 120 tables). With phones, every player's phone follows its table as
  ``static/js/live.js`` does: the leader's phone (table link) holds the stream; the three guests (view link) open
  their table's match page and do what it says (``state`` events on the stream, a fetch of the page at most once
  per ``LIVE_FOLLOW_GAP``; each guest's last fetch drawn evenly over the gap before the block, a long evening's
  steady state). Two hall displays follow the whole night and fetch the hall page at most once a second.
- **the burst**, with the phones: every table enters its last round and closes its match (``POST
  /api/matches/<id>/close``) at a random moment of one minute (``BURST``); when all are closed the organiser draws
  the next series (``POST /api/tournaments/<id>/next``, timed); the phones hang up and the next series is
  played at new tables.

Printed: round entry p50/p99 per condition (the burst's rounds apart), the close and the ``next``; the delay from a
round's ``201`` (as its leader saw it) to each phone's event, to the phone's page showing it (its state event or a
fetch after it) and to the end of its first whole fetch after it, and to the end of the first hall fetch that
began after the hall's event; the close's event at the phones; what was lost (a round or close some phone or
hall never saw, a failed fetch, a broken stream); the servers' CPU per round and this bench's, and how late its
loop woke; the servers'
memory (RSS of masters and workers: idle, phones following, after each burst, end). The ratio of round entry
speed with the phones to without (p50 without / p50 with) is taken per series, whose two blocks are neighbours,
and judged with ``bench/spread.py``. Goals (PASS/MISS): round p99 < 300 ms (with phones, burst included), phone's
event p99 < 1 s, hall p99 < 2 s, ``next`` < 2 s (each), nothing lost, speed with / without >= 0.8x. A benchmark,
not a test: exits 0 when a backend ran.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import shutil
import signal
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from types import FrameType
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

from follow import TIMEOUT, TLS, Follower
from load import Match, Timings, machine, ms, percentile, verdict
from serve import HOST, Server, database
from spread import describe

GOAL_ROUND_P99 = 0.300
GOAL_EVENT_P99 = 1.0
GOAL_HALL_P99 = 2.0
GOAL_NEXT = 2.0
GOAL_RATIO = 0.8
SEATS = 4
#: A table enters a round about this often (s): the first at a random moment of it, then 2/3 to 4/3 of it apart.
PACE = 30.0
#: Every table finishes its series (its last round, then the close) within this many seconds.
BURST = 60.0
#: Threads per worker, and the streams a worker may hold (THREADS - 60, as the Makefile): 480 phones and two halls
#: are 482 streams, which need not split evenly over a server's two workers.
THREADS = 800
LIVE_STREAMS = THREADS - 60
#: The caps per night, credential and address (referee/live_slots.py) at their most, 3/4 of a worker's streams: one
#: club, one view link, one router.
STREAM_CAP = LIVE_STREAMS * 3 // 4
#: gunicorn's connections per worker (its default 1000): each phone holds its stream and a kept-alive page fetch.
WORKER_CONNECTIONS = 2000
#: Guests' pages kept per worker (GUEST_PAGES, 64 by default) are twice the tables: a table's version lives a round
#: (30 s) and its three guests fetch it spread over their 30 s gap; 64 pages lasted 16 s at 120 tables.
GUEST_PAGES_PER_TABLE = 2
#: A page following the whole night fetches itself at most once in this many seconds (static/js/live.js ``GAP``).
HALL_GAP = 1.0
#: After a block, how long the phones' last events and the halls' last reads may take; later is "lost".
SETTLE = 15.0
#: Phones opening their pages at once before a block (the club arriving; not timed).
OPENING = 24


class Table(Match):
    """One table's match, entered by its leader with the table token (the tournament made the match)."""

    def __init__(self, base: str, table: dict[str, Any], night: int, view_token: str) -> None:
        self.rng, self.players = random.Random(table["match"]), list(table["players"])
        self.night_id, self.edit_token, self.view_token = night, table["table_token"], view_token
        self.id = int(table["match"])
        self.svangare = ""
        self.answered: dict[int, float] = {}  # round number -> when its 201 came (monotonic)
        self.closed_at: float | None = None
        self.http = httpx.AsyncClient(base_url=base, timeout=TIMEOUT, verify=TLS,
                                      headers={"Authorization": f"Bearer {self.edit_token}"})

    async def load(self) -> None:
        response = await self.http.get(f"/api/matches/{self.id}")
        if response.status_code != 200:
            raise RuntimeError(f"match {self.id} answered {response.status_code}")
        self.svangare = response.json()["state"]["svangare"]

    async def post(self, path: str, body: dict[str, Any]) -> tuple[int, bytes, float]:
        """A write as a phone sends it: with an ``Idempotency-Key``, once more with the same key if the connection
        broke (the server closed it idle), so that a write is never made twice; returns (status, body, seconds)."""
        headers = {"Idempotency-Key": uuid.uuid4().hex}
        start = time.perf_counter()
        for attempt in (1, 2):
            try:
                response = await self.http.post(path, json=body, headers=headers)
                return response.status_code, response.content, time.perf_counter() - start
            except httpx.TransportError:
                if attempt == 2:
                    break
        return 0, b"", time.perf_counter() - start

    async def enter(self, timings: Timings) -> None:
        status, payload, seconds = await self.post(f"/api/matches/{self.id}/rounds", self.next_round())
        now = time.monotonic()
        if timings.add(status, seconds, 201):
            body = json.loads(payload)
            self.svangare = body["state"]["svangare"]
            self.answered[body["round"]] = now
        elif status not in (0, 503) and status < 500:
            raise RuntimeError(f"round refused with {status}: {payload[:300]!r}")

    async def close(self, timings: Timings) -> None:
        status, payload, seconds = await self.post(f"/api/matches/{self.id}/close", {"pot": "split"})
        if timings.add(status, seconds, 200):
            self.closed_at = time.monotonic()
        elif status not in (0, 503) and status < 500:
            raise RuntimeError(f"close refused with {status}: {payload[:300]!r}")


@dataclass
class Figures:
    """What one backend's evening measured, over all its series."""

    backend: str
    rounds: dict[str, Timings] = field(
        default_factory=lambda: {"without": Timings(), "with": Timings(), "burst": Timings()})
    rounds_n: dict[str, int] = field(default_factory=lambda: {"without": 0, "with": 0, "burst": 0})
    closes: Timings = field(default_factory=Timings)
    nexts: list[float] = field(default_factory=list)
    next_failed: list[int] = field(default_factory=list)
    ratios: list[float] = field(default_factory=list)  # per series: round p50 without / with
    events: list[float] = field(default_factory=list)  # from a round's 201 to each phone's event
    close_events: list[float] = field(default_factory=list)  # from a close's 200 to each phone's event
    pages: list[float] = field(default_factory=list)  # ... to each guest's page showing the round
    wholes: list[float] = field(default_factory=list)  # ... to the guest's first whole fetch after it
    halls: list[float] = field(default_factory=list)  # ... to each hall's first fetch after its event
    lost: dict[str, int] = field(default_factory=lambda: {"events": 0, "closes": 0, "pages": 0, "halls": 0})
    page_reads: list[float] = field(default_factory=list)
    hall_reads: list[float] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)  # statuses of failed page and hall fetches
    broken: list[str] = field(default_factory=list)  # streams that broke
    reconnects: int = 0
    dropped: int = 0
    opening: list[float] = field(default_factory=list)  # seconds to open every phone's page and stream
    memory: dict[str, int] = field(default_factory=dict)  # KiB, all servers
    cpu: dict[str, float] = field(default_factory=lambda: {"without": 0.0, "with": 0.0})
    own: dict[str, float] = field(default_factory=lambda: {"without": 0.0, "with": 0.0})
    loads: list[str] = field(default_factory=list)
    lag: list[float] = field(default_factory=list)  # the bench's own loop: how late a 50 ms sleep woke (s)
    timing: bool = False  # a timed block or burst is under way (the probe counts only then)


async def create(base: str, tables: int, series: int) -> dict[str, Any]:
    """The evening: ``tables`` x 4 players, Svängknack at 3.00 SEK (SK-2: a stake in thirds)."""
    players = [f"Spelare {i:03d}" for i in range(1, tables * SEATS + 1)]
    body = {"name": "Stor klubbkväll", "currency": "SEK", "game": "svangknack", "players": players,
            "table_size": SEATS, "series": series, "stake": "3.00", "options": {}, "format": "series",
            "seed": "bench-big-evening"}
    async with httpx.AsyncClient(base_url=base, timeout=TIMEOUT, verify=TLS) as client:
        response = await client.post("/api/tournaments", json=body)
    if response.status_code != 201:
        raise RuntimeError(f"POST /api/tournaments answered {response.status_code}: {response.text[:300]}")
    return dict(response.json())


async def seat(base: str, drawn: list[dict[str, Any]], tour: dict[str, Any], expect: int) -> list[Table]:
    tables = [Table(base, t, tour["night"], tour["view_token"]) for t in drawn]
    if len(tables) != expect:
        raise RuntimeError(f"the draw made {len(tables)} tables, not {expect}")
    await asyncio.gather(*(t.load() for t in tables))
    return tables


async def at_once(jobs: list[Callable[[], Awaitable[None]]], limit: int) -> None:
    gate = asyncio.Semaphore(limit)

    async def one(job: Callable[[], Awaitable[None]]) -> None:
        async with gate:
            await job()

    await asyncio.gather(*(one(j) for j in jobs))


async def open_phones(base: str, tour: dict[str, Any], tables: list[Table], halls: int,
                      figures: Figures) -> tuple[list[Follower], list[Follower]]:
    """Every player's phone on its table (the first seat's by the table link, the others' by the view link) and
    the hall displays; streams open, guests in a steady state. Not timed, but its seconds are printed."""
    night, view = tour["night"], tour["view_token"]
    began = time.monotonic()
    phones = [Follower(base, night, t.edit_token if seat == 0 else view, t.id,
                       page=f"/matches/{t.id}" if seat else None,
                       link=f"/t/{t.edit_token}" if seat == 0 else f"/v/{view}", gap=0.0)
              for t in tables for seat in range(len(t.players))]
    walls = [Follower(base, night, view, None, page=f"/tournaments/{tour['id']}/hall", link=f"/v/{view}",
                      gap=HALL_GAP) for _ in range(halls)]
    everyone = [*phones, *walls]
    await at_once([v.prepare for v in everyone], OPENING)
    spread = random.Random(len(figures.events))
    for v in phones:  # a long evening's steady state: the guests last fetched their pages at times spread over a gap
        v.last = time.monotonic() - spread.uniform(0, v.gap)
    for v in everyone:
        v.start()
    try:
        await asyncio.wait_for(asyncio.gather(*(v.opened.wait() for v in everyone)), 60)
    except TimeoutError:
        pass
    failed = [v.error or "no first event" for v in everyone if v.error or not v.opened.is_set()]
    if failed:
        raise RuntimeError(f"{len(failed)} of {len(everyone)} streams did not open: {failed[:3]}")
    figures.opening.append(time.monotonic() - began)
    return phones, walls


async def hang_up(phones: list[Follower], walls: list[Follower], figures: Figures) -> None:
    everyone = [*phones, *walls]
    await asyncio.gather(*(v.close() for v in everyone))
    figures.broken += [v.error for v in everyone if v.error]
    figures.reconnects += sum(v.reconnects for v in everyone)
    figures.dropped += sum(v.dropped for v in everyone)
    for v in phones:
        figures.page_reads += [ended - began for began, ended, _ in v.reads]
        figures.failed += v.failed
    for v in walls:
        figures.hall_reads += [ended - began for began, ended, _ in v.reads]
        figures.failed += v.failed


async def play(tables: list[Table], seconds: float, pace: float, seed: int) -> tuple[Timings, float]:
    """Each table's leader enters a round about every ``pace`` seconds until the block ends."""
    timings = Timings()
    rng = random.Random(seed)
    start = time.monotonic()
    stop = start + seconds

    async def leader(t: Table, first: float) -> None:
        await asyncio.sleep(first)
        while time.monotonic() < stop:
            await t.enter(timings)
            pause = rng.uniform(pace * 2 / 3, pace * 4 / 3)
            if time.monotonic() + pause >= stop:
                return
            await asyncio.sleep(pause)

    for t in tables:
        t.answered.clear()
    await asyncio.gather(*(leader(t, rng.uniform(0, min(pace, seconds))) for t in tables))
    return timings, time.monotonic() - start


async def settle(tables: list[Table], phones: list[Follower], walls: list[Follower], closes: bool) -> None:
    """Wait until every phone and hall shows every round (and close) answered, or ``SETTLE`` seconds."""
    by_id = {t.id: t for t in tables}
    deadline = time.monotonic() + SETTLE

    def done() -> bool:
        for p in phones:
            t = by_id[p.match_id or 0]
            if not (all((t.id, r) in p.seen for r in t.answered) and p.idle()):
                return False
            if closes and t.closed_at is not None and t.id not in p.closes:
                return False
        return all(h.idle() and all((t.id, r) in h.seen for t in tables for r in t.answered) for h in walls)

    while time.monotonic() < deadline and not done():
        await asyncio.sleep(0.1)


def measure(tables: list[Table], phones: list[Follower], walls: list[Follower], figures: Figures,
            closes: bool) -> None:
    """The delays of the rounds (and closes) answered in the block, from each phone's and hall's notes."""
    by_id = {t.id: t for t in tables}
    for phone in phones:
        t = by_id[phone.match_id or 0]
        for round_no, answered in t.answered.items():
            arrived = phone.seen.get((t.id, round_no))
            if arrived is None:
                figures.lost["events"] += 1
            else:
                figures.events.append(max(0.0, arrived - answered))
            if phone.page is not None:
                shown = phone.updated(t.id, round_no)
                if shown is None:
                    figures.lost["pages"] += 1
                else:
                    figures.pages.append(max(0.0, shown - answered))
                if (whole := phone.fetched(t.id, round_no)) is not None:
                    figures.wholes.append(max(0.0, whole - answered))
        if closes and t.closed_at is not None:
            if (came := phone.closes.get(t.id)) is None:
                figures.lost["closes"] += 1
            else:
                figures.close_events.append(max(0.0, came - t.closed_at))
    for hall in walls:
        for t in tables:
            for round_no, answered in t.answered.items():
                shown = hall.fetched(t.id, round_no)
                if shown is None:
                    figures.lost["halls"] += 1
                else:
                    figures.halls.append(max(0.0, shown - answered))


async def block(condition: str, tables: list[Table], args: argparse.Namespace, figures: Figures,
                servers: list[Server], phones: list[Follower], walls: list[Follower], seed: int) -> float:
    """One timed block; returns its round p50 (for the series' ratio)."""
    cpu, own = sum(s.cpu_seconds() for s in servers), time.process_time()
    figures.timing = True
    timings, _ = await play(tables, args.block, args.pace, seed)
    figures.timing = False
    if phones:
        figures.memory["phones"] = max(figures.memory.get("phones", 0), sum(s.memory_kib() for s in servers))
        await settle(tables, phones, walls, closes=False)
        measure(tables, phones, walls, figures, closes=False)
    figures.cpu[condition] += sum(s.cpu_seconds() for s in servers) - cpu
    figures.own[condition] += time.process_time() - own
    figures.rounds[condition].merge(timings)
    figures.rounds_n[condition] += len(timings.ok)
    return statistics.median(timings.ok) if timings.ok else float("nan")


async def burst(base: str, tour: dict[str, Any], tables: list[Table], phones: list[Follower],
                walls: list[Follower], figures: Figures, within: float, seed: int) -> list[dict[str, Any]]:
    """Every table's last round and close within ``within`` seconds; then the organiser's ``next``, timed."""
    rng = random.Random(seed)
    timings = Timings()

    async def finish(t: Table, when: float) -> None:
        await asyncio.sleep(when)
        await t.enter(timings)
        await t.close(figures.closes)

    for t in tables:
        t.answered.clear()
    figures.timing = True
    await asyncio.gather(*(finish(t, rng.uniform(0, within)) for t in tables))
    figures.rounds["burst"].merge(timings)
    figures.rounds_n["burst"] += len(timings.ok)
    for phone in phones:
        phone.retired = phone.page is None  # the leaders' table links end with the series
    async with httpx.AsyncClient(base_url=base, timeout=TIMEOUT, verify=TLS,
                                 headers={"Authorization": f"Bearer {tour['edit_token']}"}) as organiser:
        start = time.perf_counter()
        response = await organiser.post(f"/api/tournaments/{tour['id']}/next", json={})
        seconds = time.perf_counter() - start
    if response.status_code != 201:
        figures.next_failed.append(response.status_code)
        raise RuntimeError(f"next answered {response.status_code}: {response.text[:300]}")
    figures.nexts.append(seconds)
    figures.timing = False
    await settle(tables, phones, walls, closes=True)
    measure(tables, phones, walls, figures, closes=True)
    return list(response.json()["tables"])


async def probe(figures: Figures) -> None:
    """How late the bench's own loop wakes: its part of every figure measured on it (its leaders' and phones'
    answers wait for the loop as the servers' do for their cores)."""
    while True:
        began = time.monotonic()
        await asyncio.sleep(0.05)
        if figures.timing:
            figures.lag.append(time.monotonic() - began - 0.05)


async def evening(base: str, args: argparse.Namespace, figures: Figures, servers: list[Server]) -> None:
    """Create the tournament, then per series the two blocks (alternating order) and the burst."""
    lag = asyncio.create_task(probe(figures))
    try:
        await _evening(base, args, figures, servers)
    finally:
        lag.cancel()


async def _evening(base: str, args: argparse.Namespace, figures: Figures, servers: list[Server]) -> None:
    tour = await create(base, args.tables, args.series + 1)
    tables = await seat(base, tour["tables"], tour, args.tables)
    await asyncio.gather(*(t.enter(Timings()) for t in tables))  # warm-up: caches, connections, both workers
    figures.memory["idle"] = sum(s.memory_kib() for s in servers)
    for k in range(args.series):
        figures.loads.append(machine())
        phones: list[Follower] = []
        walls: list[Follower] = []
        p50: dict[str, float] = {}
        for condition in (("without", "with") if k % 2 == 0 else ("with", "without")):
            print(f"  series {k + 1}/{args.series}: {args.block:g} s {condition} phones ...", flush=True)
            if condition == "with":
                phones, walls = await open_phones(base, tour, tables, args.halls, figures)
            elif phones:
                await hang_up(phones, walls, figures)
                phones, walls = [], []
            p50[condition] = await block(condition, tables, args, figures, servers, phones, walls,
                                         seed=k * 2 + len(p50))
        figures.ratios.append(p50["without"] / p50["with"])
        if not phones:
            phones, walls = await open_phones(base, tour, tables, args.halls, figures)
        print(f"  series {k + 1}/{args.series}: the burst (every table closes within {args.burst:g} s) and next ...",
              flush=True)
        drawn = await burst(base, tour, tables, phones, walls, figures, args.burst, seed=1000 + k)
        figures.memory["burst"] = max(figures.memory.get("burst", 0), sum(s.memory_kib() for s in servers))
        await hang_up(phones, walls, figures)
        await asyncio.gather(*(t.http.aclose() for t in tables))
        tables = await seat(base, drawn, tour, args.tables)
    figures.memory["end"] = sum(s.memory_kib() for s in servers)
    await asyncio.gather(*(t.http.aclose() for t in tables))


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
            server.env.update({"LIVE_STREAMS": str(LIVE_STREAMS), "LIVE_NIGHT_STREAMS": str(STREAM_CAP),
                               "LIVE_TOKEN_STREAMS": str(STREAM_CAP), "LIVE_ADDRESS_STREAMS": str(STREAM_CAP),
                               "GUNICORN_CMD_ARGS": f"--worker-connections {WORKER_CONNECTIONS}",
                               "GUEST_PAGES": str(max(64, GUEST_PAGES_PER_TABLE * args.tables))})
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
        print(f"{backend}: {where}, each gunicorn 2 gthread workers x {THREADS} threads, {LIVE_STREAMS} streams; "
              f"{args.tables} tables of {SEATS}, {args.series} series of {args.block:g} s blocks each way and a "
              f"burst; {machine()}", flush=True)
        asyncio.run(evening(f"http://{HOST}:{port}", args, figures, servers))
        figures.loads.append(machine())
        return figures
    except KeyboardInterrupt:
        raise
    except Exception as exc:
        tails = "\n".join(f"--- server {s.port} ---\n{s.tail()}" for s in servers)
        print(f"{backend}: benchmark failed: {type(exc).__name__}: {exc}\n{tails}", file=sys.stderr)
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


def _p(values: list[float]) -> str:
    top = max(values, default=float("nan"))
    return f"p50 {ms(percentile(values, 50))}  p99 {ms(percentile(values, 99))}  max {ms(top)}"


def report(f: Figures, args: argparse.Namespace) -> list[str]:
    """The backend's figures and its verdict lines (returned for the summary)."""
    print(f"\n=== {f.backend}: {args.tables} tables of {SEATS} ({args.tables * SEATS} phones + {args.halls} hall "
          f"displays), {args.series} series of {args.block:g} s each way and a burst; load at each series and at "
          f"the end: {' | '.join(x.split('average ')[-1] for x in f.loads)} ===")
    for name, t in f.rounds.items():
        failed = f", failed {dict(t.failed)}" if t.failed else ""
        print(f"round entry {name:<8} {_p(t.ok)}  n={len(t.ok)}{failed}")
    print(f"close (burst)        {_p(f.closes.ok)}  n={len(f.closes.ok)}"
          f"{f', failed {dict(f.closes.failed)}' if f.closes.failed else ''}")
    print(f"next ({args.tables * SEATS} players)   {', '.join(ms(x) for x in f.nexts)}"
          f"{f', failed {f.next_failed}' if f.next_failed else ''}")
    print(f"phone's event after the round's 201:  {_p(f.events)}  events={len(f.events)}")
    print(f"phone's event after the close's 200:  {_p(f.close_events)}  events={len(f.close_events)}")
    print(f"guest's page showed the round:        {_p(f.pages)}  (state event or fetch; fetches {len(f.page_reads)}, "
          f"each {_p(f.page_reads)})")
    print(f"guest's whole page after the round:   {_p(f.wholes)}  (its first fetch after the event)")
    print(f"hall display updated after the 201:   {_p(f.halls)}  rounds={len(f.halls)}  (fetches {len(f.hall_reads)}, "
          f"each {_p(f.hall_reads)})")
    lost = sum(f.lost.values()) + len(f.failed) + len(f.broken) + sum(t.failed.total() for t in f.rounds.values())
    print(f"lost: {f.lost}, failed fetches {f.failed[:5]} ({len(f.failed)}), broken streams {f.broken[:3]} "
          f"({len(f.broken)}); streams opened again: at their lifetime {f.reconnects}, after a broken connection "
          f"{f.dropped}")
    print(f"this bench's loop woke late by: {_p(f.lag)}  (its share of every delay above)")
    print(f"phones opening their pages and streams (not timed): {', '.join(f'{x:.1f} s' for x in f.opening)}")
    cpu = {k: f.cpu[k] / f.rounds_n[k] * 1000 if f.rounds_n[k] else float("nan") for k in f.cpu}
    own = {k: f.own[k] / f.rounds_n[k] * 1000 if f.rounds_n[k] else float("nan") for k in f.own}
    print(f"servers' CPU per round: without phones {cpu['without']:.1f} ms, with {cpu['with']:.1f} ms; this bench's "
          f"{own['without']:.1f} / {own['with']:.1f} ms (on the same cores)")
    mem = f.memory
    memory = (f"idle {mem['idle'] / 1024:.0f} MiB, phones following {mem['phones'] / 1024:.0f} MiB, "
              f"after the bursts {mem['burst'] / 1024:.0f} MiB, end {mem['end'] / 1024:.0f} MiB")
    print(f"server memory (RSS, {'both servers' if f.backend == 'postgres' else 'master + workers'}): {memory}")
    followed = f.rounds["with"].ok + f.rounds["burst"].ok
    p99, ev99, hall99 = percentile(followed, 99), percentile(f.events, 99), percentile(f.halls, 99)
    return [
        f"{verdict(p99 < GOAL_ROUND_P99)}  round entry p99 < {GOAL_ROUND_P99 * 1000:g} ms (with phones, burst "
        f"included): {ms(p99)}",
        f"{verdict(ev99 < GOAL_EVENT_P99)}  phone's event p99 < {GOAL_EVENT_P99:g} s: {ev99:.3f} s",
        f"{verdict(hall99 < GOAL_HALL_P99)}  hall update p99 < {GOAL_HALL_P99:g} s: {hall99:.3f} s" if args.halls
        else "----  hall update: no hall displays (--halls 0)",
        f"{verdict(bool(f.nexts) and max(f.nexts) < GOAL_NEXT)}  next for {args.tables * SEATS} players < "
        f"{GOAL_NEXT:g} s: {', '.join(f'{x:.2f} s' for x in f.nexts)}",
        f"{verdict(lost == 0)}  nothing lost (every round and close at every phone, every round at the halls, no "
        f"failed request or broken stream): {lost} lost",
        f"{describe(f.ratios, GOAL_RATIO, at_most=False)}  round entry speed with phones / without (p50 without / "
        f"with), per series" if f.ratios else "MISS  no ratio",
        f"----  server memory (RSS): {memory}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=120, help="tables of 4 players (120)")
    parser.add_argument("--series", type=int, default=3, help="series, each two blocks and a burst (3)")
    parser.add_argument("--block", type=float, default=60.0, help="seconds per timed block (60)")
    parser.add_argument("--pace", type=float, default=PACE, help=f"seconds between a table's rounds, about ({PACE:g})")
    parser.add_argument("--burst", type=float, default=BURST,
                        help=f"seconds in which every table finishes its series ({BURST:g})")
    parser.add_argument("--halls", type=int, default=2, help="hall displays (2)")
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--servers", type=int, default=2,
                        help="PostgreSQL's app servers (2, behind the balancer; 1: no balancer)")
    parser.add_argument("--quick", action="store_true", help="a quick check: one series of 30 s blocks")
    args = parser.parse_args(argv)
    if args.quick:
        args.series, args.block = 1, 30.0

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
    print(f"\ngoals ({args.tables} tables of {SEATS}; a shared machine: {machine()}):")
    for f, rows in summary:
        for row in rows:
            print(f"  {f.backend:<8} {row}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
