"""A finished tournament's tables are final (docs/rules.md, "Tournaments"), on SQLite and PostgreSQL.

Once the last ``next`` has written the fees and prizes, the standings they
were counted from must not move: a void, a round or a close at any of the
tournament's tables is a 409 naming why, through the API and the pages, and
nothing changes (standings, prizes, settlement). Before the finish the
organiser may still void a table's round.
"""

from __future__ import annotations

from typing import Any

from tests.tournament.helpers import bearer, create, play_schwimmen, view


def finished_knockout(client: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A knockout of nine at tables of up to four, played to its champion and finished: (created, final table)."""
    made = create(client, format="knockout", entry_fee="20.00", prizes=[50, 30, 20])
    for table in made["tables"]:
        play_schwimmen(client, table, table["table_token"])
    edit = bearer(made["edit_token"])
    final = client.post(f"/api/tournaments/{made['id']}/next", headers=edit).get_json()["tables"][0]
    play_schwimmen(client, final, final["table_token"])
    done = client.post(f"/api/tournaments/{made['id']}/next", headers=edit)
    assert done.status_code == 200 and done.get_json()["finished"] is True
    return made, final


def money(client: Any, made: dict[str, Any]) -> tuple[Any, Any]:
    """What the finish fixed: the tournament's view (standings, prizes) and the night's settlement."""
    settlement = client.get(f"/api/nights/{made['night']}/settlement", headers=bearer(made["edit_token"]))
    return view(client, made["id"], made["edit_token"]), settlement.get_json()


def test_after_the_finish_voids_rounds_and_closes_are_409_and_change_nothing(client: Any) -> None:
    made, final = finished_knockout(client)
    edit = bearer(made["edit_token"])
    before = money(client, made)
    first = made["tables"][0]
    for match in (first["match"], final["match"]):
        last = client.get(f"/api/matches/{match}", headers=edit).get_json()["rounds"][-1]["round"]
        resp = client.post(f"/api/matches/{match}/rounds/{last}/void", headers=edit, json={"reason": "late"})
        assert resp.status_code == 409, resp.get_json()
        assert "Klubbkväll is finished" in resp.get_json()["error"]
        assert resp.get_json()["tournament"] == made["id"]
    players = final["players"]
    resp = client.post(f"/api/matches/{final['match']}/rounds", headers=edit,
                       json={"ended_by": "knock", "by": players[0], "losers": [players[1]]})
    assert resp.status_code == 409 and "prizes are paid out" in resp.get_json()["error"]
    resp = client.post(f"/api/matches/{first['match']}/close", headers=edit, json={"pot": "split"})
    assert resp.status_code == 409
    assert money(client, made) == before
    rounds = client.get(f"/api/matches/{first['match']}", headers=edit).get_json()["rounds"]
    assert not any(r["void"] for r in rounds)


def test_the_void_page_says_why_in_the_phones_language(client: Any) -> None:
    made, final = finished_knockout(client)
    before = money(client, made)
    client.get(f"/e/{made['edit_token']}")
    resp = client.post(f"/matches/{final['match']}/rounds/1/void", data={"reason": "x"},
                       headers={"Accept-Language": "sv"})
    assert resp.status_code == 409
    text = resp.get_data(as_text=True)
    assert "Klubbkväll" in text and "avslutad" in text  # the Swedish sentence, the tournament named
    assert money(client, made) == before


def test_before_the_finish_the_organiser_may_still_void_a_tables_round(client: Any) -> None:
    made = create(client, format="knockout")
    edit = bearer(made["edit_token"])
    table = made["tables"][0]
    play_schwimmen(client, table, table["table_token"])
    last = client.get(f"/api/matches/{table['match']}", headers=edit).get_json()["rounds"][-1]["round"]
    resp = client.post(f"/api/matches/{table['match']}/rounds/{last}/void", headers=edit, json={"reason": "typo"})
    assert resp.status_code == 200, resp.get_json()
    assert view(client, made["id"], made["edit_token"])["tables"][0]["finished"] is False
