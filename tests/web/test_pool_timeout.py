"""Every pooled connection taken: a 503 with Retry-After, never a 500 (bench/tournament.py met this).

A club evening's 40 writers on one SQLite server took every connection of the
pool while they queued for the writer lock; the next request waited
``pool_timeout`` and met SQLAlchemy's ``TimeoutError``, which was a 500. It is
the database being busy, like a restart: 503, try again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from tests.conftest import make_app


@pytest.mark.parametrize("path", ["/api/nights/1", "/nights/1"])
def test_a_request_finding_no_free_connection_is_a_503(tmp_path: Path, path: str) -> None:
    from referee.models import db

    app = make_app(f"sqlite:///{tmp_path / 'pool.sqlite3'}", tmp_path,
                   SQLALCHEMY_ENGINE_OPTIONS={"pool_size": 1, "max_overflow": 0, "pool_timeout": 0.2})
    client = app.test_client()
    night: Any = client.post("/api/nights", json={"name": "Fredag", "currency": "SEK",
                                                 "players": ["Anna", "Bo", "Cia"]}).get_json()
    with app.app_context():
        held = db.engine.connect()  # the pool's only connection, as a queued writer holds it
        held.execute(text("SELECT 1"))
        try:
            resp = client.get(path, headers={"Authorization": f"Bearer {night['view_token']}"})
        finally:
            held.close()
        assert resp.status_code == 503, resp.status_code
        assert resp.headers["Retry-After"] == "2"
        again = client.get(path, headers={"Authorization": f"Bearer {night['view_token']}"})
        assert again.status_code != 503  # the connection is back: the same request is answered
        db.engine.dispose()


def test_a_writer_queued_for_the_lock_holds_no_pooled_connection(tmp_path: Path) -> None:
    """A round waiting for the SQLite writer lock has given its read's connection back: a reader gets it.

    One pooled connection only. This thread holds the writer lock (another
    writer's long write); a round entry, in its own thread, reads its match
    and queues; meanwhile a read must be answered, not wait out the pool
    and get the 503. When the lock is let go the round is entered.
    """
    import threading
    import time

    from referee.models import db
    from referee.writer_lock import WRITERS

    app = make_app(f"sqlite:///{tmp_path / 'queue.sqlite3'}", tmp_path,
                   SQLALCHEMY_ENGINE_OPTIONS={"pool_size": 1, "max_overflow": 0, "pool_timeout": 1.0})
    client = app.test_client()
    night: Any = client.post("/api/nights", json={"name": "Fredag", "currency": "SEK",
                                                 "players": ["Anna", "Bo", "Cia"]}).get_json()
    edit = {"Authorization": f"Bearer {night['edit_token']}"}
    match = client.post(f"/api/nights/{night['id']}/matches", headers=edit,
                        json={"game": "schwimmen", "players": ["Anna", "Bo", "Cia"], "dealer": "Anna",
                              "stake": "1.00"}).get_json()
    answers: list[int] = []

    def enter_round() -> None:
        resp = app.test_client().post(f"/api/matches/{match['id']}/rounds", headers=edit,
                                      json={"ended_by": "knock", "by": "Anna", "losers": ["Bo"]})
        answers.append(resp.status_code)

    with app.app_context():
        url = db.engine.url
    writer = threading.Thread(target=enter_round, daemon=True)
    with WRITERS.hold(url.database):
        writer.start()
        time.sleep(1.5)  # the round has read its match and waits in the writers' queue
        assert writer.is_alive() and not answers
        read = client.get(f"/api/nights/{night['id']}", headers=edit)
        assert read.status_code == 200, read.status_code  # was a 503: the queued writer held the connection
    writer.join(20)
    assert answers == [201]
    with app.app_context():
        db.engine.dispose()
