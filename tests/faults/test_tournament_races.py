"""Two organisers' phones pressing "next" at once, against a real gunicorn server (issue 30).

The check that every table is done and the draw of the next series are made
inside one write, under the night's lock (SQLite's writer lock, PostgreSQL's
row lock), so several ``next`` requests at once draw one series, and at the
end write the fees and prizes once; the others get a 409.
"""

from __future__ import annotations

import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.faults.server import Http, Launcher, Server, at_once, database_url

WORKERS = 4
CLIENTS = 6


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def server(request: pytest.FixtureRequest, tmp_path: Path, postgres: Any, launcher: Launcher) -> Any:
    url = database_url(request.param, tmp_path, postgres, f"tourn_races_{uuid.uuid4().hex[:8]}")
    srv = Server(url, tmp_path, launcher=launcher, workers=WORKERS)
    srv.upgrade()  # the migrations' schema, tournaments included
    srv.start(timeout=180)  # a shared, busy machine boots workers slowly
    try:
        yield srv
    finally:
        srv.stop()
    assert not srv.failures(), "\n".join(srv.failures()) + "\n" + srv.tail()


def _close_all(http: Http, tables: list[dict[str, Any]]) -> None:
    for table in tables:
        reply = http.request("POST", f"/api/matches/{table['match']}/close",
                             {"pot": "award", "to": table["players"][0]},
                             {"Authorization": f"Bearer {table['table_token']}"})
        assert reply.status == 200, reply.body[:300]


def test_concurrent_next_draws_one_series_and_pays_prizes_once(server: Server) -> None:
    http = Http(server.port)
    reply = http.request("POST", "/api/tournaments", {
        "name": "Race", "currency": "SEK", "game": "schwimmen", "players": ["A", "B", "C", "D", "E", "F"],
        "table_size": 3, "series": 2, "stake": "1.00", "entry_fee": "5.00", "prizes": [70, 30], "seed": "r"})
    assert reply.status == 201, reply.body[:300]
    made = reply.json()
    edit = {"Authorization": f"Bearer {made['edit_token']}"}
    _close_all(http, made["tables"])
    replies = at_once(server.port, f"/api/tournaments/{made['id']}/next", {}, edit, CLIENTS)
    assert sorted(r.status for r in replies) == [201] + [409] * (CLIENTS - 1), [(r.status, r.body[:200])
                                                                                 for r in replies]
    view = http.request("GET", f"/api/tournaments/{made['id']}", headers=edit).json()
    assert view["series"] == 2 and len(view["tables"]) == 2
    night = http.request("GET", f"/api/nights/{made['night']}", headers=edit).json()
    assert len(night["matches"]) == 4  # two tables a series, drawn once
    _close_all(http, view["tables"])
    replies = at_once(server.port, f"/api/tournaments/{made['id']}/next", {}, edit, CLIENTS)
    assert sorted(r.status for r in replies) == [200] + [409] * (CLIENTS - 1), [(r.status, r.body[:200])
                                                                                 for r in replies]
    settlement = http.request("GET", f"/api/nights/{made['night']}/settlement", headers=edit).json()
    balances = {k: Decimal(v) for k, v in settlement["balances"].items()}
    assert sum(balances.values()) + Decimal(settlement["pots"]) == 0
    export = http.request("GET", f"/api/nights/{made['night']}/export.json", headers=edit).json()
    prizes = [p for p in export["payments"] if p["kind"] == "prize"]
    payers = [p["payer"] for p in prizes]
    assert prizes and len(set(payers)) == len(payers)  # one row per player: written once
    assert sum(p["amount_minor"] for p in prizes) == 0
    assert sum(p["amount_minor"] + 500 for p in prizes) + 500 * (6 - len(prizes)) == 3000  # the pool, given out
