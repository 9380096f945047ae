"""Live benchmark: 200 phones follow the night's stream while 16 clients enter rounds.

Run from the repository root: ``.venv/bin/python bench/live.py`` (about a
minute) or ``--quick`` (a smoke run).

It starts the app as ``make run`` serves it (gunicorn, 2 gthread workers,
SQLite in a temporary directory; ``--database-url`` for PostgreSQL), makes
one night with one Svängknack match per client, then:

1. Without viewers: the clients enter rounds (as in ``bench/load.py``, each
   on its own match) for the duration: rounds/s.
2. With viewers: ``--viewers`` streams of ``GET /api/nights/<id>/live`` are
   opened (each follows one of the night's matches, split evenly) and held
   open while the clients enter rounds again. For every round each viewer of
   that match notes when its event arrived (viewers ask for their match's
   changes, ``?match=``, as the match pages and the table display do;
   ``--whole-night`` makes every viewer follow all the night's matches); the delay is measured from the
   round's ``201`` as the client saw it (same clock, same process).

The two conditions run interleaved (issue 29: a ratio of two blocks timed
minutes apart moves with the machine's load between them): ``--pairs`` pairs
of blocks of ``duration / pairs`` seconds, each pair in the other order than
the last (without, with; with, without); the viewers open their streams for
each block with viewers and hang up after it. Each pair gives its own ratio,
reported with their spread (``bench/spread.py``: PASS only when the whole
spread meets the goal, SPREAD when it crosses it).

It prints the delays (p50/p99/max), rounds/s with and without the viewers,
and the server's memory (resident set of gunicorn's master and workers).
Goals from the issue: event p99 < 1 s; round entry with the viewers >= 0.8 x
without. A benchmark, not a test: always exits 0, prints PASS/MISS.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

from load import HOST, PLAYERS, Client, Match, Timings, machine, ms, percentile, verdict
from serve import Server
from spread import describe

GOAL_P99 = 1.0
GOAL_RATIO = 0.8


class NightMatch(Match):
    """One of the night's matches (the night is shared, unlike ``bench/load.py``'s)."""

    def __init__(self, client: Client, night: dict[str, Any], players: list[str], rng: random.Random) -> None:
        self.client, self.rng, self.players = client, rng, players
        self.night_id, self.edit_token, self.view_token = night["id"], night["edit_token"], night["view_token"]
        match = client.json("POST", f"/api/nights/{night['id']}/matches",
                            {"game": "svangknack", "players": players, "dealer": players[0], "stake": "3.00"},
                            token=self.edit_token)
        self.id = match["id"]
        self.svangare = match["state"]["svangare"]
        self.answered: dict[int, float] = {}  # round number -> when its 201 came (monotonic)

    def enter(self, timings: Timings) -> None:
        status, payload, seconds = self.client.request(
            "POST", f"/api/matches/{self.id}/rounds", self.next_round(),
            {"Authorization": f"Bearer {self.edit_token}"})
        now = time.monotonic()
        if (body := self.took_round(timings, status, payload, seconds)) is not None:
            self.answered[body["round"]] = now


class Viewer(threading.Thread):
    """One phone holding the stream open; notes when each event of its match arrives."""

    def __init__(self, port: int, night_id: int, view_token: str, match_id: int, whole_night: bool) -> None:
        super().__init__(daemon=True)
        self.query = "" if whole_night else f"&match={match_id}"
        self.port, self.night_id, self.token, self.match_id = port, night_id, view_token, match_id
        self.arrived: dict[int, float] = {}
        self.opened = threading.Event()
        self.error = ""
        self.conn: http.client.HTTPConnection | None = None
        self.closed = False

    def run(self) -> None:
        try:
            self.conn = conn = http.client.HTTPConnection(HOST, self.port, timeout=120)
            conn.request("GET", f"/api/nights/{self.night_id}/live?view={self.token}{self.query}")
            resp = conn.getresponse()
            if resp.status != 200:
                raise RuntimeError(f"stream answered {resp.status}")
            buf = b""
            while chunk := resp.read1(65536):
                buf += chunk
                while b"\n\n" in buf:
                    block, buf = buf.split(b"\n\n", 1)
                    kind = b"change"
                    for line in block.split(b"\n"):
                        if line.startswith(b"event: "):
                            kind = line[7:]
                        elif line.startswith(b"data: "):
                            self.opened.set()
                            if kind == b"change":
                                self.on_event(json.loads(line[6:]), time.monotonic())
                            else:  # a match's state (?state=1): what a guest's page shows from the stream
                                self.on_state(json.loads(line[6:]), time.monotonic())
        except Exception as exc:  # reported in the figures
            if not self.closed:
                self.error = f"{type(exc).__name__}: {exc}"
            self.opened.set()

    def on_event(self, event: dict[str, Any], now: float) -> None:
        """One change event as it arrived (``bench/tournament.py``'s hall display notes every match's)."""
        if event["match"] == self.match_id and event["what"] == "round":
            self.arrived.setdefault(event["round_no"], now)

    def on_state(self, data: dict[str, Any], now: float) -> None:
        """A ``state`` event (``bench/tournament.py``'s guests ask for them, as a guest's page does)."""

    def close(self) -> None:
        """Hang up, as a phone leaving the page: the stream's thread ends without an error."""
        self.closed = True
        sock = self.conn.sock if self.conn else None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def enter_rounds(matches: list[NightMatch], duration: float) -> tuple[Timings, float]:
    timings = [Timings() for _ in matches]
    stop = time.monotonic() + duration
    barrier = threading.Barrier(len(matches) + 1)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        barrier.wait()
        try:
            while time.monotonic() < stop:
                matches[i].enter(timings[i])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(matches))]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.monotonic()
    for t in threads:
        t.join()
    if errors:
        raise RuntimeError(f"a client failed: {errors[0]!r}") from errors[0]
    merged = Timings()
    for t in timings:
        merged.merge(t)
    return merged, time.monotonic() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=20.0, help="seconds per condition (20), split over "
                        "the pairs of blocks")
    parser.add_argument("--pairs", type=int, default=3, help="interleaved pairs of blocks without/with (3)")
    parser.add_argument("--clients", type=int, default=16, help="clients entering rounds (16)")
    parser.add_argument("--viewers", type=int, default=200, help="open streams (200)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (2, as make run)")
    parser.add_argument("--threads", type=int, default=400, help="threads per worker (400, as make run)")
    parser.add_argument("--database-url", default=None, help="an empty database (default: SQLite in a temp dir)")
    parser.add_argument("--whole-night", action="store_true",
                        help="viewers follow every match of the night (no ?match=): 16x the events")
    parser.add_argument("--quick", action="store_true", help="smoke run: 5 s, 4 clients, 40 viewers")
    args = parser.parse_args(argv)
    if args.quick:
        args.duration, args.clients, args.viewers = 5.0, 4, 40

    def on_term(_signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    workdir = Path(tempfile.mkdtemp(prefix="referee-bench-live-"))
    server = Server(workdir, args.workers, args.database_url, threads=args.threads)
    backend = "PostgreSQL" if args.database_url else "SQLite"
    try:
        server.start()
        print(f"gunicorn: {args.workers} gthread workers x {args.threads} threads on {HOST}:{server.port}, "
              f"{backend}; {args.clients} clients, {args.viewers} viewers, {args.duration:g} s per phase; "
              f"{machine()}", flush=True)
        setup = Client(server.port)
        night = setup.json("POST", "/api/nights", {"name": "Live bench", "currency": "SEK", "players": PLAYERS})
        matches = [NightMatch(Client(server.port), night, PLAYERS[: 3 + i % 3], random.Random(i))
                   for i in range(args.clients)]
        idle_kib = server.memory_kib()

        block = args.duration / max(1, args.pairs)
        alone, watched = Timings(), Timings()
        alone_s = watched_s = 0.0
        ratios: list[float] = []
        delays: list[float] = []
        missing = 0
        open_kib = busy_kib = 0
        by_id = {m.id: m for m in matches}
        for k in range(max(1, args.pairs)):
            rates: dict[str, float] = {}
            for cond in (("alone", "watched") if k % 2 == 0 else ("watched", "alone")):
                if cond == "alone":
                    print(f"pair {k + 1}/{args.pairs}: round entry without viewers ({block:.1f} s) ...", flush=True)
                    timings, seconds = enter_rounds(matches, block)
                    alone.merge(timings)
                    alone_s += seconds
                    rates[cond] = len(timings.ok) / seconds
                    continue
                print(f"pair {k + 1}/{args.pairs}: {args.viewers} viewers open the stream, round entry "
                      f"({block:.1f} s) ...", flush=True)
                viewers = [Viewer(server.port, night["id"], night["view_token"], matches[i % len(matches)].id,
                                  args.whole_night) for i in range(args.viewers)]
                for v in viewers:
                    v.start()
                for v in viewers:
                    v.opened.wait(30)
                failed = [v.error for v in viewers if v.error or not v.opened.is_set()]
                if failed:
                    raise RuntimeError(f"{len(failed)} viewers could not open the stream: {failed[:3]}")
                open_kib = max(open_kib, server.memory_kib())
                for m in matches:
                    m.answered.clear()
                timings, seconds = enter_rounds(matches, block)
                watched.merge(timings)
                watched_s += seconds
                rates[cond] = len(timings.ok) / seconds
                busy_kib = max(busy_kib, server.memory_kib())
                time.sleep(2.0)  # the last events are on their way
                for v in viewers:
                    for round_no, answered in by_id[v.match_id].answered.items():
                        arrived = v.arrived.get(round_no)
                        if arrived is None:
                            missing += 1
                        else:
                            delays.append(max(0.0, arrived - answered))
                for v in viewers:
                    v.close()
                for v in viewers:
                    v.join(5)
            if rates["alone"]:
                ratios.append(rates["watched"] / rates["alone"])
    except KeyboardInterrupt:
        print("\ninterrupted; stopping gunicorn", file=sys.stderr)
        return 130
    except Exception as exc:
        print(f"benchmark failed: {exc}\n--- gunicorn log (tail) ---\n{server.tail()}", file=sys.stderr)
        return 1
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)

    rate_alone = len(alone.ok) / alone_s if alone_s else 0.0
    rate_watched = len(watched.ok) / watched_s if watched_s else 0.0
    ratio = rate_watched / rate_alone if rate_alone else float("nan")
    p99 = percentile(delays, 99)
    print()
    print(f"=== results: {args.clients} clients, {args.viewers} viewers "
          f"({'whole night' if args.whole_night else 'one match each'}), {args.duration:g} s per phase, "
          f"gunicorn {args.workers} gthread workers x {args.threads}, {backend}; {machine()} ===")
    print(f"round entry without viewers: {rate_alone:7.1f} rounds/s  p50 {ms(percentile(alone.ok, 50))}  "
          f"p99 {ms(percentile(alone.ok, 99))}  n={len(alone.ok)}")
    print(f"round entry with viewers:    {rate_watched:7.1f} rounds/s  p50 {ms(percentile(watched.ok, 50))}  "
          f"p99 {ms(percentile(watched.ok, 99))}  n={len(watched.ok)}")
    print(f"event delay after the 201:   p50 {ms(percentile(delays, 50))}  p99 {ms(p99)}  "
          f"max {ms(max(delays, default=float('nan')))}  events={len(delays)} missing={missing}")
    print(f"server memory (RSS, master + workers): idle {idle_kib / 1024:.0f} MiB, {args.viewers} streams open "
          f"{open_kib / 1024:.0f} MiB, under load {busy_kib / 1024:.0f} MiB")
    print()
    print(f"goal: event p99 < {GOAL_P99:g} s: {p99:.3f} s  {verdict(p99 < GOAL_P99 and not missing)}")
    print(f"goal: round entry with viewers >= {GOAL_RATIO} x without, per pair of interleaved blocks: "
          f"{describe(ratios or [ratio], GOAL_RATIO, at_most=False)}; overall {rate_watched:.1f} / {rate_alone:.1f} = "
          f"{ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
