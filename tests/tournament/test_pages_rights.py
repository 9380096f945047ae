"""A table leader's phone (issue 30): the ``/t/`` link grants this phone its table's match only."""

from __future__ import annotations

from typing import Any

from tests.tournament.helpers import bearer, create


def test_table_link_grants_its_match_only(client: Any) -> None:
    made = create(client, game="svangknack", players=["Anna", "Bo", "Cia", "Dan", "Eva", "Filip"], table_size=3,
                  stake="3.00")
    mine, other = made["tables"]
    resp = client.get(f"/t/{mine['table_token']}")
    assert resp.status_code == 302 and resp.headers["Location"].endswith(f"/matches/{mine['match']}")
    page = client.get(f"/matches/{mine['match']}")
    assert page.status_code == 200 and page.headers["X-Referee-Right"] == "edit"
    assert f'action="/matches/{mine["match"]}/rounds"' in page.get_data(as_text=True)
    theirs = client.get(f"/matches/{other['match']}")  # reads the other table, no form
    assert theirs.status_code == 200 and theirs.headers["X-Referee-Right"] == "view"
    assert f'action="/matches/{other["match"]}/rounds"' not in theirs.get_data(as_text=True)
    assert client.post(f"/matches/{other['match']}/close", data={"pot": "split"}).status_code == 403
    assert client.get(f"/nights/{made['night']}").status_code == 200
    resp = client.post(f"/matches/{mine['match']}/close", data={"pot": "split", "confirm": "1"})
    assert resp.status_code in (200, 302), resp.status_code
    # the organiser gives a table a new token: the phone's grant of it ends, its old link opens nothing
    assert client.get(f"/t/{other['table_token']}").status_code == 302
    assert client.get(f"/matches/{other['match']}").headers["X-Referee-Right"] == "edit"
    assert client.post(f"/api/tournaments/{made['id']}/tables/2/revoke",
                       headers=bearer(made["edit_token"])).status_code == 200
    assert client.get(f"/matches/{other['match']}").headers["X-Referee-Right"] == "view"
    assert client.get(f"/t/{other['table_token']}").status_code == 404


def test_a_wrong_table_link_is_a_404(client: Any) -> None:
    assert client.get("/t/" + "x" * 32).status_code == 404
