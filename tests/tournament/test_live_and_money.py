"""A tournament's live stream read with a table token, its money through export/import, keyed writes (issue 30)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tests.live.sse import Reader
from tests.tournament.helpers import NINE, bearer, create, play_schwimmen, view


def test_the_live_stream_carries_table_rounds_to_a_table_token(live_app: Any) -> None:
    client = live_app.test_client()
    made = create(client)
    mine, other = made["tables"][0], made["tables"][1]
    resp = client.get(f"/api/nights/{made['night']}/live?view={mine['table_token']}", buffered=False)
    assert resp.status_code == 200
    reader = Reader(resp.response)
    reader.next()  # the opening event
    payload = {"ended_by": "knock", "by": other["players"][0], "losers": [other["players"][1]]}
    assert client.post(f"/api/matches/{other['match']}/rounds", headers=bearer(other["table_token"]),
                       json=payload).status_code == 201
    event, _at = reader.until(lambda e: e["what"] == "round")
    assert (event["match"], event["round_no"]) == (other["match"], 1)
    # the organiser ends the table's token: its stream ends at the next change of rights
    assert client.post(f"/api/tournaments/{made['id']}/tables/1/revoke",
                       headers=bearer(made["edit_token"])).status_code == 200
    assert reader.ended.wait(5.0)


def test_a_finished_tournaments_money_survives_export_and_import(client: Any) -> None:
    made = create(client, format="knockout", entry_fee="10.01", prizes=[60, 40])
    edit = bearer(made["edit_token"])
    for table in made["tables"]:
        play_schwimmen(client, table, table["table_token"])
    final = client.post(f"/api/tournaments/{made['id']}/next", headers=edit).get_json()["tables"][0]
    play_schwimmen(client, final, final["table_token"])
    assert client.post(f"/api/tournaments/{made['id']}/next", headers=edit).status_code == 200
    done = view(client, made["id"], made["edit_token"])
    amounts = [Decimal(p["amount"]) for p in done["prizes"]]
    assert sum(amounts) == Decimal("10.01") * 9  # every öre of the pool given out, none made up
    before = client.get(f"/api/nights/{made['night']}/settlement", headers=edit).get_json()
    assert sum(Decimal(v) for v in before["balances"].values()) + Decimal(before["pots"]) == 0
    export = client.get(f"/api/nights/{made['night']}/export.json", headers=edit).get_json()
    resp = client.post("/api/import", json=export)
    assert resp.status_code == 201, resp.get_json()
    copy = resp.get_json()
    after = client.get(f"/api/nights/{copy['id']}/settlement", headers=bearer(copy["edit_token"])).get_json()
    assert after["balances"] == before["balances"] and after["transfers"] == before["transfers"]
    # the fee and prize rows are not payments: each fee goes into the pot, the prizes come out of it, all of it
    fees = [p for p in export["payments"] if p["kind"] == "fee"]
    prizes = [p for p in export["payments"] if p["kind"] == "prize"]
    assert len(fees) == 9 and all(p["payee_pot"] and p["amount_minor"] == 1001 for p in fees)
    assert prizes and all(p["payee_pot"] for p in prizes)
    assert sum(p["amount_minor"] for p in prizes) == sum(p["amount_minor"] for p in fees)


def test_keyed_create_and_next_are_made_once(client: Any) -> None:
    body = {"name": "K", "currency": "SEK", "game": "schwimmen", "players": NINE, "table_size": 4, "seed": "s"}
    key = {"Idempotency-Key": "create-1"}
    first = client.post("/api/tournaments", json=body, headers=key)
    again = client.post("/api/tournaments", json=body, headers=key)
    assert first.status_code == again.status_code == 201
    assert again.get_json() == first.get_json() and again.headers.get("Idempotent-Replayed") == "true"
    made = first.get_json()
    for table in made["tables"]:
        play_schwimmen(client, table, table["table_token"])
    nkey = bearer(made["edit_token"]) | {"Idempotency-Key": "finish-1"}
    one = client.post(f"/api/tournaments/{made['id']}/next", headers=nkey)
    two = client.post(f"/api/tournaments/{made['id']}/next", headers=nkey)
    assert one.status_code == two.status_code == 200 and one.get_json() == two.get_json()
    assert two.headers.get("Idempotent-Replayed") == "true"


def test_a_tournament_night_belongs_to_a_group_with_its_prizes_in_the_result(client: Any) -> None:
    first = client.post("/api/nights", json={"name": "Fredag", "currency": "SEK", "players": ["Anna", "Bo"]})
    group_token = first.get_json()["group_token"]
    made = create(client, group_token=group_token, players=["Anna", "Bo", "Cia", "Dan"], table_size=2, series=1,
                  entry_fee="5.00", prizes=[100])
    assert made["group_token"] == group_token
    edit = bearer(made["edit_token"])
    for table in made["tables"]:
        play_schwimmen(client, table, table["table_token"])
    assert client.post(f"/api/tournaments/{made['id']}/next", headers=edit).status_code == 200
    settlement = client.get(f"/api/nights/{made['night']}/settlement", headers=edit).get_json()
    group = client.get(f"/api/groups/{group_token}").get_json()
    night = next(n for n in group["nights"] if n["id"] == made["night"])
    assert night["result"] == settlement["result"]  # fees and prizes in the group's result as in the settlement
    assert sum(Decimal(v) for v in night["result"].values()) + Decimal(settlement["pots"]) == 0
    bad = client.post("/api/tournaments", json={"name": "K", "currency": "SEK", "game": "schwimmen",
                                                "players": NINE, "table_size": 4, "group_token": "nope" * 8})
    assert bad.status_code == 404
