"""The fault tests' harness: gunicorn that can be killed -9 and restarted, a client, the checks.

Why a harness of its own: the fault tests must hit the real deployment shape
(gunicorn, 2 sync workers, the migrations' schema, SQLite WAL or PostgreSQL)
and kill it the hard way: ``SIGKILL`` to the master *and* its workers at
once, the whole process group, as a power cut or an OOM kill would. Then it
starts again on the same port and the same database, and the clients carry
on with the writes they had in flight.

Why a launcher ("zygote"): importing the app costs about three seconds of CPU
(WeasyPrint, SQLAlchemy, Alembic); twenty restarts per backend with a fresh
``.venv/bin/gunicorn`` each would blow the suite's time budget on a 2-core
machine. :class:`Launcher` is one Python process that imports gunicorn, Flask
and the app's modules once (without creating an app or touching a database)
and then forks: each fork calls ``os.setsid()`` (its own session and process
group, as ``start_new_session=True`` would) and runs gunicorn's own entry
point with the same argv as ``.venv/bin/gunicorn --workers 2 --bind ...
'referee:create_app()'``, or ``flask --app referee db upgrade``. The server
process tree (master, workers) is exactly gunicorn's; only the import is
warm. Without a launcher, :class:`Server` runs the ``.venv/bin`` scripts
themselves (used where one start is enough).

bench/load.py has a similar ``Server``; tests do not import bench, so the
few lines they share are repeated here.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from itertools import permutations
from pathlib import Path
from random import Random, SystemRandom
from typing import Any

from tests.components import free_port, watch_log

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = ROOT / ".venv" / "bin"
HOST = "127.0.0.1"
PLAYERS = ("Anna", "Bo", "Cia")


def fault_seed() -> int:
    """The seed of a fault test's random choices: ``REFEREE_FAULT_SEED``, else a fresh one (printed)."""
    env = os.environ.get("REFEREE_FAULT_SEED")
    return int(env) if env else SystemRandom().randrange(10**6)


