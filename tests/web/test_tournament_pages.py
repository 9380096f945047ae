"""The tournament's pages (issue 30) through the test client, on SQLite and PostgreSQL: who may open which page,
the organiser's create form and "next series", the players' own view.

Rights: the organiser's page needs the night's edit right, the hall and the
players' view the view right; a table leader's link (``/t/<table_token>``)
opens its table's match only, never the organiser's page; the table cards
hand out table links, so only the organiser prints them.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

PLAYERS = ["Anna", "Bo", "Cia", "Dan", "Eva", "Filip", "Greta", "Hugo", "Ida"]


def create(client: Any, **extra: Any) -> dict[str, Any]:
    body = {"name": "Klubbkväll", "currency": "SEK", "game": "svangknack", "players": PLAYERS, "table_size": 4,
            "series": 2, "stake": "3.00", "entry_fee": "20.00", "prizes": [50, 30, 20], "seed": "2026-11-27"}
    resp = client.post("/api/tournaments", json=body | extra)
    assert resp.status_code == 201, resp.get_json()
    return dict(resp.get_json())


def close_all(client: Any, made: dict[str, Any], tables: list[dict[str, Any]]) -> None:
    for table in tables:
        resp = client.post(f"/api/matches/{table['match']}/close", json={"pot": "split"},
                           headers={"Authorization": f"Bearer {made['edit_token']}"})
        assert resp.status_code == 200, resp.get_json()


def test_no_right_no_page(client: Any) -> None:
    made = create(client)
    tid = made["id"]
    for path in (f"/tournaments/{tid}", f"/tournaments/{tid}/hall", f"/tournaments/{tid}/me",
                 f"/tournaments/{tid}/tables.pdf", f"/tournaments/{tid}/final.pdf"):
        assert client.get(path).status_code == 403, path
    assert client.get("/tournaments/999999").status_code == 404
    assert client.get("/tournaments/999999/hall").status_code == 404


def test_view_right_opens_the_hall_and_the_players_view_not_the_organisers_page(client: Any) -> None:
    made = create(client)
    tid = made["id"]
    client.get(f"/v/{made['view_token']}")
    hall = client.get(f"/tournaments/{tid}/hall")
    assert hall.status_code == 200
    text = hall.get_data(as_text=True)
    for name in PLAYERS:
        assert name in text
    assert made["edit_token"] not in text
    for table in made["tables"]:
        assert table["table_token"] not in text  # a viewer never sees a table's link
    assert client.get(f"/tournaments/{tid}/me").status_code == 200
    assert client.get(f"/tournaments/{tid}").status_code == 403
    assert client.get(f"/tournaments/{tid}/tables.pdf").status_code == 403
    assert client.get(f"/tournaments/{tid}/final.pdf").status_code == 200


def test_the_organisers_page_shows_every_table_in_seat_order_with_its_link(client: Any) -> None:
    made = create(client)
    client.get(f"/e/{made['edit_token']}")
    page = client.get(f"/tournaments/{made['id']}").get_data(as_text=True)
    blocks = {int(m.group(1)): m.group(2) for m in re.finditer(
        r'data-table="(\d+)">(.*?)(?=<li class="tourn-table|</section>)', page, re.S)}
    assert sorted(blocks) == [t["table"] for t in made["tables"]]
    for table in made["tables"]:
        block = blocks[table["table"]]
        seats = re.findall(r'<ol class="tt-seats">(.*?)</ol>', block, re.S)[0]
        assert re.findall(r"<li>([^<]+)</li>", seats) == table["players"]
        assert f"/t/{table['table_token']}" in block
    assert "Next series" in page


def test_a_table_leaders_link_does_not_open_the_organisers_page(client: Any) -> None:
    made = create(client)
    client.get(f"/t/{made['tables'][0]['table_token']}")
    assert client.get(f"/tournaments/{made['id']}").status_code == 403
    assert client.post(f"/tournaments/{made['id']}/next", data={}).status_code == 403
    assert client.get(f"/tournaments/{made['id']}/tables.pdf").status_code == 403


def test_create_by_the_form_then_next_series_refused_then_drawn(client: Any) -> None:
    resp = client.post("/tournaments/new", data={
        "name": "Formkväll", "currency": "SEK", "game": "svangknack", "players": "\n".join(PLAYERS),
        "table_size": "4", "format": "series", "series": "2", "advance": "1", "stake": "3,00",
        "entry_fee": "20", "prizes": "60, 40", "seed": "abc"})
    assert resp.status_code == 302, resp.get_data(as_text=True)
    tid = int(resp.headers["Location"].rstrip("/").split("/")[-1])
    page = client.get(f"/tournaments/{tid}")
    assert page.status_code == 200
    assert "Table 3" in page.get_data(as_text=True) and "Table 4" not in page.get_data(as_text=True)
    refused = client.post(f"/tournaments/{tid}/next", data={})
    assert refused.status_code == 409
    assert "still playing: 1, 2, 3" in refused.get_data(as_text=True)
    from referee.models import Tournament, db

    with client.application.app_context():
        tourn = db.session.get(Tournament, tid)
        matches = [t.match_id for t in tourn.tables]
        edit_token = tourn.night.edit_token
    close_all(client, {"edit_token": edit_token}, [{"match": m} for m in matches])
    drawn = client.post(f"/tournaments/{tid}/next", data={})
    assert drawn.status_code == 302
    page = client.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert "Series 2 is drawn" in page and "Series 2 of 2" in page and "Finish the tournament" in page


@pytest.mark.parametrize(("field", "value"), [("prizes", "fifty, 50"), ("table_size", "1"), ("players", "Anna")])
def test_bad_form_input_is_a_4xx_naming_the_field(client: Any, field: str, value: str) -> None:
    data = {"name": "Fel", "currency": "SEK", "game": "svangknack", "players": "\n".join(PLAYERS),
            "table_size": "4", "format": "series", "series": "1", "advance": "1", "stake": "3.00"}
    resp = client.post("/tournaments/new", data=data | {field: value})
    assert resp.status_code == 400
    assert 'class="error"' in resp.get_data(as_text=True)
    from referee.models import Tournament, db

    with client.application.app_context():
        assert db.session.query(Tournament).count() == 0  # nothing written


def test_the_players_view_remembers_the_name_and_shows_table_and_seat(client: Any) -> None:
    made = create(client)
    tid = made["id"]
    client.get(f"/v/{made['view_token']}")
    choose = client.get(f"/tournaments/{tid}/me").get_data(as_text=True)
    assert all(f'value="{name}"' in choose for name in PLAYERS)
    table = made["tables"][1]
    who = table["players"][-1]
    assert client.post(f"/tournaments/{tid}/me", data={"player": who}).status_code == 302
    page = client.get(f"/tournaments/{tid}/me").get_data(as_text=True)
    assert f"Table {table['table']} · seat {len(table['players'])}" in page
    assert client.post(f"/tournaments/{tid}/me", data={"player": "Nobody"}).status_code == 400


def test_knockout_the_organiser_sees_who_still_plays(client: Any) -> None:
    made = create(client, game="schwimmen", format="knockout", advance=1, stake="1.00", series=None)
    client.get(f"/e/{made['edit_token']}")
    page = client.get(f"/tournaments/{made['id']}").get_data(as_text=True)
    still = re.search(r'<section id="still-in".*?<p>(.*?)</p>', page, re.S)
    assert still and sorted(still.group(1).split(", ")) == sorted(PLAYERS)  # nobody is out before a table ends
    assert "Knockout" in page and "Out in series" in page


def test_a_table_leaders_match_page_says_which_table_and_series(client: Any) -> None:
    made = create(client)
    table = made["tables"][1]
    client.get(f"/t/{table['table_token']}")
    page = client.get(f"/matches/{table['match']}").get_data(as_text=True)
    where = re.search(r'<p class="table-where" id="table-where">(.*?)</p>', page, re.S)
    assert where is not None
    text = re.sub(r"\s+", " ", where.group(1))
    assert f"Table {table['table']} · series 1" in text and "Klubbkväll" in text
    assert f"/tournaments/{made['id']}" not in where.group(1)  # the leader gets no link to the organiser's page
    sv = client.get(f"/matches/{table['match']}", headers={"Accept-Language": "sv"}).get_data(as_text=True)
    assert f"Bord {table['table']} · serie 1" in sv
    organiser = client.application.test_client()
    organiser.get(f"/e/{made['edit_token']}")
    page = organiser.get(f"/matches/{table['match']}").get_data(as_text=True)
    assert f'href="/tournaments/{made["id"]}">Klubbkväll</a>' in page


def test_an_ordinary_match_page_names_no_table(client: Any) -> None:
    night = client.post("/api/nights", json={"name": "Fredag", "currency": "SEK", "players": PLAYERS[:3]})
    made = night.get_json()
    match = client.post(f"/api/nights/{made['id']}/matches", headers={"Authorization": f"Bearer {made['edit_token']}"},
                        json={"game": "schwimmen", "players": PLAYERS[:3], "dealer": PLAYERS[0], "stake": "1.00"})
    assert match.status_code == 201, match.get_json()
    client.get(f"/e/{made['edit_token']}")
    page = client.get(f"/matches/{match.get_json()['id']}").get_data(as_text=True)
    assert "table-where" not in page


def test_the_form_offers_the_games_options_and_every_table_plays_them(client: Any) -> None:
    """Issue 43.5: a Schwimmen tournament made by the form with 2 lives and Feuer off: every table's match has
    those options (the form once sent ``{}`` and every table played 3 lives with Feuer)."""
    shown = client.post("/tournaments/new", data={"game": "schwimmen", "action": "switch"})
    assert shown.status_code == 200
    page = shown.get_data(as_text=True)
    assert 'name="opt_lives"' in page and 'name="opt_feuer"' in page
    resp = client.post("/tournaments/new", data={
        "name": "Schwimmkväll", "currency": "SEK", "game": "schwimmen", "players": "\n".join(PLAYERS),
        "table_size": "4", "format": "series", "series": "2", "advance": "1", "seed": "abc",
        "options_for": "schwimmen", "opt_lives": "2", "opt_deck": "32", "opt_ties": "all_lose",
        "opt_losers": "lowest", "opt_simultaneous_out": "all_survive"})  # opt_feuer unticked: not sent
    assert resp.status_code == 302, resp.get_data(as_text=True)
    tid = int(resp.headers["Location"].rstrip("/").split("/")[-1])
    from referee.models import Tournament, db

    with client.application.app_context():
        tourn = db.session.get(Tournament, tid)
        matches = [t.match for t in tourn.tables]
        assert len(matches) == 3
        for match in matches:
            assert match.options["lives"] == 2 and match.options["feuer"] is False, match.options
        edit_token = tourn.night.edit_token
    for match_id in (m.id for m in matches):
        state = client.get(f"/api/matches/{match_id}", headers={"Authorization": f"Bearer {edit_token}"}).get_json()
        assert {p["lives"] for p in state["state"]["players"].values()} == {2}, state


@pytest.mark.parametrize("game", ["svangknack", "schwimmen", "kul"])
def test_the_stake_placeholder_is_a_stake_the_game_takes(client: Any, game: str) -> None:
    """Issue 43.5: the form suggested 1.00 for every game, which Svängknack refuses (SK-2); the suggestion, typed
    as it is shown, creates the tournament."""
    page = client.post("/tournaments/new", data={"game": game, "action": "switch"}).get_data(as_text=True)
    placeholder = re.search(r'<input[^>]*name="stake"[^>]*>', page)
    assert placeholder is not None
    suggested = re.search(r'placeholder="([^"]+)"', placeholder.group(0))
    assert suggested is not None
    resp = client.post("/api/tournaments", json={
        "name": "Prov", "currency": "SEK", "game": game, "players": PLAYERS, "table_size": 4,
        "stake": suggested.group(1).replace(",", "."), "seed": "x"})
    assert resp.status_code == 201, (suggested.group(1), resp.get_json())


def test_the_form_names_who_holds_the_pool(client: Any) -> None:
    """Issue 43.4: the pool has a holder, who need not play: the form's leader is the night's leader, the
    settlement page's leader plan goes through them, and the fee is owed from the draw on."""
    resp = client.post("/tournaments/new", data={
        "name": "Formkväll", "currency": "SEK", "game": "svangknack", "players": "\n".join(PLAYERS),
        "table_size": "4", "format": "series", "series": "1", "advance": "1", "stake": "3,00",
        "entry_fee": "20", "prizes": "60, 40", "seed": "abc", "leader": "Olle Organisatör"})
    assert resp.status_code == 302, resp.get_data(as_text=True)
    tid = int(resp.headers["Location"].rstrip("/").split("/")[-1])
    from referee.models import Tournament, db

    with client.application.app_context():
        night = db.session.get(Tournament, tid).night
        night_id, players = night.id, night.player_names
        assert night.leader == "Olle Organisatör" and "Olle Organisatör" not in players
    page = client.get(f"/nights/{night_id}/settlement?plan=leader").get_data(as_text=True)
    assert "Everything through Olle Organisatör" in page
    for name in PLAYERS:  # each player pays the fee to Olle
        assert f"<strong>{name}</strong> → <strong>Olle Organisatör</strong>" in page, name
