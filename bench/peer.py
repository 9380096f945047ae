"""Peer benchmark: our round entry side by side with ihatemoney's bills, same machine, same load.

Run from the repository root: ``.venv/bin/python bench/peer.py`` (about two
minutes, one of them installing ihatemoney) or ``--quick`` (a smoke run).

ihatemoney (https://ihatemoney.org, a shared-budget web app: what a group
would use instead to note who paid what) is installed from PyPI into a
virtualenv of its own in a temporary directory (``pip install
ihatemoney==<version> gunicorn``; ``--venv`` reuses an existing one). Both
apps run under gunicorn with 2 gthread workers on SQLite in a temporary
directory, both started, but only one under load at a time (the other idle),
and get the same load: ``--clients`` (16) phones with kept-alive connections,
each in a loop for ``--duration`` seconds, split into ``--blocks`` rounds of
the three phases below, interleaved in an order rotated every round (issue 29:
a ratio of blocks timed minutes apart moves with the machine's load; each
round gives its own ratio, reported with their spread by ``bench/spread.py``,
PASS only when the whole spread meets the goal):

- ours: each phone has its own night and Svängknack match and enters valid
  rounds through the JSON API (``POST /api/matches/<id>/rounds`` with the
  night's bearer token; as ``bench/load.py``'s rounds-only phase);
- ihatemoney: each phone has its own project with 4 members and adds bills
  through its REST API (``POST /api/projects/<id>/bills``: date, what,
  payer, payed_for, amount), first with HTTP basic auth (the project's id
  and private code, checked against the stored password hash on every
  request), then with the project's token (``GET /api/projects/<id>/token``,
  sent as ``Authorization: Bearer``).

It prints throughput and latency (p50/p99/max) of each and the ratios. A
benchmark, not a test: always exits 0 when it ran; nothing leaves the
machine but the ``pip install``.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import FrameType

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load import PLAYERS, THREADS, Match, merged, rate
from serve import (
    HOST,
    Client,
    Phase,
    Server,
    Timings,
    free_port,
    line,
    machine,
    percentile,
    run_concurrently,
    stop_process,
    wait_until_up,
)
from spread import describe

IHATEMONEY_VERSION = "7.2.1"
MEMBERS = ["Anna", "Bo", "Cia", "Dan"]


class Ihatemoney:
    """ihatemoney under gunicorn (2 gthread workers) on SQLite in ``workdir``."""

    def __init__(self, workdir: Path, venv: Path, workers: int, threads: int) -> None:
        self.workdir, self.venv, self.workers, self.threads = workdir, venv, workers, threads
        self.port = free_port()
        self.log = workdir / "ihatemoney.log"
        settings = workdir / "ihatemoney.cfg"
        settings.write_text(f'SQLALCHEMY_DATABASE_URI = "sqlite:///{workdir / "ihatemoney.sqlite3"}"\n'
                            'SECRET_KEY = "bench"\nACTIVATE_DEMO_PROJECT = False\nMAIL_SUPPRESS_SEND = True\n'
                            "SESSION_COOKIE_SECURE = False\nENABLE_CAPTCHA = False\n")
        self.env = {**os.environ, "IHATEMONEY_SETTINGS_FILE_PATH": str(settings)}
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        # The app migrates its database when it starts: once here, not in two workers at the same time.
        subprocess.run([str(self.venv / "bin" / "python"), "-c", "from ihatemoney.run import create_app; create_app()"],
                       env=self.env, cwd=self.workdir, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                [str(self.venv / "bin" / "gunicorn"), "--workers", str(self.workers), "--worker-class", "gthread",
                 "--threads", str(self.threads), "--bind", f"{HOST}:{self.port}", "--no-control-socket",
                 "ihatemoney.wsgi:application"],
                env=self.env, cwd=self.workdir, stdout=log, stderr=subprocess.STDOUT)
        wait_until_up(self.proc, self.port, self.tail, path="/api/currencies")

    def tail(self) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-30:])
        except OSError:
            return ""

    def stop(self) -> None:
        stop_process(self.proc)


def install(target: Path, version: str) -> Path:
    """A virtualenv with ihatemoney and gunicorn from PyPI, in ``target``."""
    subprocess.run([sys.executable, "-m", "venv", str(target)], check=True)
    subprocess.run([str(target / "bin" / "python"), "-m", "pip", "install", "-qq", "--disable-pip-version-check",
                    f"ihatemoney=={version}", "gunicorn"], check=True)
    return target


class Project:
    """One phone's ihatemoney project: created, 4 members, a token; adds bills."""

    def __init__(self, port: int, i: int, rng: random.Random, token: bool) -> None:
        self.rng = rng
        self.id, password = f"bench{i}x{rng.randrange(10**9)}", f"code-{i}"
        setup = Client(port)
        status, body, _ = setup.request("POST", "/api/projects", form={
            "name": f"Bench {i}", "id": self.id, "password": password, "contact_email": "bench@example.com",
            "default_currency": "XXX"})
        if status != 201:
            raise RuntimeError(f"ihatemoney: creating a project answered {status}: {body[:300]!r}")
        basic = "Basic " + base64.b64encode(f"{self.id}:{password}".encode()).decode()
        self.members = []
        for name in MEMBERS:
            status, body, _ = setup.request("POST", f"/api/projects/{self.id}/members", form={"name": name},
                                            headers={"Authorization": basic})
            if status != 201:
                raise RuntimeError(f"ihatemoney: adding a member answered {status}: {body[:300]!r}")
            self.members.append(body.decode().strip())
        auth = basic
        if token:
            status, body, _ = setup.request("GET", f"/api/projects/{self.id}/token", headers={"Authorization": basic})
            if status != 200:
                raise RuntimeError(f"ihatemoney: the token answered {status}: {body[:300]!r}")
            auth = "Bearer " + json.loads(body)["token"]
        setup.close()
        self.client = Client(port, headers={"Authorization": auth})

    def add_bill(self, timings: Timings) -> None:
        payer = self.rng.choice(self.members)
        payed_for = self.rng.sample(self.members, self.rng.randint(2, len(self.members)))
        cents = self.rng.randint(1, 9999)
        form = {"date": "2026-11-25", "what": "Round", "payer": payer, "amount": f"{cents // 100}.{cents % 100:02d}"}
        body = "&".join([f"{k}={v}" for k, v in form.items()] + [f"payed_for={m}" for m in payed_for])
        status, payload, seconds = self._post(body)
        if not timings.add(status, seconds, 201) and 0 < status < 500:
            raise RuntimeError(f"ihatemoney refused a bill with {status}: {payload[:300]!r}")

    def _post(self, body: str) -> tuple[int, bytes, float]:
        """The bill as a form (``payed_for`` repeated, which a dict cannot say)."""
        conn = self.client
        start = time.perf_counter()
        try:
            conn.conn.request("POST", f"/api/projects/{self.id}/bills", body=body.encode(),
                              headers={**conn.headers, "Content-Type": "application/x-www-form-urlencoded"})
            resp = conn.conn.getresponse()
            payload = resp.read()
        except OSError:
            conn.close()
            conn.conn = type(conn.conn)(HOST, conn.port, timeout=60)
            return 0, b"", time.perf_counter() - start
        return resp.status, payload, time.perf_counter() - start


