"""The table display page: view right enough, no right no page, the game's own marks."""

from __future__ import annotations

from typing import Any

from tests.web.helpers import Api


def test_table_page_needs_the_view_right_and_shows_the_glance(client: Any) -> None:
    api = Api(client)
    night = api.new_night(["Anna", "Bo", "Cia"])
    sw = api.new_match("schwimmen", ["Anna", "Bo", "Cia"], stake="1.00")
    sk = api.new_match("svangknack", ["Anna", "Bo", "Cia"], stake="3.00")
    assert client.get(f"/matches/{sk['id']}/table").status_code == 403
    client.get(f"/v/{night['view_token']}")
    page = client.get(f"/matches/{sk['id']}/table")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'id="td-svangare">Bo<' in html and 'id="td-dealer">Anna<' in html
    assert f'data-match="{sk["id"]}"' in html  # follows the live stream
    assert night["edit_token"] not in html
    lives = client.get(f"/matches/{sw['id']}/table").get_data(as_text=True)
    assert lives.count("\N{BLACK HEART SUIT}" * 3) == 3  # three lives for each of three players
    assert client.get("/matches/999999/table").status_code == 404
