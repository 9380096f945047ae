"""PostgreSQL stopped and started again under load: 503 with a retry hint, then recovery by itself.

The database server of a game night can restart (an upgrade, a crash, the
host's reboot) while phones keep entering rounds. While it is away, every
answer must say so honestly: 503 with ``Retry-After`` (JSON for the API, an
HTML page for pages), never a 500 with a traceback and never a request that
hangs. When it is back, the app must recover on its own (no gunicorn restart):
its pooled connections died with the old server and must not keep failing.

The test runs its own PostgreSQL server (the session's shared one must not be
stopped under other tests), gunicorn on it, three API clients writing rounds
(resending the same ``Idempotency-Key`` on a 503 or a dropped connection) and
one phone reading pages (a match page with the view-link session, and the
view link itself). PostgreSQL is stopped twice, once with ``pg_ctl -m fast``
(sessions ended) and once with ``-m immediate`` (a crash, recovery at start),
for a few seconds each, then started on the same port and data. Then once
more with nobody writing: under load the dead pooled connections are found by
the requests that fail anyway while it is down, but after a quiet restart the
first write of each worker would meet one (hence ``pool_pre_ping``).
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.components import PostgresServer, missing
from tests.faults.server import (
    Acked,
    Http,
    MatchRef,
    Reply,
    Server,
    check_database,
    fault_seed,
    make_match,
    round_payload,
)

WRITERS = 3
DOWN_SECONDS = 2.5
#: A request that takes longer than this has hung (the answer while the database is away is immediate).
HANG = 15.0
#: After the database is back, each writer must get rounds through again within this (a generous bound).
RECOVERY = 30.0
OK = {200, 201, 302}


@dataclass
class Seen:
    """One answer: what was asked, in which phase it started and ended, and what came back."""

    kind: str
    path: str
    began: str
    ended: str
    reply: Reply


@dataclass
class Run:
    lock: threading.Lock = field(default_factory=threading.Lock)
    phase: str = "up"
    seen: list[Seen] = field(default_factory=list)
    acked: list[Acked] = field(default_factory=list)
    sent: set[str] = field(default_factory=set)
    acks_since: dict[int, int] = field(default_factory=dict)
    stop: threading.Event = field(default_factory=threading.Event)
    #: Writers give up (and the test fails) after this moment rather than hang the suite.
    deadline: float = 0.0

    def ask(self, kind: str, http_: Http, method: str, path: str, body: object = None,
            headers: dict[str, str] | None = None) -> Reply:
        began = self.phase
        reply = http_.request(method, path, body, headers)
        with self.lock:
            self.seen.append(Seen(kind, path, began, self.phase, reply))
        return reply


def writer(i: int, run: Run, port: int, match: MatchRef, seed: int) -> None:
    """Rounds as fast as the server takes them; the same key again after a 503 or a dropped connection."""
    rng = random.Random(seed * 10 + i)
    http_ = Http(port, timeout=HANG)
    headers = {"Authorization": f"Bearer {match.edit_token}"}
    while not run.stop.is_set():
        key = f"w{i}-{uuid.uuid4().hex[:12]}"
        with run.lock:
            run.sent.add(key)
        payload = round_payload(rng)
        while True:
            reply = run.ask("api", http_, "POST", f"/api/matches/{match.id}/rounds", payload,
                            {**headers, "Idempotency-Key": key})
            if reply.status in (200, 201):
                with run.lock:
                    run.acked.append(Acked(key, match.id, int(reply.json()["round"]), reply.status,
                                    reply.headers.get("idempotent-replayed") == "true"))
                    run.acks_since[i] = run.acks_since.get(i, 0) + 1
                break
            if reply.status not in (0, 503) or time.monotonic() > run.deadline:
                return  # the checks below report it
            time.sleep(0.05)


def reader(run: Run, port: int, match: MatchRef) -> None:
    """A guest's phone: the view link (a page that looks the token up) and the match page."""
    http_ = Http(port, timeout=HANG)
    run.ask("page", http_, "GET", f"/v/{match.view_token}")
    while not run.stop.is_set():
        run.ask("page", http_, "GET", f"/matches/{match.id}")
        run.ask("page", http_, "GET", f"/v/{match.view_token}")
        time.sleep(0.05)


