"""A phone that retries every write after a dropped connection: each write counts once.

On a game night the Wi-Fi drops, and the phone cannot tell whether its round
reached the server: the connection may have died before the request got
there, or after the server committed but before the answer came back. The
client sends the same ``Idempotency-Key`` again until it gets an answer; the
server must make the change once and, for a key it already has, answer with
the stored reply (the first answer, status and body, marked
``Idempotent-Replayed: true``) instead of a second change or an error
("round already void").

A loopback proxy (``CuttingProxy``) between the client and gunicorn cuts
connections at random, before forwarding or after the server's answer, and
for a few chosen rounds kills the server with SIGKILL right after it answered
and starts it again. The client is one thread writing a night, a match, 60
rounds, a void and a close. Expected, from what the proxy did and nothing
else: a round whose answer was ever cut after the server got it is answered
201 as a replay of the stored answer, any other 201 as made now; the database holds each
acknowledged round once (``check_database``), one night, one match, one
void and one close.
"""

from __future__ import annotations

import random
import uuid
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from tests.faults.proxy import CuttingProxy
from tests.faults.server import (
    Acked,
    Http,
    Launcher,
    check_database,
    make_match,
    round_payload,
    started_server,
    write,
)

ROUNDS = 60
KILLS = 3
CUT_BEFORE = 0.2
CUT_AFTER = 0.25


def count(url: str, instance: Path, what: Any, *where: Any) -> int:
    from referee import create_app
    from referee.models import db

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "faults", "INSTANCE_PATH": str(instance)})
    with app.app_context():
        try:
            return int(db.session.scalar(select(func.count()).select_from(what).where(*where)) or 0)
        finally:
            db.session.remove()
            db.engine.dispose()


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_retried_writes_count_once_through_a_cutting_proxy(
        backend: str, tmp_path: Path, postgres: Any, launcher: Launcher, figures: list[str]) -> None:
    from referee.models import Match, Night, Round

    server, seed = started_server("retry", backend, tmp_path, postgres, launcher)
    url = server.url
    rng = random.Random(seed)
    proxy = CuttingProxy(server.port, random.Random(seed + 1), CUT_BEFORE, CUT_AFTER)

    def kill_and_restart() -> None:
        server.kill()
        server.start()

    proxy.on_kill = kill_and_restart
    phone = Http(proxy.port, timeout=30)
    acked: list[Acked] = []
    sent: set[str] = set()
    wrong: list[str] = []
    resends = 0
    try:
        match = make_match(phone, f"retry-{backend}")
        keys = [f"r{i}-{uuid.uuid4().hex[:12]}" for i in range(ROUNDS)]
        proxy.kill_keys = set(rng.sample(keys[5:], KILLS))
        killed = set(proxy.kill_keys)
        for key in keys:
            sent.add(key)
            reply, retries = write(phone, f"/api/matches/{match.id}/rounds", round_payload(rng), key=key,
                                   token=match.edit_token, retry=frozenset({0, 503}))  # alone: never a 409
            resends += retries
            fates = proxy.fates.get(key, [])
            # The server had the round before this answer: any cut after it answered, or a kill.
            expected = {True} if {"after", "killed after the answer"} & set(fates) else {False}  # a replay?
            if "error" in fates:  # the proxy failed on its own: either answer is right
                expected = {True, False}
            replayed = reply.headers.get("idempotent-replayed") == "true"
            if reply.status != 201 or replayed not in expected:
                wrong.append(f"{key}: fates {fates}, answered {reply.status} (replayed {replayed}, expected "
                             f"{expected}): {reply.body[:200]!r}")
                continue
            acked.append(Acked(key, match.id, int(reply.json()["round"]), reply.status, replayed))
        void, r1 = write(phone, f"/api/matches/{match.id}/rounds/7/void", {"reason": "misdealt"},
                         key="void-7", token=match.edit_token)
        close, r2 = write(phone, f"/api/matches/{match.id}/close", {"pot": "split"}, key="close",
                          token=match.edit_token)
        resends += r1 + r2
    finally:
        proxy.close()
        server.stop()
    assert not wrong, "\n".join(wrong[:10])
    assert void.status == 200, (proxy.fates.get("void-7"), void.status, void.body[:300])
    assert close.status == 200, (proxy.fates.get("close"), close.status, close.body[:300])
    assert close.json()["state"]["finished"] is True
    assert not killed & proxy.kill_keys, "a chosen kill never happened"
    assert proxy.stats["before"] > 0 and proxy.stats["after"] > 0, dict(proxy.stats)
    assert not server.failures(), "\n".join(server.failures()[:10])

    problems, checked = check_database(url, tmp_path, acked, sent)
    assert not problems, "\n".join(problems[:20])
    assert count(url, tmp_path, Night) == 1
    assert count(url, tmp_path, Match) == 1
    assert count(url, tmp_path, Round, Round.void.is_(True)) == 1
    assert count(url, tmp_path, Round, Round.kind == "close") == 1
    replayed = sum(1 for a in acked if a.replayed)
    figures.append(
        f"retry via cutting proxy ({backend}): seed {seed}; {checked} rounds acknowledged and found once, plus one "
        f"night, match, void and close; {proxy.stats['before']} connections cut before the server, "
        f"{proxy.stats['after']} after its answer, {proxy.stats['killed after the answer']} kill -9 between "
        f"commit and answer; {resends} resends with the same key, {replayed} rounds answered from the stored round")
