"""A group's tournament seated by rating (issue 47.3, API.md "Tournaments", ``seating``).

The tables are checked against the group's ratings as ``GET /api/groups/<token>/ratings`` gives them at the
moment of each draw: in a series the best-rated together, in a knockout spread, players without a rating last.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

from tests.ratings.test_ratings import ratings_of
from tests.tournament.helpers import bearer, create
from tests.web.helpers import Api
from tests.web.test_season import play_kul

RATED = ["Anna", "Bo", "Cia", "Dan", "Eva", "Filip"]
NEW = ["Greta", "Hugo", "Ida"]


def rated_group(client: Any) -> str:
    """A group whose Kul ratings order the six: each of them beat every later one in a match of two."""
    api = Api(client)
    api.new_night(RATED, group="Klubb")
    for k, better in enumerate(RATED):
        for worse in RATED[k + 1:]:
            play_kul(api, [better, worse], "1.00", [better] * 3)
    return str(api.night["group_token"])


def best_first(client: Any, token: str, players: list[str]) -> list[str]:
    return [row["player"] for row in ratings_of(client, token)["kul"] if row["player"] in players]


def test_series_seats_the_best_rated_together_and_draws_the_next_series_by_the_ratings_then(client: Any) -> None:
    token = rated_group(client)
    order = best_first(client, token, RATED)
    assert order == RATED
    players = NEW[:1] + RATED[::-1] + NEW[1:]  # the order named does not matter
    made = create(client, game="kul", players=players, table_size=3, series=2, seating="rating",
                  group_token=token)
    tables = [set(t["players"]) for t in made["tables"]]
    assert tables == [set(order[:3]), set(order[3:]), set(NEW)]
    for table in made["tables"]:  # series 1 played: each table's last seat wins its Kul
        play_kul_table(client, table, made["edit_token"])
    order = best_first(client, token, RATED + NEW)  # the ratings now, the tournament's matches in them
    assert len(order) == 9 and order != RATED + NEW
    resp = client.post(f"/api/tournaments/{made['id']}/next", headers=bearer(made["edit_token"]))
    assert resp.status_code == 201, resp.get_json()
    assert [set(t["players"]) for t in resp.get_json()["tables"]] == [set(order[:3]), set(order[3:6]),
                                                                       set(order[6:])]


def play_kul_table(client: Any, table: dict[str, Any], token: str) -> None:
    for _ in range(3):
        resp = client.post(f"/api/matches/{table['match']}/rounds", json={"last_trick": table["players"][-1]},
                           headers=bearer(token))
        assert resp.status_code == 201, resp.get_json()


def test_knockout_spreads_the_best_rated(client: Any) -> None:
    token = rated_group(client)
    order = best_first(client, token, RATED)
    made = create(client, game="kul", players=RATED + NEW, table_size=3, format="knockout", seating="rating",
                  group_token=token)
    tables = [set(t["players"]) for t in made["tables"]]
    for k, table in enumerate(tables):  # the best at table 1, the next at table 2, ..., then round again
        assert {order[k], order[k + 3]} <= table
        assert len(table & set(NEW)) == 1  # the unrated last, one each, by the draw
    resp = client.get(f"/api/tournaments/{made['id']}", headers=bearer(made["edit_token"]))
    assert resp.get_json()["seating"] == "rating"


@pytest.mark.parametrize(("fields", "field"), [
    ({"seating": "rating"}, "seating"),  # no group: no ratings
    ({"seating": "standings", "format": "knockout"}, "seating"),
    ({"seating": "strongest"}, "seating"),
])
def test_seating_refused_is_a_400_naming_it(client: Any, fields: dict[str, Any], field: str) -> None:
    body = {"name": "Klubbkväll", "currency": "SEK", "game": "kul", "players": RATED, "table_size": 3}
    resp = client.post("/api/tournaments", json=body | fields)
    assert resp.status_code == 400 and resp.get_json()["field"] == field, resp.get_json()
    made = client.post("/api/tournaments", json=body | {"seating": "draw"})  # the field itself is known
    assert made.status_code == 201, made.get_json()


def test_standings_seating_seats_series_two_by_the_standings(client: Any) -> None:
    made = create(client, game="kul", players=RATED + NEW, table_size=3, series=2, seating="standings")
    first = made["tables"]
    for table in first:
        play_kul_table(client, table, made["edit_token"])
    view = client.get(f"/api/tournaments/{made['id']}", headers=bearer(made["edit_token"])).get_json()
    place = {row["player"]: row["place"] for row in view["standings"]}
    resp = client.post(f"/api/tournaments/{made['id']}/next", headers=bearer(made["edit_token"]))
    assert resp.status_code == 201, resp.get_json()
    tables = [t["players"] for t in resp.get_json()["tables"]]
    for better, worse in pairwise(tables):  # best together: no one below a worse table
        assert max(place[p] for p in better) <= min(place[p] for p in worse)
    assert {p for t in first for p in t["players"][-1:]} == set(tables[0])  # the three winners together


def test_a_players_own_view_shows_their_rating_and_its_trend(client: Any) -> None:
    token = rated_group(client)
    made = create(client, game="kul", players=RATED + NEW, table_size=3, seating="rating", group_token=token)
    anna = ratings_of(client, token)["kul"][0]
    assert anna["player"] == "Anna"
    phone = client.application.test_client()
    assert phone.get(f"/v/{made['view_token']}").status_code == 302
    assert phone.post(f"/tournaments/{made['id']}/me", data={"player": "Anna"}).status_code == 302
    page = phone.get(f"/tournaments/{made['id']}/me").get_data(as_text=True)
    assert 'id="my-rating"' in page and anna["rating"] in page
    assert "After each night you played: " + " → ".join(anna["trend"][-8:]) in page
    assert phone.post(f"/tournaments/{made['id']}/me", data={"player": "Greta"}).status_code == 302
    assert 'id="my-rating"' not in phone.get(f"/tournaments/{made['id']}/me").get_data(as_text=True)  # unrated
