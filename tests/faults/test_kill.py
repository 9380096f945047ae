"""kill -9 of the app server while eight clients write rounds as fast as they can.

What a game night needs: the laptop running the server loses power in the
middle of round entry. Every round the server acknowledged (a 201, or a 200
replaying the stored round for a retried key) must be in the database once;
no round may be stored twice because a phone sent it again; no match may be
half-written (an event without its snapshot, or the reverse); and the
snapshot must still be the fold of the log, with money conserved.

Eight client threads write Svängknack rounds, each write with a fresh
``Idempotency-Key``; six matches, two of them shared by two clients (so lost
races and the retry inside ``add_round`` are exercised too). On a dropped
connection, a 503 or a 409 the client sends the same key again, until the
server (restarted meanwhile) answers. The test kills gunicorn's whole process
group with SIGKILL at random moments (0.1-0.6 s of writing in between, seeded
by ``REFEREE_FAULT_SEED`` or at random; the seed is printed), restarts it on the
same port and database, 20 times per backend, then reads the database
directly (``check_database``). Run on SQLite (WAL) and PostgreSQL.
"""

from __future__ import annotations

import random
import threading
import uuid
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from tests.faults.server import (
    Acked,
    Http,
    Launcher,
    MatchRef,
    Tally,
    check_database,
    make_match,
    round_payload,
    started_server,
    write_through_kills,
)

KILLS = 20
CLIENTS = 8
MATCHES = 6  # clients 6 and 7 share the matches of clients 0 and 1


def client(i: int, port: int, match: MatchRef, seed: int, stop: threading.Event, *, tally: Tally) -> None:
    """Write rounds until told to stop; a write in flight is always finished (acknowledged) first."""
    rng = random.Random(seed * 100 + i)
    http = Http(port, timeout=30)
    n = 0
    while not stop.is_set():
        n += 1
        key = f"k{i}-{n}-{uuid.uuid4().hex[:12]}"
        with tally.lock:
            tally.sent.add(key)
        reply = tally.write(http, f"/api/matches/{match.id}/rounds", round_payload(rng), key=key,
                            token=match.edit_token, ok=(200, 201), what=f"client {i}: key {key}")
        if reply is None:
            return
        with tally.lock:
            tally.acked.append(Acked(key, match.id, int(reply.json()["round"]), reply.status,
                                    reply.headers.get("idempotent-replayed") == "true"))


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_kill_9_under_load_keeps_every_acknowledged_round_once(
        backend: str, tmp_path: Path, postgres: Any, launcher: Launcher, figures: list[str]) -> None:
    server, seed = started_server("kill", backend, tmp_path, postgres, launcher)
    url = server.url
    rng = random.Random(seed)
    tally = Tally()
    try:
        setup = Http(server.port)
        matches = [make_match(setup, f"{backend}-{m}") for m in range(MATCHES)]
        write_through_kills([partial(client, i, server.port, matches[i % MATCHES], seed, tally=tally)
                             for i in range(CLIENTS)], [server], KILLS, rng, (0.1, 0.6))
    finally:
        server.stop()
    assert not tally.errors, "\n".join(tally.errors[:10]) + "\n--- gunicorn log ---\n" + server.tail()
    assert server.kills == KILLS
    replayed = sum(1 for a in tally.acked if a.replayed)
    # The kills must have hit writes, or this test proves nothing.
    assert len(tally.acked) > KILLS and tally.cut > 0, (len(tally.acked), tally.cut)
    problems, checked = check_database(url, tmp_path, tally.acked, tally.sent)
    assert not problems, "\n".join(problems[:20])
    assert not server.failures(), "\n".join(server.failures()[:10])
    figures.append(
        f"kill -9 ({backend}): {server.kills} kills of gunicorn (master+workers), seed {seed}; {CLIENTS} clients "
        f"on {MATCHES} matches; {checked} acknowledged writes checked in the database, all there once; "
        f"{tally.cut} writes interrupted and sent again ({tally.retries} resends with the same key), "
        f"{replayed} of them answered from the stored round")


def test_the_database_check_finds_lost_foreign_and_half_written_rounds(tmp_path: Path) -> None:
    """``check_database`` itself: each of its checks fails on a ledger broken in that way.

    A few rounds through the API (in-process, SQLite), then the check must
    pass, and must complain about an acknowledged round that is not stored, a
    stored round nobody sent, a snapshot a round ahead of its log, and a
    snapshot whose money does not match the log.
    """
    from referee.models import Snapshot, db
    from tests.conftest import make_app

    url = f"sqlite:///{tmp_path / 'check.sqlite3'}"
    app = make_app(url, tmp_path)
    client = app.test_client()
    night = client.post("/api/nights", json={"name": "Check", "currency": "SEK", "players": ["Anna", "Bo", "Cia"]})
    auth = {"Authorization": f"Bearer {night.json['edit_token']}"}
    match = client.post(f"/api/nights/{night.json['id']}/matches", headers=auth,
                        json={"game": "svangknack", "players": ["Anna", "Bo", "Cia"], "stake": "3.00",
                              "options": {"forced_participation": "always"}})
    mid = match.json["id"]
    rng = random.Random(1)
    acked = []
    for i in range(5):
        reply = client.post(f"/api/matches/{mid}/rounds", json=round_payload(rng),
                            headers={**auth, "Idempotency-Key": f"k{i}"})
        assert reply.status_code == 201
        acked.append(Acked(f"k{i}", mid, reply.json["round"], 201))
    sent = {a.key for a in acked}

    def problems(acked_: list[Acked], sent_: set[str]) -> str:
        return "\n".join(check_database(url, tmp_path, acked_, sent_)[0])

    assert problems(acked, sent) == ""
    assert "is missing" in problems([*acked, Acked("lost", mid, 6, 201)], sent | {"lost"})
    assert "no client sent" in problems(acked[:-1], sent - {"k4"})
    with app.app_context():
        snap = db.session.get(Snapshot, mid)
        good = dict(snap.state)
        snap.next_seq += 1
        db.session.commit()
        assert "half-written" in problems(acked, sent)
        snap.next_seq -= 1
        snap.state = {**good, "pot": good["pot"] + 300}
        db.session.commit()
        broken = problems(acked, sent)
        assert "replay of the log differs" in broken and "money not conserved" in broken, broken
        db.session.remove()
        db.engine.dispose()