def database_url(backend: str, tmp_path: Path, postgres: Any, name: str) -> str:
    """A new, empty database: SQLite in ``tmp_path`` or ``name`` on the session's PostgreSQL server."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / (name + '.sqlite3')}"
    if postgres is None:
        from tests import conftest
        from tests.components import missing

        missing(f"PostgreSQL server (Debian package postgresql): {conftest.PG_ERROR}")
    return str(postgres.create_database(name))


# --- the launcher ---------------------------------------------------------------------------------

#: The launcher's program: warm imports, then one fork per JSON command read from stdin.
_LAUNCHER = r"""
import json, os, sys, traceback
import flask.cli, flask_migrate, alembic.command
import gunicorn.app.wsgiapp, gunicorn.workers.sync
import referee, referee.api, referee.pages, referee.reports, referee.ledger, referee.models
import psycopg, sqlalchemy.dialects.postgresql.psycopg, sqlalchemy.dialects.sqlite.pysqlite, sqlalchemy.orm
sqlalchemy.orm.configure_mappers()
out = sys.stdout
out.write("ready\n"); out.flush()
for line in sys.stdin:
    cmd = json.loads(line)
    while True:  # reap masters killed earlier (their workers are reparented to init)
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                break
        except ChildProcessError:
            break
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setsid()
            os.close(ready_r)
            os.write(ready_w, b"!")  # the new process group exists: kill(-pid) now reaches it
            os.close(ready_w)
            os.environ.clear()
            os.environ.update(cmd["env"])
            fd = os.open(cmd["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
            sys.argv = cmd["argv"]
            if cmd["kind"] == "gunicorn":
                gunicorn.app.wsgiapp.run()
            else:
                flask.cli.main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:
            traceback.print_exc()
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    os.close(ready_w)
    os.read(ready_r, 1)
    os.close(ready_r)
    reply = {"pid": pid}
    if cmd.get("wait"):
        reply["code"] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    out.write(json.dumps(reply) + "\n"); out.flush()
"""


class Launcher:
    """A warm Python process that forks gunicorn masters and ``flask db upgrade`` runs on request."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.lock = threading.Lock()

    def start(self) -> None:
        self.proc = subprocess.Popen([str(VENV_BIN / "python"), "-c", _LAUNCHER], cwd=ROOT, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=dict(os.environ))
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if line.strip() != "ready":
            raise RuntimeError(f"the launcher did not start (exit {self.proc.poll()})")

    def spawn(self, kind: str, argv: list[str], env: dict[str, str], log: Path, wait: bool = False) -> dict[str, int]:
        """Fork ``gunicorn`` or ``flask`` with ``argv``; returns its pid (and exit code with ``wait``)."""
        with self.lock:
            if self.proc is None or self.proc.poll() is not None:
                self.start()
            assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
            self.proc.stdin.write(json.dumps({"kind": kind, "argv": argv, "env": env, "log": str(log),
                                              "wait": wait}) + "\n")
            self.proc.stdin.flush()
            reply: dict[str, int] = json.loads(self.proc.stdout.readline())
            return reply

    def close(self) -> None:
        if self.proc is None:
            return
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _group_alive(pgid: int) -> list[int]:
    """The live (not zombie) processes of a process group, from ``/proc``."""
    alive = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            alive.append(int(entry.name))
    return alive


# --- gunicorn ---------------------------------------------------------------------------------------

class Server:
    """gunicorn (2 sync workers) on ``database_url``; killed with SIGKILL and started again at will."""

    def __init__(self, database_url: str, workdir: Path, *, launcher: Launcher | None = None,
                 workers: int = 2, timeout: int = 30) -> None:
        self.url = database_url
        self.workdir = workdir
        self.launcher = launcher
        self.workers = workers
        self.timeout = timeout
        self.port = free_port()
        self.log = workdir / "gunicorn.log"
        self.env = {**os.environ, "DATABASE_URL": database_url, "SECRET_KEY": "faults",
                    "PYTHONUNBUFFERED": "1"}
        self.pgid: int | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.kills = 0

    def upgrade(self) -> None:
        """``flask --app referee db upgrade``: the migrations' schema, as ``make run`` makes it."""
        argv = ["flask", "--app", "referee", "db", "upgrade"]
        if self.launcher is not None:
            code = self.launcher.spawn("flask", argv, self.env, self.workdir / "upgrade.log", wait=True)["code"]
        else:
            with (self.workdir / "upgrade.log").open("ab") as out:
                code = subprocess.run([str(VENV_BIN / "flask"), *argv[1:]], cwd=ROOT, env=self.env,
                                      stdout=out, stderr=subprocess.STDOUT).returncode
        if code != 0:
            raise RuntimeError(f"db upgrade failed ({code}):\n{(self.workdir / 'upgrade.log').read_text()}")

    def argv(self) -> list[str]:
        return ["gunicorn", "--workers", str(self.workers), "--bind", f"{HOST}:{self.port}",
                "--timeout", str(self.timeout), "--graceful-timeout", "2", "--access-logfile", "-",
                # Gunicorn 27's control socket is one path per user: several test servers (and a soak
                # run next door) would take it from each other.
                "--no-control-socket", "referee:create_app()"]

    def command(self) -> list[str]:
        """The command line that starts the server without a launcher: ``.venv/bin/gunicorn`` and :meth:`argv`."""
        return [str(VENV_BIN / "gunicorn"), *self.argv()[1:]]

    def start(self, timeout: float = 60) -> None:
        """Start the master in a new process group and wait until it answers ``GET /``.

        Its log is checked after the test (``tests/components.py``, ``watch_log``): no token, no traceback.
        """
        watch_log(self.log, self.url)
        if self.launcher is not None:
            self.pgid = self.launcher.spawn("gunicorn", self.argv(), self.env, self.log)["pid"]
        else:
            with self.log.open("ab") as log:
                self.proc = subprocess.Popen(self.command(), cwd=ROOT, env=self.env,
                                             stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            self.pgid = self.proc.pid
        self.starts += 1
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not _group_alive(self.pgid):
                raise RuntimeError(f"gunicorn exited at start:\n{self.tail()}")
            try:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=5)
                conn.request("GET", "/")
                status = conn.getresponse().status
                conn.close()
                if status == 200:
                    return
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(0.05)
        raise RuntimeError(f"gunicorn did not answer within {timeout:g} s:\n{self.tail()}")

    def kill(self) -> None:
        """``kill -9`` the whole process group (master and workers) and wait until none is left."""
        if self.pgid is None:
            return
        try:
            os.killpg(self.pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self._wait_gone(self.pgid)
        if self.proc is not None:
            self.proc.wait()
            self.proc = None
        self.pgid = None
        self.kills += 1

    def _wait_gone(self, pgid: int, timeout: float = 15) -> None:
        deadline = time.monotonic() + timeout
        while _group_alive(pgid):
            if time.monotonic() > deadline:
                raise RuntimeError(f"process group {pgid} still alive after SIGKILL: {_group_alive(pgid)}")
            time.sleep(0.01)

    def stop(self) -> None:
        """SIGTERM (gunicorn stops its workers gracefully), SIGKILL if any process lingers."""
        if self.pgid is None:
            return
        pgid, self.pgid = self.pgid, None
        try:
            os.killpg(pgid, signal.SIGTERM)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + 10
        while _group_alive(pgid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _group_alive(pgid):
            os.killpg(pgid, signal.SIGKILL)
            self._wait_gone(pgid)
        if self.proc is not None:
            self.proc.wait()
            self.proc = None

    def log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""

    def failures(self) -> list[str]:
        """Log lines that must never appear: a 5xx other than 503, a request gunicorn could not
        handle (a worker's crash), or a traceback (an unexpected error; an unavailable database
        is expected under these faults and logged in one line)."""
        return [line for line in self.log_text().splitlines()
                if re.search(r'" 5(?!03)\d\d ', line) or "Error handling request" in line
                or line.startswith("Traceback")]

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])


# --- a client -----------------------------------------------------------------------------------------

@dataclass
class Reply:
    """One HTTP answer; ``status`` 0 when the connection failed (refused, reset, closed early, timeout)."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    error: str = ""

    def json(self) -> Any:
        return json.loads(self.body)


class Http:
    """A phone: one fresh connection per request (gunicorn's sync workers close it anyway) and cookies."""

    def __init__(self, port: int, timeout: float = 20.0) -> None:
        self.port = port
        self.timeout = timeout
        self.cookies: dict[str, str] = {}

    def connection(self) -> http.client.HTTPConnection:
        """A new connection to the server (plain HTTP on the loopback; tests/deploy: HTTPS through Caddy)."""
        return http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)

    def request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Reply:
        hdrs = dict(headers or {})
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            hdrs["Content-Type"] = "application/json"
        if self.cookies:
            hdrs["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        conn = self.connection()
        try:
            conn.request(method, path, body=data, headers=hdrs)
            resp = conn.getresponse()
            payload = resp.read()
        except (OSError, http.client.HTTPException) as exc:
            return Reply(0, error=f"{type(exc).__name__}: {exc}")
        finally:
            conn.close()
        for header in resp.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                self.cookies[name] = morsel.value
        return Reply(resp.status, {k.lower(): v for k, v in resp.headers.items()}, payload)


def at_once(port: int, path: str, body: Any, headers: dict[str, str], clients: int) -> list[Reply]:
    """``clients`` phones sending the same POST at the same moment (a barrier), each on its own connection."""
    return posts_at_once(port, [(path, body, headers)] * clients)


def posts_at_once(port: int | list[int], posts: list[tuple[str, Any, dict[str, str]]]) -> list[Reply]:
    """One phone per ``(path, body, headers)`` POST, all sent at the same moment (a barrier), each on its own
    connection; the answers in the order of ``posts`` (two different writes racing: which one won?).

    With a list of ports (several app servers on one database), POST ``k`` goes to ``ports[k % len(ports)]``."""
    ports = port if isinstance(port, list) else [port]
    barrier = threading.Barrier(len(posts))
    replies: list[Reply | None] = [None] * len(posts)

    def client(k: int) -> None:
        http_ = Http(ports[k % len(ports)])
        path, body, headers = posts[k]
        barrier.wait()
        replies[k] = http_.request("POST", path, body, headers)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(len(posts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    answered = [r for r in replies if r is not None]
    assert len(answered) == len(posts), "a client got no answer"
    return answered


#: Answers after which a write is sent again with the same key: no answer, database away, lost race.
RETRY = frozenset({0, 503, 409})


def write(http_: Http, path: str, body: Any, *, key: str, token: str | None = None, deadline: float = 90,
          retry: frozenset[int] = RETRY) -> tuple[Reply, int]:
    """POST with an ``Idempotency-Key``, sent again with the *same* key until the server answers.

    Returns the answer and the number of times it was sent again. Gives up
    (AssertionError) after ``deadline`` seconds: a server that never comes
    back is a failure, not a hang.
    """
    headers = {"Idempotency-Key": key}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    give_up = time.monotonic() + deadline
    retries = 0
    while True:
        reply = http_.request("POST", path, body, headers)
        if reply.status not in retry:
            return reply, retries
        if time.monotonic() > give_up:
            raise AssertionError(f"POST {path} (key {key}) unanswered after {deadline:g} s: "
                                 f"{reply.status} {reply.error or reply.body[:200]!r}")
        retries += 1
        time.sleep(0.02)


@dataclass
class MatchRef:
    """A Svängknack match made through the API, with its night's tokens."""

    id: int
    night: int
    edit_token: str
    view_token: str


def make_match(http_: Http, tag: str) -> MatchRef:
    """A night of three and a Svängknack match where everyone always plays (SK-10 "always").

    With everyone in every round, a round's payload (tricks per player adding
    up to 3) is valid whatever round the match is at, so clients sharing a
    match and retrying old payloads never get a rule violation.
    """
    night, _ = write(http_, "/api/nights", {"name": f"Faults {tag}", "currency": "SEK", "players": list(PLAYERS)},
                     key=f"night-{tag}")
    assert night.status == 201, night.body[:300]
    n = night.json()
    match, _ = write(http_, f"/api/nights/{n['id']}/matches",
                     {"game": "svangknack", "players": list(PLAYERS), "dealer": PLAYERS[0], "stake": "3.00",
                      "options": {"forced_participation": "always"}},
                     key=f"match-{tag}", token=n["edit_token"])
    assert match.status == 201, match.body[:300]
    return MatchRef(match.json()["id"], n["id"], n["edit_token"], n["view_token"])


def round_payload(rng: Random) -> dict[str, Any]:
    """Tricks 1-1-1 (the pot is paid out) or a 2-1-0 split (one player goes bet, the pot grows)."""
    tricks = (1, 1, 1) if rng.random() < 0.4 else rng.choice(list(permutations((2, 1, 0))))
    return {"tricks": dict(zip(PLAYERS, tricks, strict=True))}


# --- what the database holds afterwards -------------------------------------------------------------

@dataclass
class Acked:
    """A round the server acknowledged: its key, match and round number, and how it was answered."""

    key: str
    match: int
    seq: int
    status: int
    replayed: bool = False  # answered with Idempotent-Replayed: true (the first answer, sent again)


def check_database(url: str, instance: Path, acked: list[Acked], sent_keys: set[str]) -> tuple[list[str], int]:
    """Everything the fault tests demand of the stored ledger; returns ``(problems, rounds checked)``.

    Read straight from the database with a fresh app (not through the server):
    every acknowledged key is stored exactly once with the round number the
    client was told; no stored round carries a key no client sent; each
    match's rounds are numbered 1..n without gaps, its snapshot's ``next_seq``
    and ``version`` agree with them (no half-written match); replaying the log
    gives the snapshot's state; the state counts the rounds; money is
    conserved (balances plus the pot, less a pot carried in, sum to zero).
    """
    from sqlalchemy import select

    from referee import create_app, ledger
    from referee.models import Match, Round, db

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "faults", "TESTING": True,
                      "INSTANCE_PATH": str(instance)})
    problems: list[str] = []
    with app.app_context():
        try:
            rows = db.session.execute(select(Round.match_id, Round.seq, Round.idempotency_key)
                                      .where(Round.kind == "round")).all()
            count = Counter(key for _, _, key in rows)
            problems += [f"key {k} stored {c} times" for k, c in count.items() if c > 1]
            problems += [f"round {m}/{s} has no idempotency key" for m, s, k in rows if k is None]
            problems += [f"round {m}/{s} has key {k} that no client sent" for m, s, k in rows
                         if k is not None and k not in sent_keys]
            stored = {key: (m, s) for m, s, key in rows}
            for a in acked:
                if a.key not in stored:
                    problems.append(f"acknowledged round {a.key} ({a.status}, match {a.match} round {a.seq}) "
                                    f"is missing")
                elif stored[a.key] != (a.match, a.seq):
                    problems.append(f"acknowledged round {a.key} was answered as {a.match}/{a.seq} "
                                    f"but is stored as {stored[a.key]}")
            per_match = Counter(a.match for a in acked)
            for match in db.session.scalars(select(Match).order_by(Match.id)):
                problems += _check_match(match, per_match[match.id], ledger)
        finally:
            db.session.remove()
            db.engine.dispose()
    return problems, len(acked)


def _check_match(match: Any, acked: int, ledger: Any) -> list[str]:
    out: list[str] = []
    events = list(match.rounds)
    seqs = [r.seq for r in events]
    n = len(events)
    name = f"match {match.id}"
    if seqs != list(range(1, n + 1)):
        out.append(f"{name}: round numbers are not 1..{n}: {seqs[:5]}...{seqs[-5:]}")
    snap = match.snapshot
    voids = sum(1 for r in events if r.void)
    if snap.next_seq != n + 1 or snap.version != n + voids:
        out.append(f"{name}: half-written: {n} events ({voids} void) but snapshot next_seq {snap.next_seq}, "
                   f"version {snap.version}")
    if (stored := sum(1 for r in events if r.kind == "round")) != acked:
        out.append(f"{name}: {stored} rounds stored, {acked} acknowledged")
    rounds = sum(1 for r in events if r.kind == "round" and not r.void)
    state = ledger.state_of(match)
    replayed = ledger.replay(match)
    if replayed != state:
        out.append(f"{name}: replay of the log differs from the snapshot")
    if getattr(state, "round_no", rounds) != rounds:
        out.append(f"{name}: the state counts {state.round_no} rounds, the log {rounds}")
    total = sum(state.balances) + state.pot - getattr(state, "carried_in", 0)
    if total != 0:
        out.append(f"{name}: money not conserved: balances {state.balances} + pot {state.pot} = {total}")
    return out


@contextmanager
def serving(server: Server, timeout: float = 60) -> Iterator[Server]:
    """A test's gunicorn, migrated and started (within ``timeout`` s), stopped afterwards; a 5xx or traceback in
    its log fails the test."""
    server.upgrade()
    server.start(timeout=timeout)
    try:
        yield server
    finally:
        server.stop()
    assert not server.failures(), "\n".join(server.failures()) + "\n" + server.tail()


def started_server(test: str, backend: str, tmp_path: Path, postgres: Any,
                   launcher: Launcher) -> tuple[Server, int]:
    """A fault test's gunicorn, migrated and answering, on a new database; and the test's seed (printed)."""
    url = database_url(backend, tmp_path, postgres, f"faults_{test}")
    seed = fault_seed()
    print(f"{test} test on {backend}: seed {seed} (REFEREE_FAULT_SEED={seed} repeats it)")
    server = Server(url, tmp_path, launcher=launcher)
    server.upgrade()
    server.start()
    return server, seed


# --- clients writing while servers are killed ---------------------------------------------------------

@dataclass
class Tally:
    """What the clients of a kill test saw; shared between the client threads (under ``lock``)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    sent: set[str] = field(default_factory=set)
    acked: list[Acked] = field(default_factory=list)
    retries: int = 0
    cut: int = 0
    errors: list[str] = field(default_factory=list)

    def write(self, http_: Http, path: str, body: Any, *, key: str, token: str, ok: tuple[int, ...],
              what: str) -> Reply | None:
        """One client write through the kills (:func:`write`: resent with the same key until answered),
        counted: its resends, and an error (then None) when it failed or was answered other than ``ok``."""
        try:
            reply, retries = write(http_, path, body, key=key, token=token, deadline=120)
        except AssertionError as exc:
            with self.lock:
                self.errors.append(str(exc))
            return None
        with self.lock:
            self.retries += retries
            self.cut += retries > 0
            if reply.status not in ok:
                self.errors.append(f"{what} answered {reply.status}: {reply.body[:300]!r}")
                return None
        return reply


def kill_and_start(server: Server, _n: int) -> None:
    server.kill()
    server.start()


def write_through_kills(clients: list[Callable[[threading.Event], None]], servers: list[Server], kills: int,
                        rng: Random, pause: tuple[float, float],
                        kill: Callable[[Server, int], None] = kill_and_start) -> None:
    """Run each client in a thread (until the event it is given is set) while, ``kills`` times, a
    server (``rng``'s choice when there are several) is killed with SIGKILL and started again
    (``kill``, given the server and the kill's number), ``pause`` seconds apart (drawn from
    ``rng``); after one more pause, stop the clients and wait until each has its last write
    acknowledged (clients always finish the write in flight)."""
    stop = threading.Event()
    threads = [threading.Thread(target=run, args=(stop,), daemon=True) for run in clients]
    try:
        for t in threads:
            t.start()
        for n in range(kills):
            time.sleep(rng.uniform(*pause))
            kill(servers[0] if len(servers) == 1 else rng.choice(servers), n)
        time.sleep(rng.uniform(*pause))  # the clients get their last writes acknowledged
    finally:
        stop.set()  # on an error too, without waiting: the caller stops the servers
    for t in threads:
        t.join(timeout=150)
    assert not any(t.is_alive() for t in threads), "a client never got its last write acknowledged"
