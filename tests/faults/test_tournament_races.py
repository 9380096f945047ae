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

from tests.faults.server import Http, Launcher, Server, at_once, database_url, posts_at_once, serving
from tests.tournament.helpers import schwimmen_to_the_end

WORKERS = 4
CLIENTS = 6


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def server(request: pytest.FixtureRequest, tmp_path: Path, postgres: Any, launcher: Launcher) -> Any:
    url = database_url(request.param, tmp_path, postgres, f"tourn_races_{uuid.uuid4().hex[:8]}")
    # The migrations' schema, tournaments included; a shared, busy machine boots workers slowly.
    with serving(Server(url, tmp_path, launcher=launcher, workers=WORKERS), timeout=180) as srv:
        yield srv


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
    assert prizes and len(set(payers)) == len(payers)  # one row per winner: written once
    fees = [p for p in export["payments"] if p["kind"] == "fee"]
    assert sorted(p["payer"] for p in fees) == ["A", "B", "C", "D", "E", "F"]  # owed from the start, once each
    assert sum(p["amount_minor"] for p in prizes) == sum(p["amount_minor"] for p in fees) == 3000  # the pool


#: Races of a void against the finishing "next" per backend. Each race the void wins reopens the table and is
#: raced again on the same tournament; each one "next" wins ends it and a new tournament is made.
RACES = 24


def _play_to_the_end(http: Http, table: dict[str, Any]) -> int:
    """A Schwimmen table played to its end over the real server (:func:`schwimmen_to_the_end`); its last round."""
    token = {"Authorization": f"Bearer {table['table_token']}"}

    def send(method: str, path: str, body: Any) -> tuple[int, Any]:
        reply = http.request(method, path, body, token)
        return reply.status, reply.json()

    return schwimmen_to_the_end(send, table)


def test_a_void_racing_the_finishing_next_is_in_before_the_prizes_or_refused_after(server: Server,
                                                                                    figures: list[str]) -> None:
    """The table leader voids the final table's last round at the moment the organiser presses the last "next".

    Either the void is in first (the table plays again, "next" is a 409 naming the table) or the finish is
    (the prizes are written from the standings, and the void is a 409 naming the tournament, or a 403 when
    the finish also came before the void's table token was checked: the finish ends it). Never both: a
    finish counted from a round that a void then takes back would pay prizes the standings no longer give.
    The order rests on the night's lock that both take (``tables.refuse_if_final``, ``next_series``); without
    it in the void, PostgreSQL lets both through.
    """
    http = Http(server.port)
    outcomes = {"void first": 0, "finish first": 0}
    made: dict[str, Any] | None = None
    for race in range(RACES):
        if made is None:
            reply = http.request("POST", "/api/tournaments", {
                "name": f"Final {race}", "currency": "SEK", "game": "schwimmen", "players": ["A", "B", "C"],
                "table_size": 3, "format": "knockout", "stake": "1.00", "entry_fee": "5.00", "prizes": [100],
                "seed": f"race-{race}"})
            assert reply.status == 201, reply.body[:300]
            made = reply.json()
        table = made["tables"][0]
        last = _play_to_the_end(http, table)
        edit = {"Authorization": f"Bearer {made['edit_token']}"}
        finish, void = posts_at_once(server.port, [
            (f"/api/tournaments/{made['id']}/next", {}, edit),
            (f"/api/matches/{table['match']}/rounds/{last}/void", {"reason": "wrong loser"},
             {"Authorization": f"Bearer {table['table_token']}"})])
        statuses = (finish.status, void.status)
        match = http.request("GET", f"/api/matches/{table['match']}", headers=edit).json()
        voided = next(r["void"] for r in match["rounds"] if r["round"] == last)
        view = http.request("GET", f"/api/tournaments/{made['id']}", headers=edit).json()
        if statuses == (409, 200):
            outcomes["void first"] += 1
            assert voided and not view["finished"] and not match["state"]["finished"], (view, match["state"])
            assert finish.json()["tables"] == [table["table"]], finish.body[:300]
            continue
        # The finish first: the void is refused by the ledger (409, naming the tournament) or, when the finish
        # was in before the void's token was checked, by the token the finish ended (403).
        assert statuses in ((200, 409), (200, 403)), (statuses, finish.body[:300], void.body[:300])
        outcomes["finish first"] += 1
        assert not voided and view["finished"] and match["state"]["finished"]
        assert void.status == 403 or void.json()["tournament"] == made["id"], void.body[:300]
        export = http.request("GET", f"/api/nights/{made['night']}/export.json", headers=edit).json()
        prizes = {p["payer"]: p["amount_minor"] for p in export["payments"] if p["kind"] == "prize"}
        champion = next(p for p in table["players"] if not match["state"]["players"][p]["out"])
        assert prizes == {champion: 1500}, prizes  # the whole pool: three fees of 5.00
        made = None
    figures.append(f"void racing the finishing next ({server.url.split(':')[0]}): {RACES} races, "
                   f"void first {outcomes['void first']}, finish first {outcomes['finish first']}, both never")