def check_answer(s: Seen) -> str | None:
    """What is wrong with one answer, if anything."""
    r = s.reply
    where = f"{s.kind} {s.path} ({s.began}->{s.ended})"
    if r.status == 0:
        return f"{where}: no answer ({r.error}): a hang or a dead worker"
    if r.status in OK:
        if s.began == s.ended == "down":
            return f"{where}: {r.status} while the database was stopped"
        return None
    if r.status != 503:
        return f"{where}: {r.status}: {r.body[:200]!r}"
    if not r.headers.get("retry-after", "").isdigit():
        return f"{where}: 503 without a Retry-After in seconds: {r.headers}"
    ctype = r.headers.get("content-type", "")
    if s.kind == "api":
        if not ctype.startswith("application/json") or "error" not in r.json():
            return f"{where}: 503 without a JSON error: {ctype} {r.body[:200]!r}"
    elif not ctype.startswith("text/html") or b"<html" not in r.body:
        return f"{where}: 503 without an HTML page: {ctype} {r.body[:200]!r}"
    return None


@pytest.fixture
def own_postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL server of this test alone: it is stopped and started under the app."""
    try:
        pg = PostgresServer()
        pg.start()
    except Exception as exc:
        missing(f"PostgreSQL server (Debian package postgresql): {type(exc).__name__}: {exc}")
        raise
    try:
        yield pg
    finally:
        pg.stop()


@pytest.mark.postgres
def test_postgres_restart_under_load_answers_503_and_recovers(own_postgres: PostgresServer, tmp_path: Path,
                                                              figures: list[str]) -> None:
    pg = own_postgres
    seed = fault_seed()
    run = Run()
    server: Server | None = None
    threads: list[threading.Thread] = []
    recovered: list[float] = []
    try:
        url = pg.create_database("faults_restart")
        server = Server(url, tmp_path)  # .venv/bin/flask and .venv/bin/gunicorn themselves: one start only
        server.upgrade()
        server.start()
        setup = Http(server.port)
        matches = [make_match(setup, f"pg-{i}") for i in range(WRITERS)]
        run.deadline = time.monotonic() + 120
        threads = [threading.Thread(target=writer, args=(i, run, server.port, matches[i], seed), daemon=True)
                   for i in range(WRITERS)]
        threads.append(threading.Thread(target=reader, args=(run, server.port, matches[0]), daemon=True))
        for t in threads:
            t.start()
        time.sleep(1.0)
        for mode in ("fast", "immediate"):
            run.phase = "stopping"
            pg.stop_server(mode)
            run.phase = "down"
            time.sleep(DOWN_SECONDS)
            run.phase = "starting"
            pg.start_server()
            run.phase = "back"
            with run.lock:
                run.acks_since.clear()
            back = time.monotonic()
            while not all(run.acks_since.get(i, 0) >= 3 for i in range(WRITERS)):
                assert time.monotonic() - back < RECOVERY, \
                    f"the app did not recover within {RECOVERY:g} s after PostgreSQL ({mode}) came back"
                assert all(t.is_alive() for t in threads[:WRITERS]), "a writer stopped"
                time.sleep(0.05)
            recovered.append(time.monotonic() - back)
        run.stop.set()
        for t in threads:
            t.join(timeout=HANG * 2)
        # A quiet restart (nobody writing while it is down, as on a real night): the workers' pooled
        # connections are all dead, and the first writes afterwards must still go through.
        pg.stop_server("fast")
        pg.start_server()
        quiet = Http(server.port, timeout=HANG)
        for i in range(6):
            key = f"quiet-{i}-{uuid.uuid4().hex[:8]}"
            run.sent.add(key)
            match = matches[i % WRITERS]
            reply = quiet.request("POST", f"/api/matches/{match.id}/rounds", round_payload(random.Random(i)),
                                  {"Authorization": f"Bearer {match.edit_token}", "Idempotency-Key": key})
            assert reply.status == 201, f"write {i} after a quiet restart: {reply.status} {reply.body[:200]!r}"
            run.acked.append(Acked(key, match.id, int(reply.json()["round"]), reply.status,
                                    reply.headers.get("idempotent-replayed") == "true"))
    finally:
        run.stop.set()
        if server is not None:
            server.stop()
    assert server is not None
    problems = [p for s in run.seen if (p := check_answer(s))]
    assert not problems, "\n".join(problems[:15])
    down = [s for s in run.seen if s.began == s.ended == "down"]
    api_503 = sum(1 for s in down if s.kind == "api")
    page_503 = {s.path.split("/")[1] for s in down if s.kind == "page"}
    assert api_503 > 0 and page_503 == {"matches", "v"}, (api_503, page_503)
    # Once PostgreSQL accepts connections again, no request may fail on a connection that died with
    # the old server (pooled connections are checked before use).
    stale = [f"{s.kind} {s.path}" for s in run.seen if s.began == s.ended == "back" and s.reply.status == 503]
    assert not stale, f"{len(stale)} answers 503 after PostgreSQL was back: {stale[:5]}"
    assert not server.failures(), "\n".join(server.failures()[:10])
    checks, checked = check_database(url, tmp_path, run.acked, run.sent)
    assert not checks, "\n".join(checks[:20])
    figures.append(
        f"PostgreSQL restarted under load (fast, then immediate; {DOWN_SECONDS:g} s down each): "
        f"{len(run.seen)} answers, {sum(1 for s in run.seen if s.reply.status == 503)} of them 503 with "
        f"Retry-After ({len(down)} while it was down: API JSON and HTML pages), no 500, no hang; "
        f"none after it was back; writes went through again {', '.join(f'{r:.1f}' for r in recovered)} s "
        f"after each start, without restarting gunicorn; {checked} acknowledged "
        f"rounds checked in the database")


@pytest.mark.postgres
def test_connection_lost_after_the_answer_is_made_is_not_a_500(postgres: Any, tmp_path: Path) -> None:
    """The database dies between the answer and the end of the request: the answer still goes out.

    Found by the restart test (a rare race): a page read its data, then
    PostgreSQL stopped; ending the request's session rolled back on the dead
    connection and gunicorn answered a bare 500. Here the request's own
    database session is terminated (``pg_terminate_backend``, waiting until it
    is gone) after the view was made, deterministically.
    """
    from flask import request
    from sqlalchemy import create_engine, text

    from referee.models import db
    from tests.conftest import make_app

    if postgres is None:
        from tests import conftest

        missing(f"PostgreSQL server (Debian package postgresql): {conftest.PG_ERROR}")
    url = postgres.create_database("faults_teardown")
    app = make_app(url, tmp_path)
    admin = create_engine(url, isolation_level="AUTOCOMMIT")

    @app.after_request
    def _cut(resp: Any) -> Any:
        if request.headers.get("X-Cut"):
            pid = db.session.execute(text("SELECT pg_backend_pid()")).scalar()
            with admin.connect() as conn:
                assert conn.execute(text("SELECT pg_terminate_backend(:pid, 5000)"), {"pid": pid}).scalar()
        return resp

    try:
        client = app.test_client()
        night = client.post("/api/nights", json={"name": "Cut", "currency": "SEK", "players": ["Anna", "Bo"]})
        assert night.status_code == 201
        path = f"/api/nights/{night.json['id']}?view={night.json['view_token']}"
        cut = client.get(path, headers={"X-Cut": "1"})
        assert cut.status_code == 200 and cut.json["name"] == "Cut"
        again = client.get(path)  # the pool dropped the dead connection
        assert again.status_code == 200 and again.json["name"] == "Cut"
    finally:
        admin.dispose()
        with app.app_context():
            db.engine.dispose()
