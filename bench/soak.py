"""Soak benchmark: many phones on a few matches for a long time; errors, latency, memory.

Run from the repository root: ``.venv/bin/python bench/soak.py`` (10 minutes
per backend, SQLite then PostgreSQL: about 21 minutes) or
``.venv/bin/python bench/soak.py --quick`` (a smoke run, about a minute).

For each backend it starts the app with gunicorn (``--workers`` sync workers)
on a throw-away database (SQLite in a temporary directory; PostgreSQL as a
private cluster on a loopback port, started like the tests do), creates
``--matches`` nights with one Svängknack match each, and lets ``--clients``
phones (two or more per match, so they race each other) loop for
``--duration`` seconds after a warm-up:

- enter a round through the JSON API with an ``Idempotency-Key`` and the
  ``Expected-Round`` it saw (a 409 from the other phone on the same match is
  expected; the phone then takes the fresh state from the 409 and goes on);
- send the last round again with the same key (must answer the first answer
  again, 201 with the same round number: counted once);
- read the match page (HTML, via the view link's session), the match (JSON)
  and the night's settlement (JSON);
- now and then void the round it entered last (a 422 when a later round of
  the other phone depends on it is expected; so is a 409, though rare: a void
  that loses a race is tried again on the new state, up to five times).

With ``--match-length N`` each match is played to N rounds and then
replaced by a new night and match (its phones move on together), so the
matches do not grow: memory that still grows then is not the matches'
length. Without it the matches grow for the whole run (up to the ledger's
``MAX_MATCH_EVENTS``).

It prints requests served, the error count (goal 0: any 5xx, transport
error or status the client did not expect; expected conflicts are counted
apart), p50/p99 latency, and the resident memory of the gunicorn master and
workers (``VmRSS`` from ``/proc``) after the warm-up and at the end (goal:
growth at most 10 %), and the curve of that memory minute by minute with
the growth over its last third (goal: at most 2 % of the start, the curve
levels off). A benchmark, not a test: it exits 0 whatever the
figures (1 if it could not run).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import signal
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

from load import (
    HOST,
    PLAYERS,
    Client,
    Match,
    Timings,
    machine,
    ms,
    percentile,
    run_concurrently,
    verdict,
)
from load import Server as Gunicorn
from serve import database

GOAL_ERRORS = 0
GOAL_GROWTH = 10.0  # percent
GOAL_LEVEL = 2.0  # percent of the start: the growth over the curve's last third (it levels off)

#: How a phone spends its requests (weights).
MIX = {"round": 50, "again": 6, "page": 18, "match": 8, "settlement": 12, "void": 6}


# --- memory ------------------------------------------------------------------

def rss_kib(pid: int) -> int:
    """``VmRSS`` of one process in KiB (0 if it is gone)."""
    try:
        for text_line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if text_line.startswith("VmRSS:"):
                return int(text_line.split()[1])
    except OSError:
        pass
    return 0


def children(pid: int) -> list[int]:
    """The direct children of ``pid`` (gunicorn's workers), from ``/proc/*/stat``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def server_rss(master: int) -> tuple[int, int]:
    """Sum of ``VmRSS`` (KiB) over the gunicorn master and its workers, and the number of processes."""
    pids = [master, *children(master)]
    return sum(rss_kib(p) for p in pids), len(pids)


# --- the phones ------------------------------------------------------------------

@dataclass
class Tally:
    """What a phone saw, beyond latency: expected conflicts and errors by kind."""

    conflicts: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    requests: int = 0
    examples: dict[str, str] = field(default_factory=dict)  # the first answer of each kind of error

    def error(self, kind: str, body: bytes) -> None:
        self.errors[kind] += 1
        self.examples.setdefault(kind, body[:200].decode(errors="replace"))


class Slot:
    """One table of the soak: its match now, and how many times a full match was replaced (``--match-length``)."""

    def __init__(self, match: Match, players: list[str], seed: int) -> None:
        self.match, self.players, self.seed = match, players, seed
        self.generation = 0
        self.lock = threading.Lock()

    def next_after(self, generation: int, port: int) -> tuple[Match, int]:
        """The match after generation ``generation``: made by the first phone to ask, found by the others."""
        with self.lock:
            if self.generation == generation:
                self.match = Match(Client(port), self.players, random.Random(self.seed + generation + 1))
                self.generation += 1
            return self.match, self.generation


class Phone:
    """One client on a shared match: its own connection, session, view of the match and RNG."""

    def __init__(self, slot: Slot, port: int, seed: int, length: int = 0) -> None:
        self.slot, self.port, self.length = slot, port, length
        self.rng = random.Random(seed)
        self.generation = slot.generation
        self.tally = Tally()
        self.join(slot.match)

    def join(self, match: Match) -> None:
        """Follow ``match`` from now on, as a new phone of it would (its view link, its state)."""
        self.m = match.on_new_phone(self.port)
        self.m.rng = self.rng
        self.client: Client = self.m.client
        self.m.open_view_link()
        self.auth = {"Authorization": f"Bearer {self.m.edit_token}"}
        self.next_seq = 1
        self.state: dict[str, Any] = {}  # the state of the match as this phone last saw it
        self.voids = 0  # void rounds in the match as this phone last saw it
        self.mine: list[int] = []  # rounds this phone entered and has not voided
        self.last: tuple[dict[str, Any], str, int, int] | None = None  # payload, key, expected, round
        self.refresh()

    # -- helpers
    def call(self, timings: dict[str, Timings], kind: str, method: str, path: str, body: Any = None,
             headers: dict[str, str] | None = None, expect: int = 200,
             expected_conflicts: tuple[int, ...] = ()) -> tuple[int, bytes]:
        status, payload, seconds = self.client.request(method, path, body, headers)
        self.tally.requests += 1
        t = timings.setdefault(kind, Timings())
        if status == expect:
            t.add(status, seconds, expect)
        elif status in expected_conflicts:
            timings.setdefault("conflict", Timings()).add(status, seconds, status)
        else:
            t.add(status, seconds, expect)
            self.tally.error(f"{kind} {status or 'transport'}", payload)
        return status, payload

    def take(self, match_json: dict[str, Any]) -> None:
        """Adopt the server's view of the match (after a conflict or a void)."""
        rounds = match_json.get("rounds", [])
        self.next_seq = max((r["round"] for r in rounds), default=0) + 1
        self.see(match_json["state"])
        self.voids = sum(1 for r in rounds if r["void"])
        mine = set(self.mine)
        self.mine = [r["round"] for r in rounds if r["round"] in mine and not r["void"]]

    def see(self, state: dict[str, Any]) -> None:
        self.state = state
        self.m.svangare = state["svangare"]

    def refresh(self) -> None:
        status, payload, _ = self.client.request("GET", f"/api/matches/{self.m.id}", headers=self.auth)
        if status == 200:
            self.take(json.loads(payload))

    # -- actions
    def enter_round(self, timings: dict[str, Timings]) -> None:
        payload, key, expected = self.m.next_round(), uuid.uuid4().hex, self.next_seq
        used, voids = self.state, self.voids
        status, body = self.call(
            timings, "round", "POST", f"/api/matches/{self.m.id}/rounds", payload,
            {**self.auth, "Idempotency-Key": key, "Expected-Round": str(expected)},
            expect=201, expected_conflicts=(409, 422))
        if status == 201:
            data = json.loads(body)
            self.see(data["state"])
            self.next_seq = data["round"] + 1
            self.mine.append(data["round"])
            self.last = (payload, key, expected, data["round"])
        elif status == 409:
            self.tally.conflicts["round 409 (other phone first)"] += 1
            self.take(json.loads(body)["match"])
        elif status == 422:
            # Expected only when the other phone voided a round meanwhile (same round number,
            # another state); refused on the state the phone saw is an error.
            self.refresh()
            if self.state != used or self.voids > voids:
                self.tally.conflicts["round 422 (stale view after a void)"] += 1
            else:
                self.tally.error("round 422 on a fresh view", body)
                timings.setdefault("round", Timings()).failed[422] += 1
        else:
            self.refresh()

    def send_again(self, timings: dict[str, Timings]) -> None:
        """The phone did not see the answer and sends the same round again: the first answer (201, the same round).

        (It expected 200 until this was found: a replay answers the first status since issue 25.1.)"""
        if self.last is None:
            return self.enter_round(timings)
        payload, key, expected, seq = self.last
        status, body = self.call(
            timings, "again", "POST", f"/api/matches/{self.m.id}/rounds", payload,
            {**self.auth, "Idempotency-Key": key, "Expected-Round": str(expected)}, expect=201)
        if status == 201 and json.loads(body)["round"] != seq:
            self.tally.error("again: another round number", body)
        return None

    def void(self, timings: dict[str, Timings]) -> None:
        if not self.mine:
            return self.enter_round(timings)
        seq = self.mine.pop()
        status, body = self.call(timings, "void", "POST", f"/api/matches/{self.m.id}/rounds/{seq}/void",
                                 {"reason": "soak"}, self.auth, expect=200, expected_conflicts=(409, 422))
        if status == 200:
            self.see(json.loads(body)["state"])
            self.voids += 1
        elif status == 422:
            self.tally.conflicts["void 422 (a later round depends on it)"] += 1
        elif status == 409:
            # PostgreSQL: the other phone's round got in while the void was being saved.
            self.tally.conflicts["void 409 (other phone changed the match)"] += 1
            self.mine.append(seq)
            self.take(json.loads(body)["match"])
        return None

    def step(self, timings: dict[str, Timings]) -> None:
        if self.length and (self.next_seq > self.length or self.slot.generation != self.generation):
            match, self.generation = self.slot.next_after(self.generation, self.port)
            self.join(match)
        kind = self.m.rng.choices(list(MIX), weights=list(MIX.values()))[0]
        if kind == "round":
            self.enter_round(timings)
        elif kind == "again":
            self.send_again(timings)
        elif kind == "void":
            self.void(timings)
        elif kind == "page":
            self.call(timings, "page", "GET", f"/matches/{self.m.id}")
        elif kind == "match":
            self.call(timings, "match", "GET", f"/api/matches/{self.m.id}", headers=self.auth)
        else:
            self.call(timings, "settlement", "GET", f"/api/nights/{self.m.night_id}/settlement",
                      headers=self.auth)


# --- one backend -------------------------------------------------------------

@dataclass
class Result:
    backend: str
    elapsed: float
    timings: dict[str, Timings]
    tally: Tally
    rss_start: int
    rss_end: int
    rss_max: int
    processes: int
    rounds_stored: int
    minutes: list[tuple[int, int]] = field(default_factory=list)


class Monitor(threading.Thread):
    """Samples the server's RSS every few seconds and prints a progress line every minute."""

    def __init__(self, master: int, phones: list[Phone], label: str) -> None:
        super().__init__(daemon=True)
        self.master, self.phones, self.label = master, phones, label
        self.stop = threading.Event()
        self.samples: list[int] = []
        self.minutes: list[tuple[int, int]] = []  # (requests so far, RSS in KiB) at the end of each minute

    def run(self) -> None:
        start = time.monotonic()
        next_print = start + 60
        while not self.stop.wait(5):
            kib, _ = server_rss(self.master)
            self.samples.append(kib)
            if time.monotonic() >= next_print:
                next_print += 60
                served = sum(p.tally.requests for p in self.phones)
                errors = sum(sum(p.tally.errors.values()) for p in self.phones)
                self.minutes.append((served, kib))
                print(f"  [{self.label} {time.monotonic() - start:5.0f} s] {served} requests, {errors} errors, "
                      f"server RSS {kib / 1024:.1f} MiB", flush=True)


def soak(backend: str, args: argparse.Namespace) -> Result:
    workdir = Path(tempfile.mkdtemp(prefix=f"referee-soak-{backend}-"))
    try:
        with database(backend == "postgres", "soak") as url:
            return _soak(backend, args, Gunicorn(workdir, args.workers, url))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _soak(backend: str, args: argparse.Namespace, server: Gunicorn) -> Result:
    try:
        server.start()
        assert server.proc is not None
        print(f"{backend}: gunicorn {args.workers} workers on {HOST}:{server.port}; {args.clients} clients "
              f"on {args.matches} matches; warm-up {args.warmup:g} s, then {args.duration:g} s; {machine()}",
              flush=True)
        slots = [Slot(Match(Client(server.port), PLAYERS[: 3 + i % 3], random.Random(i)), PLAYERS[: 3 + i % 3],
                      1000 * i) for i in range(args.matches)]
        phones = [Phone(slots[i % args.matches], server.port, 1000 + i, args.match_length)
                  for i in range(args.clients)]

        def step(phone: Phone, timings: dict[str, Timings]) -> None:
            phone.step(timings)

        run_concurrently(args.clients, args.warmup, lambda i: phones[i], step)
        for p in phones:
            p.tally = Tally()
        rss_start, processes = server_rss(server.proc.pid)
        monitor = Monitor(server.proc.pid, phones, backend)
        monitor.start()
        phase = run_concurrently(args.clients, args.duration, lambda i: phones[i], step)
        rss_end, _ = server_rss(server.proc.pid)
        monitor.stop.set()
        monitor.join()
        tally = Tally()
        for p in phones:
            tally.conflicts.update(p.tally.conflicts)
            tally.errors.update(p.tally.errors)
            tally.examples = p.tally.examples | tally.examples
            tally.requests += p.tally.requests
        stored = 0
        reader = Client(server.port)
        for slot in slots:
            m = slot.match
            stored += len(reader.json("GET", f"/api/matches/{m.id}", token=m.edit_token, expect=200)["rounds"])
        return Result(backend, phase.elapsed, phase.by_kind, tally, rss_start, rss_end,
                      max([rss_start, rss_end, *monitor.samples]), processes, stored, monitor.minutes)
    except Exception:
        print(f"--- gunicorn log (tail) ---\n{server.tail()}", file=sys.stderr)
        raise
    finally:
        server.stop()


def report(r: Result, args: argparse.Namespace) -> None:
    served = sum(len(t.ok) + sum(t.failed.values()) for t in r.timings.values())
    answered = [s for t in r.timings.values() for s in t.ok]
    errors = sum(r.tally.errors.values())
    conflicts = sum(r.tally.conflicts.values())
    growth = (r.rss_end - r.rss_start) / r.rss_start * 100 if r.rss_start else float("nan")
    print()
    length = f" of {args.match_length} rounds" if args.match_length else ", growing"
    print(f"=== soak {r.backend}: {args.clients} clients on {args.matches} matches{length}, {r.elapsed:.0f} s, "
          f"gunicorn {args.workers} sync workers; {machine()} ===")
    print(f"requests served     {served} ({served / r.elapsed:.1f}/s); rounds stored at the end: "
          f"{r.rounds_stored}")
    for kind in sorted(r.timings):
        t = r.timings[kind]
        failed = f", failed {dict(t.failed)}" if t.failed else ""
        print(f"  {kind:<11} n={len(t.ok):<7} p50 {ms(percentile(t.ok, 50)):>9}   "
              f"p99 {ms(percentile(t.ok, 99)):>9}   max {ms(max(t.ok, default=float('nan'))):>9}{failed}")
    print(f"errors              {errors}" + (f"  {dict(r.tally.errors)}" if errors else ""))
    for kind, example in r.tally.examples.items():
        print(f"  first {kind}: {example}")
    print(f"expected conflicts  {conflicts}" + (f"  {dict(r.tally.conflicts)}" if conflicts else ""))
    print(f"latency (all answers) p50 {ms(percentile(answered, 50))}, p99 {ms(percentile(answered, 99))}")
    print(f"server memory (VmRSS, master + workers, {r.processes} processes): start {r.rss_start / 1024:.1f} MiB, "
          f"end {r.rss_end / 1024:.1f} MiB, growth {growth:+.1f} %, max {r.rss_max / 1024:.1f} MiB")
    if len(r.minutes) >= 3:
        print("memory curve (minute: requests, server RSS MiB): " + ", ".join(
            f"{k + 1}: {n}, {kib / 1024:.1f}" for k, (n, kib) in enumerate(r.minutes)))
        third = len(r.minutes) // 3
        level = (r.minutes[-1][1] - r.minutes[-1 - third][1]) / r.rss_start * 100 if r.rss_start else float("nan")
        print(f"goal: growth over the last {third} minutes <= {GOAL_LEVEL:g} % of the start (levels off): "
              f"{level:+.1f} %  {verdict(level <= GOAL_LEVEL)}")
    print(f"goal: errors = {GOAL_ERRORS}: {errors}  {verdict(errors == GOAL_ERRORS)}")
    print(f"goal: memory growth <= {GOAL_GROWTH:g} %: {growth:+.1f} %  {verdict(growth <= GOAL_GROWTH)}")
    print(f"summary {r.backend}: {served} requests, {errors} errors, {conflicts} expected conflicts, "
          f"p50 {ms(percentile(answered, 50))}, p99 {ms(percentile(answered, 99))}, RSS "
          f"{r.rss_start / 1024:.1f} -> {r.rss_end / 1024:.1f} MiB ({growth:+.1f} %)", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=None,
                        help="measured seconds per backend (600, or 20 with --quick)")
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients (50)")
    parser.add_argument("--matches", type=int, default=25, help="matches the clients share (25)")
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--match-length", type=int, default=0,
                        help="replace each match by a new one after this many rounds (0: the matches grow)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn sync workers (2)")
    parser.add_argument("--warmup", type=float, default=None,
                        help="seconds of load before memory is first read (default: 30, or 5 with --quick)")
    parser.add_argument("--quick", action="store_true", help="smoke run: 20 s per backend, 5 s warm-up "
                        "(unless --duration/--warmup say otherwise)")
    args = parser.parse_args(argv)
    if args.duration is None:
        args.duration = 20.0 if args.quick else 600.0
    if args.warmup is None:
        args.warmup = 5.0 if args.quick else 30.0
    if args.clients < 1 or args.matches < 1:
        parser.error("--clients and --matches must be at least 1")

    def on_term(_signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    results = []
    try:
        for backend in (["sqlite", "postgres"] if args.backend == "both" else [args.backend]):
            result = soak(backend, args)
            report(result, args)
            results.append(result)
    except KeyboardInterrupt:
        print("\ninterrupted; servers stopped", file=sys.stderr)
        return 130
    except Exception as exc:
        print(f"soak failed: {exc!r}", file=sys.stderr)
        return 1
    if len(results) > 1:
        print()
        for r in results:
            growth = (r.rss_end - r.rss_start) / r.rss_start * 100 if r.rss_start else float("nan")
            errors = sum(r.tally.errors.values())
            print(f"{r.backend:<9} errors {errors} {verdict(errors == GOAL_ERRORS)}, memory {growth:+.1f} % "
                  f"{verdict(growth <= GOAL_GROWTH)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
