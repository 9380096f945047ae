"""Tournaments through the API (issue 30, API.md "Tournaments"), on SQLite and PostgreSQL."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from tests.tournament.helpers import NINE, bearer, close, create, play_schwimmen, view


def test_create_view_and_next_refused_while_tables_play(client: Any) -> None:
    made = create(client)
    assert made["seed"] == "2026-11-27" and made["series"] == 1
    seated = [p for t in made["tables"] for p in t["players"]]
    assert sorted(seated) == sorted(NINE)
    assert [len(t["players"]) for t in made["tables"]] == [3, 3, 3]
    tid, edit = made["id"], made["edit_token"]
    got = view(client, tid, edit)
    assert (got["series"], got["of"], got["finished"], got["format"]) == (1, 2, False, "series")
    assert [t["table"] for t in got["tables"]] == [1, 2, 3]
    resp = client.post(f"/api/tournaments/{tid}/next", headers=bearer(edit))
    assert resp.status_code == 409 and resp.get_json()["tables"] == [1, 2, 3]
    play_schwimmen(client, made["tables"][1], made["tables"][1]["table_token"])
    resp = client.post(f"/api/tournaments/{tid}/next", headers=bearer(edit))
    assert resp.status_code == 409 and resp.get_json()["tables"] == [1, 3]
    for table in (made["tables"][0], made["tables"][2]):
        close(client, table["match"], table["table_token"])
    resp = client.post(f"/api/tournaments/{tid}/next", headers=bearer(edit))
    assert resp.status_code == 201, resp.get_json()
    second = resp.get_json()
    assert second["series"] == 2 and sorted(p for t in second["tables"] for p in t["players"]) == sorted(NINE)
    old_tokens = {t["table_token"] for t in made["tables"]}
    assert not old_tokens & {t["table_token"] for t in second["tables"]}


def test_the_same_seed_gives_the_same_tables(client: Any) -> None:
    one, two = create(client), create(client, players=list(reversed(NINE)))
    assert [t["players"] for t in one["tables"]] == [t["players"] for t in two["tables"]]
    three = create(client, seed="another")
    assert [t["players"] for t in three["tables"]] != [t["players"] for t in one["tables"]]


def test_table_token_rights(client: Any) -> None:
    made = create(client)
    mine, other = made["tables"][0], made["tables"][1]
    tok = bearer(mine["table_token"])
    night = made["night"]
    # its own table: enter, void, close
    payload = {"ended_by": "knock", "by": mine["players"][0], "losers": [mine["players"][1]]}
    assert client.post(f"/api/matches/{mine['match']}/rounds", headers=tok, json=payload).status_code == 201
    assert client.post(f"/api/matches/{mine['match']}/rounds/1/void", headers=tok, json={}).status_code == 200
    # reads what the view token reads
    assert client.get(f"/api/nights/{night}", headers=tok).status_code == 200
    assert client.get(f"/api/matches/{other['match']}", headers=tok).status_code == 200
    got = client.get(f"/api/tournaments/{made['id']}", headers=tok).get_json()
    text = str(got)
    assert made["edit_token"] not in text and other["table_token"] not in text and "seed" not in got
    assert "edit_token" not in str(client.get(f"/api/nights/{night}", headers=tok).get_json())
    # another table, night-wide writes, next: 403
    other_payload = {"ended_by": "knock", "by": other["players"][0], "losers": [other["players"][1]]}
    assert client.post(f"/api/matches/{other['match']}/rounds", headers=tok, json=other_payload).status_code == 403
    assert client.post(f"/api/matches/{other['match']}/close", headers=tok, json={}).status_code == 403
    assert client.post(f"/api/nights/{night}/players", headers=tok, json={"name": "Jon"}).status_code == 403
    assert client.post(f"/api/nights/{night}/payments", headers=tok,
                       json={"from": "Anna", "to": "Bo", "amount": "1.00"}).status_code == 403
    assert client.post(f"/api/nights/{night}/matches", headers=tok,
                       json={"game": "schwimmen", "players": NINE[:3]}).status_code == 403
    assert client.post(f"/api/nights/{night}/revoke", headers=tok).status_code == 403
    assert client.post(f"/api/tournaments/{made['id']}/next", headers=tok).status_code == 403
    assert client.post(f"/api/tournaments/{made['id']}/tables/1/revoke", headers=tok).status_code == 403
    # the view token reads, never writes
    view_tok = bearer(made["view_token"])
    assert client.post(f"/api/matches/{mine['match']}/rounds", headers=view_tok, json=payload).status_code == 403
    assert made["edit_token"] not in str(view(client, made["id"], made["view_token"]))


def test_revoking_a_table_and_the_night_ends_table_tokens(client: Any) -> None:
    made = create(client)
    mine = made["tables"][0]
    edit = bearer(made["edit_token"])
    payload = {"ended_by": "knock", "by": mine["players"][0], "losers": [mine["players"][1]]}
    resp = client.post(f"/api/tournaments/{made['id']}/tables/1/revoke", headers=edit)
    assert resp.status_code == 200
    fresh = resp.get_json()["table_token"]
    assert fresh != mine["table_token"]
    assert client.post(f"/api/matches/{mine['match']}/rounds", headers=bearer(mine["table_token"]),
                       json=payload).status_code == 403
    assert client.post(f"/api/matches/{mine['match']}/rounds", headers=bearer(fresh), json=payload).status_code == 201
    assert client.post(f"/api/nights/{made['night']}/revoke", headers=edit).status_code == 200
    assert client.get(f"/api/tournaments/{made['id']}", headers=bearer(fresh)).status_code == 403
    second = made["tables"][1]
    assert client.get(f"/api/nights/{made['night']}", headers=bearer(second["table_token"])).status_code == 403


def test_knockout_schwimmen_to_a_champion_with_fees_and_prizes(client: Any) -> None:
    made = create(client, format="knockout", entry_fee="20.00", prizes=[50, 30, 20])
    tid, edit = made["id"], made["edit_token"]
    assert made["of"] == 2
    tables = made["tables"]
    for table in tables:
        play_schwimmen(client, table, table["table_token"])
    winners = set()
    for table in tables:
        state = client.get(f"/api/matches/{table['match']}", headers=bearer(edit)).get_json()["state"]
        winners.add(state["winner"])
    resp = client.post(f"/api/tournaments/{tid}/next", headers=bearer(edit))
    assert resp.status_code == 201
    final = resp.get_json()["tables"]
    assert len(final) == 1 and set(final[0]["players"]) == winners  # each table's winner goes on
    mid = view(client, tid, made["view_token"])
    out = {r["player"]: r["out_in_series"] for r in mid["standings"]}
    assert {p for p, s in out.items() if s is None} == winners and set(out.values()) == {None, 1}
    play_schwimmen(client, final[0], final[0]["table_token"])
    resp = client.post(f"/api/tournaments/{tid}/next", headers=bearer(edit))
    assert resp.status_code == 200 and resp.get_json()["finished"] is True
    done = view(client, tid, made["view_token"])
    champion = client.get(f"/api/matches/{final[0]['match']}", headers=bearer(edit)).get_json()["state"]["winner"]
    assert done["standings"][0]["player"] == champion and done["standings"][0]["out_in_series"] is None
    assert done["standings"][0]["place"] == 1
    prizes = {p["player"]: Decimal(p["amount"]) for p in done["prizes"]}
    assert prizes[champion] == Decimal("90.00") and sum(prizes.values()) == Decimal("180.00")
    settlement = client.get(f"/api/nights/{made['night']}/settlement", headers=bearer(edit)).get_json()
    balances = {k: Decimal(v) for k, v in settlement["balances"].items()}
    assert sum(balances.values()) + Decimal(settlement["pots"]) == 0
    results = {r["player"]: Decimal(r["result"]) for r in done["standings"]}
    for name in NINE:  # the matches' result, less the fee, plus the prize
        assert balances[name] == results[name] - Decimal("20.00") + prizes.get(name, Decimal(0))
    assert client.post(f"/api/tournaments/{tid}/next", headers=bearer(edit)).status_code == 409


def test_series_standings_are_the_sum_of_the_tables(client: Any) -> None:
    made = create(client, game="svangknack", players=NINE[:8], table_size=4, stake="3.00", series=2)
    edit = bearer(made["edit_token"])
    tables, answer = made["tables"], made
    for _series in (1, 2):
        for t in tables:
            p = t["players"]
            resp = client.post(f"/api/matches/{t['match']}/rounds", headers=bearer(t["table_token"]),
                               json={"svangare": p[1], "participants": [p[1], p[2]], "tricks": {p[1]: 2, p[2]: 1}})
            assert resp.status_code == 201, resp.get_json()
            close(client, t["match"], t["table_token"])
        resp = client.post(f"/api/tournaments/{made['id']}/next", headers=edit)
        answer = resp.get_json()
        tables = answer.get("tables", [])
    assert answer["finished"] is True
    settlement = client.get(f"/api/nights/{made['night']}/settlement", headers=edit).get_json()
    per_player: dict[str, Decimal] = {}
    for m in settlement["per_match"]:
        for name, amount in m["balances"].items():
            per_player[name] = per_player.get(name, Decimal(0)) + Decimal(amount)
    rows = answer["standings"]
    assert {r["player"]: Decimal(r["result"]) for r in rows} == per_player
    assert all(r["matches"] == 2 for r in rows)
    ordered = [Decimal(r["result"]) for r in rows]
    assert ordered == sorted(ordered, reverse=True)
    for k, r in enumerate(rows):  # places as in sport
        assert r["place"] == next(j + 1 for j, v in enumerate(ordered) if v == ordered[k])


@pytest.mark.parametrize(("change", "field"), [
    ({"players": ["Anna"]}, "players"),
    ({"players": "Anna"}, "players"),
    ({"game": "poker"}, "game"),
    ({"table_size": 0}, "table_size"),
    ({"table_size": "4"}, "table_size"),
    ({"series": 0}, "series"),
    ({"format": "swiss"}, "format"),
    ({"format": "knockout", "advance": 3}, "advance"),
    ({"entry_fee": "1.234"}, "entry_fee"),
    ({"entry_fee": "10.00", "prizes": [50, 30]}, "prizes"),
    ({"prizes": [10] * 10}, "prizes"),
    ({"prizes": [50.5, 49.5]}, "prizes"),
    ({"stake": "-1"}, "stake"),
    ({"seed": ""}, "seed"),
    ({"currency": "XXQ"}, "currency"),
    ({"options": {"nope": 1}}, "options.nope"),
    ({"game": "svangknack", "players": ["Anna", "Bo", "Cia", "Dan"], "table_size": 2}, "players"),
])
def test_bad_input_is_a_400_naming_the_field(client: Any, change: dict[str, Any], field: str) -> None:
    body = {"name": "K", "currency": "SEK", "game": "schwimmen", "players": NINE, "table_size": 4} | change
    resp = client.post("/api/tournaments", json=body)
    assert resp.status_code == 400, resp.get_json()
    assert resp.get_json()["field"] == field