def bills_phase(port: int, clients: int, duration: float, token: bool, salt: int = 0) -> Phase:
    def setup(i: int) -> Project:  # a new project per client and block (its id is drawn from this seed)
        return Project(port, i, random.Random(f"peer-{i}-{token}-{salt}"), token)

    def step(project: Project, timings: dict[str, Timings]) -> None:
        project.add_bill(timings.setdefault("bill", Timings()))

    return run_concurrently(clients, duration, setup, step)


def rounds_phase(port: int, clients: int, duration: float) -> Phase:
    def setup(i: int) -> Match:
        return Match(Client(port), PLAYERS[: 3 + i % 3], random.Random(i))

    def step(match: Match, timings: dict[str, Timings]) -> None:
        match.enter_round(timings.setdefault("round", Timings()))

    return run_concurrently(clients, duration, setup, step)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=20.0, help="seconds per phase (20), split over the "
                        "blocks")
    parser.add_argument("--blocks", type=int, default=3, help="interleaved rounds of the three phases (3)")
    parser.add_argument("--clients", type=int, default=16, help="concurrent phones (16)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers of each app (2)")
    parser.add_argument("--threads", type=int, default=THREADS, help=f"threads per gthread worker ({THREADS})")
    parser.add_argument("--venv", type=Path, default=None, help="an existing virtualenv with ihatemoney and gunicorn")
    parser.add_argument("--ihatemoney", default=IHATEMONEY_VERSION, help=f"version from PyPI ({IHATEMONEY_VERSION})")
    parser.add_argument("--quick", action="store_true", help="smoke run: 5 s, 4 clients")
    args = parser.parse_args(argv)
    if args.quick:
        args.duration, args.clients = 5.0, 4

    def on_term(_signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    workdir = Path(tempfile.mkdtemp(prefix="referee-bench-peer-"))
    ours = Server(workdir, args.workers, threads=args.threads)
    peer: Ihatemoney | None = None
    results: dict[str, Phase] = {}
    ratios: dict[str, list[float]] = {"basic": [], "token": []}
    try:
        if args.venv is None:
            print(f"installing ihatemoney {args.ihatemoney} and gunicorn from PyPI into {workdir / 'venv'} ...",
                  flush=True)
            t0 = time.monotonic()
            venv = install(workdir / "venv", args.ihatemoney)
            print(f"  installed in {time.monotonic() - t0:.0f} s", flush=True)
        else:
            venv = args.venv
        print(f"{args.clients} phones with kept-alive connections, {args.duration:g} s per phase, "
              f"one app under load at a time, each on gunicorn {args.workers} gthread workers x {args.threads}, "
              f"SQLite; {machine()}",
              flush=True)
        ours.start()
        peer = them = Ihatemoney(workdir, venv, args.workers, args.threads)
        them.start()
        block = args.duration / max(1, args.blocks)
        runs = {"ours": ("ours: round entry (JSON API, bearer token)",
                         lambda k: rounds_phase(ours.port, args.clients, block)),
                "basic": ("ihatemoney: bills (REST API, HTTP basic auth)",
                          lambda k: bills_phase(them.port, args.clients, block, token=False, salt=k)),
                "token": ("ihatemoney: bills (REST API, project token)",
                          lambda k: bills_phase(them.port, args.clients, block, token=True, salt=k))}
        blocks: dict[str, list[Phase]] = {name: [] for name in runs}
        order = list(runs)
        for k in range(max(1, args.blocks)):
            for name in order[k % 3:] + order[:k % 3]:
                words, run = runs[name]
                print(f"block {k + 1}/{args.blocks}: {words} ({block:.1f} s) ...", flush=True)
                blocks[name].append(run(k))
            for name in ("basic", "token"):
                theirs = rate(blocks[name][-1], "bill")
                if theirs:
                    ratios[name].append(rate(blocks["ours"][-1], "round") / theirs)
        results = {name: merged(phases) for name, phases in blocks.items()}
    except KeyboardInterrupt:
        print("\ninterrupted; stopping gunicorn", file=sys.stderr)
        return 130
    except Exception as exc:
        log = peer.tail() if peer else ours.tail()
        print(f"benchmark failed: {exc}\n--- gunicorn log (tail) ---\n{log}", file=sys.stderr)
        return 1
    finally:
        ours.stop()
        if peer:
            peer.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    report(args, results, ratios)
    return 0


def report(args: argparse.Namespace, results: dict[str, Phase], ratios: dict[str, list[float]]) -> None:
    rounds, basic, token = results["ours"], results["basic"], results["token"]
    r, b, t = rounds.by_kind["round"], basic.by_kind["bill"], token.by_kind["bill"]

    def per_s(timings: Timings, phase: Phase) -> float:
        return len(timings.ok) / phase.elapsed

    ours_rate, basic_rate, token_rate = per_s(r, rounds), per_s(b, basic), per_s(t, token)
    print()
    print(f"=== results: {args.clients} phones, kept-alive connections, {args.duration:g} s per phase, "
          f"gunicorn {args.workers} gthread workers x {args.threads}, SQLite; ihatemoney {args.ihatemoney}; "
          f"{machine()} ===")
    print(line("ours: rounds", r, rounds.elapsed, "rounds"))
    print(line("ihatemoney, basic auth", b, basic.elapsed, "bills "))
    print(line("ihatemoney, token", t, token.elapsed, "bills "))
    print("(failed: answers other than 201, by status; not counted in the throughput)")
    print()
    for label, other, timings in (("basic auth", basic_rate, b), ("token", token_rate, t)):
        print(f"ours / ihatemoney ({label}): throughput {ours_rate:.0f} / {other:.0f} = "
              f"{ours_rate / other if other else float('nan'):.1f}x; p99 {percentile(r.ok, 99) * 1000:.0f} ms vs "
              f"{percentile(timings.ok, 99) * 1000:.0f} ms")
    for label, name, theirs in (("basic auth", "basic", basic_rate), ("token", "token", token_rate)):
        overall = ours_rate / theirs if theirs else float("nan")
        print(f"our round entry at least as fast as ihatemoney's bills ({label}), per round of interleaved blocks: "
              f"{describe(ratios[name] or [overall], 1.0, at_most=False)}")


if __name__ == "__main__":
    sys.exit(main())
