"""A revoked table link ends every right it gave the phone (issue 45.3), and a table token is told what it may do.

A table leader's phone opened ``/t/<token>``: it may write to its table's
match and read the night. When the organiser revokes that table (a new token)
or the whole night, the phone may do neither any more, on the pages (the
session's grant) as in the API (the old token as a bearer or ``?view=``); a
phone that also opened the night's view link keeps reading through that link.
"""

from __future__ import annotations

from typing import Any

from tests.tournament.helpers import bearer, create

SIX = ["Anna", "Bo", "Cia", "Dan", "Eva", "Filip"]


def _pages(made: dict[str, Any], table: dict[str, Any]) -> list[str]:
    night, other = made["night"], made["tables"][1]["match"]
    return [f"/matches/{table['match']}", f"/nights/{night}/settlement", f"/nights/{night}", f"/matches/{other}",
            f"/nights/{night}/settlement.pdf"]


def _api(made: dict[str, Any], table: dict[str, Any]) -> list[str]:
    night = made["night"]
    return [f"/api/matches/{table['match']}", f"/api/nights/{night}/settlement", f"/api/nights/{night}",
            f"/api/tournaments/{made['id']}"]


def test_a_revoked_table_link_no_longer_reads_pages_or_api(app: Any) -> None:
    organiser, phone, guest = app.test_client(), app.test_client(), app.test_client()
    made = create(organiser, game="svangknack", players=SIX, table_size=3, stake="3.00")
    mine = made["tables"][0]
    old = mine["table_token"]
    assert phone.get(f"/t/{old}").status_code == 302
    assert guest.get(f"/t/{old}").status_code == 302 and guest.get(f"/v/{made['view_token']}").status_code == 302
    for path in _pages(made, mine):
        assert phone.get(path).status_code == 200, path
    for path in _api(made, mine):
        assert organiser.get(path, headers=bearer(old)).status_code == 200, path

    resp = organiser.post(f"/api/tournaments/{made['id']}/tables/1/revoke", headers=bearer(made["edit_token"]))
    assert resp.status_code == 200
    for path in _pages(made, mine):
        page = phone.get(path)
        assert page.status_code == 403, (path, page.status_code)
        assert page.headers.get("X-Referee-Right", "none") == "none", path
    for path in _api(made, mine):
        assert organiser.get(path, headers=bearer(old)).status_code == 403, path
    assert organiser.get(f"/api/nights/{made['night']}?view={old}").status_code == 403
    # a phone that also opened the night's view link reads through that link, and writes nothing
    for path in _pages(made, mine):
        assert guest.get(path).status_code == 200, path
    assert guest.get(f"/matches/{mine['match']}").headers["X-Referee-Right"] == "view"
    # the new token's phone leads the table
    fresh = app.test_client()
    assert fresh.get(f"/t/{resp.get_json()['table_token']}").status_code == 302
    assert fresh.get(f"/matches/{mine['match']}").headers["X-Referee-Right"] == "edit"


def test_the_nights_revoke_ends_the_table_links_reading_too(app: Any) -> None:
    organiser, phone = app.test_client(), app.test_client()
    made = create(organiser, game="svangknack", players=SIX, table_size=3, stake="3.00")
    second = made["tables"][1]
    assert phone.get(f"/t/{second['table_token']}").status_code == 302
    assert phone.get(f"/nights/{made['night']}/settlement").status_code == 200
    assert organiser.post(f"/api/nights/{made['night']}/revoke",
                          headers=bearer(made["edit_token"])).status_code == 200
    for path in _pages(made, second):
        assert phone.get(path).status_code == 403, path
    for path in _api(made, second):
        assert organiser.get(path, headers=bearer(second["table_token"])).status_code == 403, path


def test_a_table_tokens_refusal_says_what_a_table_link_may_do(app: Any) -> None:
    organiser, phone = app.test_client(), app.test_client()
    made = create(organiser, game="svangknack", players=SIX, table_size=3, stake="3.00")
    mine, other = made["tables"]
    tok = bearer(mine["table_token"])
    for path, body in ((f"/api/matches/{other['match']}/close", {}),
                       (f"/api/nights/{made['night']}/players", {"name": "Jon"})):
        resp = organiser.post(path, headers=tok, json=body)
        assert resp.status_code == 403, path
        message = resp.get_json()["error"]
        assert "own table only" in message and "view token" not in message, message
    view = organiser.post(f"/api/matches/{mine['match']}/close", headers=bearer(made["view_token"]), json={})
    assert view.status_code == 403 and "view token can only read" in view.get_json()["error"]
    assert phone.get(f"/t/{mine['table_token']}").status_code == 302
    for lang, words in (("en", "leads one tournament table"), ("sv", "leder ett bord"),
                        ("de", "leitet einen Turniertisch")):
        phone.get(f"/lang/{lang}")
        page = phone.post(f"/matches/{other['match']}/close", data={"pot": "split", "confirm": "1"})
        assert page.status_code == 403 and words in page.get_data(as_text=True), lang
