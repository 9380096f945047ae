"""Players who come late or leave early (issue 43.2, API.md "Tournaments"), through the API on SQLite and PostgreSQL.

- A late player in ``series`` format is seated from the next series on and ranked by the matches she played; a
  knockout, a tournament in its last series and a finished one take none (409), nor does the night's own door.
- A withdrawn player is not seated again; in ``series`` keeps the place the results give; in ``knockout`` goes
  out in the series in play, below everyone still at a table in it, and the next best goes through instead.
- Seating by the standings puts the late players after those with a standing, and seats nobody who left.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tests.tournament.helpers import bearer, create

SIX = ["Anna", "Bo", "Cia", "Dan", "Eva", "Filip"]


def make(client: Any, **fields: Any) -> dict[str, Any]:
    """A Kul series of six at tables of three (the helpers' creation with this file's defaults)."""
    return create(client, **({"game": "kul", "players": SIX, "table_size": 3, "series": 3, "seed": "2026-11-28"}
                             | fields))


def call(client: Any, path: str, token: str, json: Any = None, method: str = "POST") -> tuple[int, Any]:
    resp = client.open(path, method=method, json=json, headers=bearer(token))
    return resp.status_code, resp.get_json()


def the_view(client: Any, made: dict[str, Any]) -> dict[str, Any]:
    status, got = call(client, f"/api/tournaments/{made['id']}", made["edit_token"], method="GET")
    assert status == 200, got
    return dict(got)


def marks(client: Any, table: dict[str, Any], names: list[str]) -> None:
    """Kul: each name takes the last trick of one deal (a mark), in order; three marks win the table."""
    for name in names:
        status, got = call(client, f"/api/matches/{table['match']}/rounds", table["table_token"],
                           {"last_trick": name})
        assert status == 201, got


def win_all(client: Any, tables: list[dict[str, Any]], seat: int = 0) -> None:
    for table in tables:
        marks(client, table, [table["players"][seat]] * 3)


def nxt(client: Any, made: dict[str, Any], status: int = 201) -> dict[str, Any]:
    got_status, got = call(client, f"/api/tournaments/{made['id']}/next", made["edit_token"])
    assert got_status == status, got
    return dict(got)


def seated(tables: list[dict[str, Any]]) -> list[str]:
    return [name for table in tables for name in table["players"]]


def test_a_late_player_is_seated_from_the_next_series_and_ranked_by_her_matches(client: Any) -> None:
    made = make(client)
    status, got = call(client, f"/api/tournaments/{made['id']}/players", made["edit_token"], {"name": "Lea"})
    assert status == 201 and got == {"player": "Lea", "joined_series": 2, "left_series": None}, got
    view = the_view(client, made)
    assert "Lea" not in seated(view["tables"]) and "Lea" not in {r["player"] for r in view["standings"]}
    assert {"player": "Lea", "joined_series": 2, "left_series": None} in view["players"]
    assert {"player": "Anna", "joined_series": 1, "left_series": None} in view["players"]
    win_all(client, made["tables"])
    second = nxt(client, made)
    assert sorted(seated(second["tables"])) == sorted([*SIX, "Lea"])
    lea_table = next(t for t in second["tables"] if "Lea" in t["players"])
    win_all(client, [t for t in second["tables"] if t is not lea_table])
    marks(client, lea_table, ["Lea"] * 3)
    view = the_view(client, made)
    lea = next(r for r in view["standings"] if r["player"] == "Lea")
    assert lea["matches"] == 1 and Decimal(lea["result"]) > 0
    # the same name again, in any case: 400 naming the field
    status, got = call(client, f"/api/tournaments/{made['id']}/players", made["edit_token"], {"name": "lea"})
    assert status == 400 and got["field"] == "name", got
    # the view token may not
    status, _got = call(client, f"/api/tournaments/{made['id']}/players", made["view_token"], {"name": "Max"})
    assert status == 403


def test_no_late_player_in_a_knockout_its_last_series_or_once_finished(client: Any) -> None:
    knockout = make(client, format="knockout", players=SIX[:4], table_size=2)
    status, got = call(client, f"/api/tournaments/{knockout['id']}/players", knockout["edit_token"], {"name": "Lea"})
    assert status == 409 and "knockout" in got["error"], got
    # the night's own door follows the same rule: refused, and nobody is added to the night
    status, got = call(client, f"/api/nights/{knockout['night']}/players", knockout["edit_token"], {"name": "Lea"})
    assert status == 409, got
    _status, night = call(client, f"/api/nights/{knockout['night']}", knockout["edit_token"], method="GET")
    assert "Lea" not in night["players"]
    one = make(client, series=1)
    status, got = call(client, f"/api/tournaments/{one['id']}/players", one["edit_token"], {"name": "Lea"})
    assert status == 409 and "last series" in got["error"], got
    win_all(client, one["tables"])
    nxt(client, one, status=200)
    status, got = call(client, f"/api/tournaments/{one['id']}/players", one["edit_token"], {"name": "Lea"})
    assert status == 409 and "finished" in got["error"], got


def test_the_nights_door_registers_a_late_player_of_a_series(client: Any) -> None:
    made = make(client, series=2)
    status, got = call(client, f"/api/nights/{made['night']}/players", made["edit_token"], {"name": "Late Larry"})
    assert status == 201, got
    assert {"player": "Late Larry", "joined_series": 2, "left_series": None} in the_view(client, made)["players"]
    win_all(client, made["tables"])
    assert "Late Larry" in seated(nxt(client, made)["tables"])


def test_a_withdrawn_player_of_a_series_keeps_her_place_and_is_not_seated_again(client: Any) -> None:
    made = make(client)
    table = made["tables"][0]
    winner = table["players"][0]
    marks(client, table, [winner] * 3)  # the table's winner, then leaves
    path = f"/api/tournaments/{made['id']}/players/{winner}/withdraw"
    status, got = call(client, path, made["edit_token"])
    assert status == 200, got
    assert {"player": winner, "joined_series": 1, "left_series": 1} in got["players"]
    again, got_again = call(client, path, made["edit_token"])  # a double tap: the same, nothing more
    assert again == 200 and got_again["players"] == got["players"]
    win_all(client, made["tables"][1:])
    second = nxt(client, made)
    assert winner not in seated(second["tables"]) and len(seated(second["tables"])) == 5
    view = the_view(client, made)
    row = next(r for r in view["standings"] if r["player"] == winner)
    assert row["matches"] == 1 and Decimal(row["result"]) > 0
    assert row["place"] == 1 + sum(1 for r in view["standings"] if Decimal(r["result"]) > Decimal(row["result"]))
    status, got = call(client, f"/api/tournaments/{made['id']}/players/Nobody/withdraw", made["edit_token"])
    assert status == 404, got
    status, _got = call(client, path, made["view_token"])
    assert status == 403


def test_a_withdrawn_knockout_player_goes_out_below_the_table_and_the_next_best_goes_through(client: Any) -> None:
    made = make(client, format="knockout", entry_fee="10.00", prizes=[100])
    left_table, other = made["tables"]
    leaver, second_best, third = left_table["players"]
    marks(client, left_table, [leaver, second_best, leaver, leaver])  # the leaver wins the table, then leaves
    status, got = call(client, f"/api/tournaments/{made['id']}/players/{leaver}/withdraw", made["edit_token"])
    assert status == 200, got
    row = next(r for r in got["standings"] if r["player"] == leaver)
    assert row["out_in_series"] == 1
    assert got["tables"][0]["through"] == [second_best], got["tables"][0]
    marks(client, other, [other["players"][2]] * 3)
    final = nxt(client, made)["tables"][0]
    assert sorted(final["players"]) == sorted([second_best, other["players"][2]])
    marks(client, final, [second_best] * 3)
    nxt(client, made, status=200)
    view = the_view(client, made)
    places = {r["player"]: r["place"] for r in view["standings"]}
    # out in series 1: the two who lost at a table (places 3, 3... by their table place) and the leaver last
    assert places[second_best] == 1 and places[leaver] == 6, places
    assert view["prizes"] == [{"player": second_best, "place": 1, "amount": "60.00"}]
    # the fee stays paid: the leaver's balance is the fee and the table's result
    _status, settle = call(client, f"/api/nights/{made['night']}/settlement", made["edit_token"], method="GET")
    balances = {k: Decimal(v) for k, v in settle["balances"].items()}
    assert sum(balances.values()) + Decimal(settle["pots"]) == 0
    status, got = call(client, f"/api/tournaments/{made['id']}/players/{third}/withdraw", made["edit_token"])
    assert status == 409, got


def test_standings_seating_puts_late_players_after_those_with_a_standing(client: Any) -> None:
    made = make(client, seating="standings", players=[*SIX, "Greta", "Hugo", "Ida"])
    call(client, f"/api/tournaments/{made['id']}/players", made["edit_token"], {"name": "Lea"})
    call(client, f"/api/tournaments/{made['id']}/players", made["edit_token"], {"name": "Max"})
    leaver = made["tables"][0]["players"][0]
    call(client, f"/api/tournaments/{made['id']}/players/{leaver}/withdraw", made["edit_token"])
    win_all(client, made["tables"])  # the first seat of each table wins
    second = nxt(client, made)
    assert leaver not in seated(second["tables"])
    assert len(seated(second["tables"])) == 10
    # the best together: the two other table winners at table 1, the late players at the last table
    winners = {t["players"][0] for t in made["tables"][1:]}
    assert winners <= set(second["tables"][0]["players"]), second["tables"]
    assert {"Lea", "Max"} <= set(second["tables"][-1]["players"]), second["tables"]


def test_withdrawals_that_leave_too_few_to_seat_a_series_finish_it(client: Any) -> None:
    made = make(client, players=SIX[:3], table_size=3, entry_fee="5.00", prizes=[100])
    table = made["tables"][0]
    for name in table["players"][:2]:
        assert call(client, f"/api/tournaments/{made['id']}/players/{name}/withdraw", made["edit_token"])[0] == 200
    marks(client, table, [table["players"][2]] * 3)
    done = nxt(client, made, status=200)
    assert done["finished"] is True
    assert done["prizes"] == [{"player": table["players"][2], "place": 1, "amount": "15.00"}]
