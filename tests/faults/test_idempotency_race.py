"""One Idempotency-Key sent at once by several clients: everyone gets the first answer (issues 25.1, 31.3).

A real gunicorn (4 sync workers, the migrations' schema) on SQLite and on
PostgreSQL. Four threads wait at a barrier and send the same write with the
same key at the same moment, again and again: the creation of a night, of
a match, a round and a payment. Every thread must get the first answer
(201, the same body; the ones that came second marked
``Idempotent-Replayed: true``) and the write must be stored once. Before
issue 25.1, four night creations with one key answered ``[201, 500, 500,
500]``. Four threads with one key and four different bodies: one is made,
the other three get 422 and never the first answer.
"""

from __future__ import annotations

import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from tests.faults.server import PLAYERS, Http, Launcher, Reply, Server, database_url

THREADS = 4
ROUNDS = 8  # each repetition races every write once; the code before the fix failed every repetition


def _at_once(port: int, sends: list[tuple[str, Any, dict[str, str]]]) -> list[Reply]:
    """Each ``(path, body, headers)`` POSTed by its own thread, all released at the same moment."""
    barrier = threading.Barrier(len(sends))
    replies: list[Reply | None] = [None] * len(sends)

    def send(i: int) -> None:
        path, body, headers = sends[i]
        phone = Http(port)
        barrier.wait()
        replies[i] = phone.request("POST", path, body, headers)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(sends))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert all(r is not None for r in replies)
    return [r for r in replies if r is not None]


def _one_answer(replies: list[Reply], status: int, what: str) -> Any:
    """Every reply is the first answer; all but one are marked as replays. Returns that answer."""
    assert [r.status for r in replies] == [status] * len(replies), (what, [(r.status, r.body[:200]) for r in replies])
    bodies = {r.body for r in replies}
    assert len(bodies) == 1, (what, bodies)
    marked = sorted(r.headers.get("idempotent-replayed", "") for r in replies)
    assert marked == [""] + ["true"] * (len(replies) - 1), (what, marked)
    return replies[0].json()


def _count(url: str, table: str) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one())
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_one_key_sent_at_once_gets_one_answer(backend: str, tmp_path: Path, postgres: Any,
                                              launcher: Launcher) -> None:
    url = database_url(backend, tmp_path, postgres, f"faults_idem_race_{uuid.uuid4().hex[:8]}")
    server = Server(url, tmp_path, launcher=launcher, workers=THREADS)
    server.upgrade()
    server.start()
    try:
        for n in range(ROUNDS):
            key = {"Idempotency-Key": f"night-{n}-{uuid.uuid4().hex}"}
            body = {"name": f"Race {n}", "currency": "SEK", "players": list(PLAYERS)}
            night = _one_answer(_at_once(server.port, [("/api/nights", body, key)] * THREADS), 201, "night")
            auth = {"Authorization": f"Bearer {night['edit_token']}"}
            match_body = {"game": "kul", "players": list(PLAYERS), "stake": "1.00"}
            match = _one_answer(_at_once(server.port, [(f"/api/nights/{night['id']}/matches", match_body,
                                                         auth | {"Idempotency-Key": f"m-{n}"})] * THREADS),
                                201, "match")
            rnd = _one_answer(_at_once(server.port, [(f"/api/matches/{match['id']}/rounds", {"last_trick": "Anna"},
                                                      auth | {"Idempotency-Key": f"r-{n}"})] * THREADS),
                              201, "round")
            assert rnd["round"] == 1
            close = _one_answer(_at_once(server.port, [(f"/api/matches/{match['id']}/close",
                                                        {"pot": "award", "to": "Anna"},
                                                        auth | {"Idempotency-Key": f"c-{n}"})] * THREADS),
                                200, "close")
            assert close["state"]["finished"] is True
            pay = {"from": "Bo", "to": "Anna", "amount": "0.10"}
            _one_answer(_at_once(server.port, [(f"/api/nights/{night['id']}/payments", pay,
                                                auth | {"Idempotency-Key": f"p-{n}"})] * THREADS), 201, "payment")
            # one key, four different bodies: one night made, three refusals that show nothing of it
            other = f"other-{n}"
            replies = _at_once(server.port, [("/api/nights", body | {"name": f"Mine {i}"},
                                              {"Idempotency-Key": other}) for i in range(THREADS)])
            made = [r for r in replies if r.status == 201]
            assert len(made) == 1 and sorted(r.status for r in replies) == [201] + [422] * (THREADS - 1), \
                [(r.status, r.body[:200]) for r in replies]
            token = made[0].json()["edit_token"]
            assert all(token.encode() not in r.body for r in replies if r.status == 422)
    finally:
        server.stop()
    assert server.failures() == [], server.tail()
    assert _count(url, "nights") == 2 * ROUNDS
    assert _count(url, "matches") == ROUNDS
    assert _count(url, "rounds") == 2 * ROUNDS  # a round and a close per match
    assert _count(url, "payments") == ROUNDS
