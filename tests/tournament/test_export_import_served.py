"""A running knockout's night exported and imported against a real server (gunicorn, 2 workers), SQLite and
PostgreSQL (issue 43.6): the copy is played on by its new table tokens, the old ones open nothing of it, and
both end with the same places and prizes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.faults.server import Http, Server, database_url, serving
from tests.tournament.helpers import schwimmen_to_the_end
from tests.tournament.test_export_import import without_ids


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, postgres: Any) -> Iterator[Server]:
    tmp_path: Path = tmp_path_factory.mktemp(f"export-{request.param}")
    url = database_url(request.param, tmp_path, postgres, f"export{abs(hash(tmp_path)) % 10**8}")
    with serving(Server(url, tmp_path)) as srv:
        yield srv


def send_with(http: Http, token: str) -> Any:
    def send(method: str, path: str, body: Any) -> tuple[int, Any]:
        reply = http.request(method, path, body, {"Authorization": f"Bearer {token}"})
        return reply.status, reply.json() if reply.body else None
    return send


def test_a_running_knockout_round_trips_through_a_real_server(server: Server) -> None:
    http = Http(server.port)
    created = http.request("POST", "/api/tournaments", {
        "name": "Klubbkväll", "currency": "SEK", "game": "schwimmen", "players": [f"P{k}" for k in range(9)],
        "table_size": 3, "format": "knockout", "stake": "1.00", "entry_fee": "10.00", "prizes": [60, 40],
        "seed": "served"})
    assert created.status == 201, created.json()
    made = created.json()
    organiser = send_with(http, made["edit_token"])
    for table in made["tables"]:
        schwimmen_to_the_end(send_with(http, table["table_token"]), table)
    status, drawn = organiser("POST", f"/api/tournaments/{made['id']}/next", None)
    assert status == 201, drawn
    final = drawn["tables"][0]
    status, export = organiser("GET", f"/api/nights/{made['night']}/export.json", None)
    assert status == 200 and export["tournament"]["current_series"] == 2
    reply = http.request("POST", "/api/import", export)
    assert reply.status == 201, reply.json()
    copied = reply.json()
    new_final = copied["tables"][0]
    assert new_final["players"] == final["players"] and new_final["table_token"] != final["table_token"]
    # the old final's token writes nothing to the copy's final, and reads nothing of it
    old = send_with(http, final["table_token"])
    assert old("POST", f"/api/matches/{new_final['match']}/rounds",
               {"ended_by": "knock", "by": final["players"][0], "losers": [final["players"][-1]]})[0] == 403
    assert old("GET", f"/api/nights/{copied['id']}", None)[0] == 403
    # both finals played alike, each by its own token: the same end
    schwimmen_to_the_end(send_with(http, new_final["table_token"]), new_final)
    schwimmen_to_the_end(send_with(http, final["table_token"]), final)
    copy_organiser = send_with(http, copied["edit_token"])
    assert organiser("POST", f"/api/tournaments/{made['id']}/next", None)[0] == 200
    assert copy_organiser("POST", f"/api/tournaments/{copied['tournament']}/next", None)[0] == 200
    views = [organiser("GET", f"/api/tournaments/{made['id']}", None)[1],
             copy_organiser("GET", f"/api/tournaments/{copied['tournament']}", None)[1]]
    assert views[1]["finished"] and len(views[1]["prizes"]) == 2
    assert without_ids(views[1]) == without_ids(views[0])
