"""The organiser's page and the hall for late players and withdrawals (issue 43.2), on SQLite and PostgreSQL.

The organiser adds a late player with one field and a button, and withdraws a player with a button and the
confirm step (two taps); the night page's own add-player form follows the same rule; the hall says "left" and
"came late" by the name, in words, in the reader's language.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.tournament.test_entries import SIX, make, marks, the_view


def organiser(client: Any, made: dict[str, Any]) -> None:
    assert client.get(f"/e/{made['edit_token']}").status_code in (302, 303)


def test_the_organiser_adds_a_late_player_in_one_tap_and_withdraws_one_in_two(client: Any) -> None:
    made = make(client)
    organiser(client, made)
    page = client.get(f"/tournaments/{made['id']}").get_data(as_text=True)
    assert 'id="late-name"' in page and 'id="late-button"' in page
    resp = client.post(f"/tournaments/{made['id']}/players", data={"name": "Lea"})
    assert resp.status_code == 302
    page = client.get(f"/tournaments/{made['id']}").get_data(as_text=True)
    assert "Lea plays from series 2 on." in page and "came late, from series 2" in page
    assert {"player": "Lea", "joined_series": 2, "left_series": None} in the_view(client, made)["players"]
    # a name already in: said on the page, nothing added
    client.post(f"/tournaments/{made['id']}/players", data={"name": "anna"})
    page = client.get(f"/tournaments/{made['id']}").get_data(as_text=True)
    assert "already plays in this tournament" in page
    leaver = made["tables"][0]["players"][0]
    first = client.post(f"/tournaments/{made['id']}/players/{leaver}/withdraw", data={})
    assert first.status_code == 200 and 'id="confirm-withdraw"' in first.get_data(as_text=True)
    assert all(p["left_series"] is None for p in the_view(client, made)["players"])  # not yet: the confirm step
    second = client.post(f"/tournaments/{made['id']}/players/{leaver}/withdraw", data={"confirm": "yes"})
    assert second.status_code == 302
    assert {"player": leaver, "joined_series": 1, "left_series": 1} in the_view(client, made)["players"]
    page = client.get(f"/tournaments/{made['id']}").get_data(as_text=True)
    assert "left in series 1" in page
    assert client.post(f"/tournaments/{made['id']}/players/Nobody/withdraw",
                       data={"confirm": "yes"}).status_code == 404


def test_the_night_pages_form_on_a_knockout_is_refused_in_words(client: Any) -> None:
    made = make(client, format="knockout", players=SIX[:4], table_size=2)
    organiser(client, made)
    client.post(f"/nights/{made['night']}/players", data={"name": "Late Larry"})
    page = client.get(f"/nights/{made['night']}").get_data(as_text=True)
    assert "A knockout takes no late players" in page
    assert all(p["player"] != "Late Larry" for p in the_view(client, made)["players"])
    assert 'id="late-name"' not in client.get(f"/tournaments/{made['id']}").get_data(as_text=True)


@pytest.mark.parametrize(("language", "left", "late"), [("en", "left", "came late"), ("sv", "lämnade", "kom sent"),
                                                        ("de", "ausgeschieden", "kam später")])
def test_the_hall_says_left_and_came_late_by_the_name(client: Any, language: str, left: str, late: str) -> None:
    made = make(client)
    organiser(client, made)
    client.post(f"/tournaments/{made['id']}/players", data={"name": "Lea"})
    leaver = made["tables"][0]["players"][0]
    client.post(f"/tournaments/{made['id']}/players/{leaver}/withdraw", data={"confirm": "yes"})
    for table in made["tables"]:
        marks(client, table, [table["players"][1]] * 3)
    client.post(f"/tournaments/{made['id']}/next", data={})
    client.get(f"/lang/{language}")
    hall = client.get(f"/tournaments/{made['id']}/hall").get_data(as_text=True)
    assert f'{leaver} <span class="hall-word">{left}</span>' in hall, hall[hall.find("hall-standings"):][:800]
    assert f'Lea <span class="hall-word">{late}</span>' in hall


@pytest.mark.parametrize(("language", "words"), [("en", "You play from series 2 on."),
                                                 ("sv", "Du spelar från serie 2."), ("de", "Du spielst ab Serie 2.")])
def test_a_late_player_not_yet_seated_finds_her_name_and_fee_on_her_own_view(client: Any, language: str,
                                                                             words: str) -> None:
    """The player's own view lists every player of the tournament, a late one before her first table too: she
    picks her name, is told the series she plays from, and sees the fee she owes from now."""
    made = make(client, entry_fee="20.00", prizes=[100])
    organiser(client, made)
    assert client.post(f"/tournaments/{made['id']}/players", data={"name": "Lea"}).status_code == 302
    client.get(f"/v/{made['view_token']}")
    client.get(f"/lang/{language}")
    assert 'value="Lea"' in client.get(f"/tournaments/{made['id']}/me").get_data(as_text=True)
    assert client.post(f"/tournaments/{made['id']}/me", data={"player": "Lea"}).status_code == 302
    page = client.get(f"/tournaments/{made['id']}/me").get_data(as_text=True)
    assert words in page and ("20.00" in page or "20,00" in page), page
