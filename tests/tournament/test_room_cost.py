"""What the room's pages cost (issue 30, "Scale"): work per version of the night, not per phone, seat or table.

At a club evening every player's phone shows its own view (``/tournaments/<id>/me``) and the hall displays
the standings; each fetches itself after every change of the night (``static/js/live.js``). The SQL
statements of a fetch are counted (SQLAlchemy's ``before_cursor_execute``) on both backends:

- the first fetch of a new version costs the same statements for 9 players at 3 tables as for 45 players
  at 15, during play and once the tournament is over (the settlement): no statement per seat or per table
  (a player's own view made one per seat, and the settlement one per table);
- the next phone to fetch the same version runs fewer statements than the first (the standings and the
  settlement are worked out once per version, ``referee/ledger/by_version.py``), and a round moves every
  phone's view on at once (the kept answer is never an older version's).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.tournament.helpers import bearer, close, create, statements, view


def _knock(client: Any, table: dict[str, Any], *, knocker_wins: bool = False) -> str:
    """One Svängknack round at ``table`` by its table token: the second seat knocks; returns the knocker."""
    token = table["table_token"]
    svangare = client.get(f"/api/matches/{table['match']}", headers=bearer(token)).get_json()["state"]["svangare"]
    knocker = next(p for p in table["players"] if p != svangare)
    tricks = {svangare: 0, knocker: 3} if knocker_wins else {svangare: 3, knocker: 0}
    resp = client.post(f"/api/matches/{table['match']}/rounds", headers=bearer(token),
                       json={"participants": [svangare, knocker], "tricks": tricks})
    assert resp.status_code == 201, resp.get_json()
    return knocker


def _evening(app: Any, players: int) -> tuple[Any, dict[str, Any], list[str]]:
    """A Svängknack series of ``players`` at tables of 3, a phone with the view link that chose its name."""
    client = app.test_client()
    names = [f"Spelare {i:02d}" for i in range(1, players + 1)]
    made = create(client, game="svangknack", players=names, table_size=3, series=1, stake="3.00",
                  entry_fee="10.00", prizes=[60, 40])
    assert len(made["tables"]) == players // 3
    assert client.get(f"/v/{made['view_token']}").status_code == 302
    me = made["tables"][0]["players"][0]
    assert client.post(f"/tournaments/{made['id']}/me", data={"player": me}).status_code == 302
    return client, made, names


def _fresh_costs(app: Any, client: Any, made: dict[str, Any]) -> dict[str, int]:
    """Each room page's statements at a version nobody has read yet (one more round at the first table)."""
    tid = made["id"]
    paths = {"me": f"/tournaments/{tid}/me", "hall": f"/tournaments/{tid}/hall", "api": f"/api/tournaments/{tid}"}
    for path in paths.values():  # warm: the templates, the translations, the fold's cache
        client.get(path, headers=bearer(made["view_token"]))
    costs = {}
    for what, path in paths.items():
        if not made.get("finished"):
            _knock(client, made["tables"][0])
        else:  # a payment of one cent moves a finished night on: its settlement is worked out again
            night = f"/api/nights/{made['night']}"
            transfer = client.get(f"{night}/settlement", headers=bearer(made["view_token"])).get_json()["transfers"][0]
            resp = client.post(f"{night}/payments", headers=bearer(made["edit_token"]),
                               json={"from": transfer["from"], "to": transfer["to"], "amount": "0.01"})
            assert resp.status_code == 201, resp.get_json()
        costs[what], resp = statements(app, client, path, headers=bearer(made["view_token"]))
        assert resp.status_code == 200, (path, resp.status_code)
    return costs


def _finish(client: Any, made: dict[str, Any]) -> None:
    for table in made["tables"]:
        _knock(client, table)
        close(client, table["match"], made["edit_token"])
    resp = client.post(f"/api/tournaments/{made['id']}/next", headers=bearer(made["edit_token"]))
    assert resp.status_code == 200 and resp.get_json()["finished"], resp.get_json()
    made["finished"] = True


@pytest.mark.parametrize("stage", ["playing", "finished"])
def test_a_new_versions_room_pages_cost_the_same_for_9_players_as_for_45(app: Any, stage: str) -> None:
    costs = {}
    for players in (9, 45):
        client, made, _names = _evening(app, players)
        if stage == "finished":
            _finish(client, made)
        costs[players] = _fresh_costs(app, client, made)
    assert costs[9] == costs[45], costs


def test_the_next_phone_of_a_version_takes_the_first_ones_answer_and_a_round_moves_every_phone_on(app: Any) -> None:
    first, made, _names = _evening(app, 9)
    tid = made["id"]
    second = app.test_client()  # another player's phone
    assert second.get(f"/v/{made['view_token']}").status_code == 302
    other = made["tables"][1]["players"][0]
    assert second.post(f"/tournaments/{tid}/me", data={"player": other}).status_code == 302
    for path in (f"/tournaments/{tid}/me", f"/tournaments/{tid}/hall"):
        first.get(path), second.get(path)  # warm
        _knock(first, made["tables"][2])
        alone, resp = statements(app, first, path)
        after, again = statements(app, second, path)
        assert resp.status_code == again.status_code == 200 and after < alone, (path, alone, after)

    def result(name: str) -> str:
        return next(s["result"] for s in view(first, tid, made["view_token"])["standings"] if s["player"] == name)

    def shown(client: Any) -> str:
        return client.get(f"/tournaments/{tid}/me").get_data(as_text=True)

    # `other` is the first seat of table 2: the svängare or, if not, the one who knocks (the first other seat)
    before_api, before_page = result(other), shown(second)
    _knock(first, made["tables"][1], knocker_wins=True)
    assert result(other) != before_api
    assert shown(second) != before_page
