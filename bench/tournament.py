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

Here the command line, the servers and the evening's course (series, blocks, bursts); the parts, each a job of its
own: ``tournament_tables.py`` (the tournament, the leaders' pace, the burst and ``next``), ``tournament_phones.py``
(the phones and halls seated, hung up, and the delays they saw), ``tournament_figures.py`` (what was measured) and
``tournament_report.py`` (the figures printed, PASS/MISS, the ratio's spread).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import shutil
import signal
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from multiprocessing.connection import Connection
from pathlib import Path
from types import FrameType

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

from follow import Follower
from serve import HOST, Server, Timings, database, machine
from tournament_figures import Figures
from tournament_phones import hang_up, measure, open_phones, settle
from tournament_report import report
from tournament_tables import BURST, PACE, SEATS, Table, burst, create, play, seat

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
        drawn = await burst(base, tour, tables, phones, figures, args.burst, seed=1000 + k)
        await settle(tables, phones, walls, closes=True)
        measure(tables, phones, walls, figures, closes=True)
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
