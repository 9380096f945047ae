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
