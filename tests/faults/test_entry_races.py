"""A late registration and a withdrawal sent at the moment the organiser draws the next series (issue 43.2), against
a real gunicorn server (4 workers) on SQLite and PostgreSQL.

Each write takes the night's lock and reads the tournament again under it, as ``next`` does, so each one is
either in before the draw or after it. Checked after every race, for every series drawn so far: the tables seat
exactly the players whose ``joined_series`` has come and who had not left before it was drawn (a player who
withdrew in series ``s`` may sit in ``s``: drawn before the withdrawal was in). So a late player is in the new
series or the next one, never lost and never seated twice; a withdrawn player is never drawn after the
withdrawal's answer.
"""

from __future__ import annotations

import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.faults.server import Http, Launcher, Server, database_url, posts_at_once, serving

WORKERS = 4
#: Races per backend, on one tournament of RACES + 2 series (one race per series drawn; the last race's draw is
#: not the last series, which takes no late player).
RACES = 24


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def server(request: pytest.FixtureRequest, tmp_path: Path, postgres: Any, launcher: Launcher) -> Any:
    url = database_url(request.param, tmp_path, postgres, f"entry_races_{uuid.uuid4().hex[:8]}")
    # The migrations' schema, tournaments included; a shared, busy machine boots workers slowly.
    with serving(Server(url, tmp_path, launcher=launcher, workers=WORKERS), timeout=180) as srv:
        yield srv


def _ok(http: Http, method: str, path: str, body: Any, token: str, status: int = 200) -> Any:
    reply = http.request(method, path, body, {"Authorization": f"Bearer {token}"})
    assert reply.status == status, (path, reply.status, reply.body[:300])
    return reply.json()


def _finish_tables(http: Http, tables: list[dict[str, Any]]) -> None:
    """Kul: the first seat of each table takes three marks and wins it."""
    for table in tables:
        for _ in range(3):
            _ok(http, "POST", f"/api/matches/{table['match']}/rounds", {"last_trick": table["players"][0]},
                table["table_token"], status=201)


def test_a_late_player_and_a_withdrawal_racing_next_are_in_one_series_or_the_next(server: Server,
                                                                                   figures: list[str]) -> None:
    http = Http(server.port)
    made = _ok(http, "POST", "/api/tournaments", {
        "name": "Race", "currency": "SEK", "game": "kul", "players": ["A", "B", "C", "D", "E", "F"],
        "table_size": 3, "series": RACES + 2, "stake": "1.00", "seed": "entries"}, "", status=201)
    edit, tid = made["edit_token"], made["id"]
    auth = {"Authorization": f"Bearer {edit}"}
    seats = {1: [name for t in made["tables"] for name in t["players"]]}  # series -> who was drawn
    tables = made["tables"]
    late_in_new, withdraw_before = 0, 0
    for race in range(RACES):
        series = race + 1
        _finish_tables(http, tables)
        leaver = tables[0]["players"][0]
        late = f"Late{race}"
        nxt, joined, left = posts_at_once(server.port, [
            (f"/api/tournaments/{tid}/next", {}, auth),
            (f"/api/tournaments/{tid}/players", {"name": late}, auth),
            (f"/api/tournaments/{tid}/players/{leaver}/withdraw", {}, auth)])
        assert nxt.status == 201, (race, nxt.status, nxt.body[:300])
        assert joined.status == 201, (race, joined.status, joined.body[:300])
        assert left.status == 200, (race, left.status, left.body[:300])
        tables = nxt.json()["tables"]
        seats[series + 1] = [name for t in tables for name in t["players"]]
        view = _ok(http, "GET", f"/api/tournaments/{tid}", None, edit)
        entrants = {row["player"]: row for row in view["players"]}
        assert entrants[late]["joined_series"] in (series + 1, series + 2), entrants[late]
        assert entrants[leaver]["left_series"] in (series, series + 1), entrants[leaver]
        late_in_new += entrants[late]["joined_series"] == series + 1
        withdraw_before += entrants[leaver]["left_series"] == series
        for drawn, names in seats.items():
            assert not [n for n, k in Counter(names).items() if k > 1], (drawn, names)  # nobody seated twice
            want = {name for name, row in entrants.items() if row["joined_series"] <= drawn
                    and (row["left_series"] is None or row["left_series"] >= drawn)}
            assert set(names) == want, (race, drawn, sorted(names), sorted(want), entrants)
    figures.append(f"late player and withdrawal racing next ({server.url.split(':')[0]}): {RACES} races, "
                   f"the late player in the new series {late_in_new}, in the one after {RACES - late_in_new}; "
                   f"the withdrawal before the draw {withdraw_before}, after it {RACES - withdraw_before}; "
                   "never lost, never twice")
