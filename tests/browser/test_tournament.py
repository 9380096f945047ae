"""A club evening in the browser (issue 30): the organiser's phone, a table leader's phone, the hall display
on a projector (1920×1080) and a player's own phone (390×844), each as its user sees it.

Screenshots go to ``test-artifacts/browser/tournament-*.png``; axe runs on
every page at 0 violations. Writes the pages do not make (the other tables'
rounds, closing every table) go through the JSON API with the organiser's
or the table's own token, as other phones would.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import PHONE, LiveServer, watch
from tests.browser.polish import assert_axe, every_language

pytestmark = pytest.mark.browser

PLAYERS = ["Anna", "Bo", "Cia", "Dan", "Eva", "Filip", "Greta", "Hugo", "Ida"]


def call(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
    req = urllib.request.Request(base + path, data=json.dumps(body).encode() if body is not None else None,
                                 method=method, headers={"Content-Type": "application/json",
                                                         **({"Authorization": f"Bearer {token}"} if token else {})})
    try:
        with urllib.request.urlopen(req, timeout=20) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def tournament(base: str, players: list[str], table_size: int, **extra: Any) -> dict[str, Any]:
    status, made = call(base, "POST", "/api/tournaments", {
        "name": "Klubbkväll", "currency": "SEK", "game": "svangknack", "players": players,
        "table_size": table_size, "series": 2, "stake": "3.00", "entry_fee": "20.00", "prizes": [50, 30, 20],
        "seed": "hall"} | extra)
    assert status == 201, made
    return dict(made)


def close_all(base: str, token: str, matches: list[int]) -> None:
    for match in matches:
        status, body = call(base, "POST", f"/api/matches/{match}/close", {"pot": "split"}, token)
        assert status == 200, body


def lone_round(base: str, table: dict[str, Any], token: str) -> str:
    """The table's svängare (the seat after the dealer) plays alone and takes the pot; returns who."""
    svangare = table["players"][1]
    status, body = call(base, "POST", f"/api/matches/{table['match']}/rounds",
                        {"svangare": svangare, "participants": [svangare]}, token)
    assert status == 201, body
    return str(svangare)


def context(browser: Any, viewport: dict[str, int], mobile: bool) -> Any:
    ctx = browser.new_context(viewport=viewport, device_scale_factor=1 if not mobile else 2, is_mobile=mobile,
                              has_touch=mobile, locale="en-US")
    ctx.set_default_timeout(15_000)
    return ctx.new_page()


def test_the_organiser_creates_sees_the_tables_and_draws_the_next_series(live_server: LiveServer, phone: Any,
                                                                          artifacts: Path) -> None:
    base = live_server.url
    org = watch(phone, artifacts, "tournament-organiser-")
    page = org.page
    page.goto(base + "/")
    page.get_by_role("link", name="New tournament (several tables)").tap()
    page.get_by_label("Name of the tournament").fill("Klubbkväll")
    page.get_by_label("Players, one per line").fill("\n".join(PLAYERS))
    page.get_by_label("Most players at one table").fill("4")
    page.get_by_label("Number of series").fill("2")
    page.get_by_label("Stake").fill("3.00")
    page.get_by_label("Entry fee").fill("20.00")
    page.get_by_label("Prizes in percent, best place first (e.g. 50, 30, 20)").fill("50, 30, 20")
    assert_axe(page, "new tournament")
    org.shot("new")
    page.get_by_role("button", name="Draw the tables").tap()
    page.get_by_role("heading", name="Klubbkväll").wait_for()
    tables = page.locator(".tourn-table")
    assert tables.count() == 3  # 9 players, at most 4 a table: three tables of three
    seated = sorted(n for i in range(3) for n in tables.nth(i).locator(".tt-seats li").all_inner_texts())
    assert seated == sorted(PLAYERS)
    assert page.locator(".tourn-table .state", has_text="playing").count() == 3
    page.locator(".tourn-table").first.locator("summary").tap()  # the table leader's link and its code
    assert "/t/" in page.locator(".tourn-table").first.locator("input.copy").input_value()
    assert page.locator(".tourn-table").first.locator(".qr svg").is_visible()
    assert_axe(page, "organiser's page")
    org.shot("tables")

    page.get_by_role("button", name="Next series").tap()
    refused = page.locator(".flash.error")
    refused.wait_for()
    assert "still playing: 1, 2, 3" in refused.inner_text()
    assert [p for p in org.problems if "status of 409" in p and "/next" in p]  # the refusal's own status
    org.problems.clear()
    assert page.locator(".tourn-table.playing").count() == 3
    org.shot("next-refused")

    from referee.models import Tournament, db

    with live_server.app.app_context():
        tourn = db.session.query(Tournament).one()
        tid = tourn.id
        token, matches = tourn.night.edit_token, [t.match_id for t in tourn.tables]
    close_all(base, token, matches)
    page.goto(f"{base}/tournaments/{tid}")
    assert page.locator(".tourn-table .state", has_text="finished").count() == 3
    page.get_by_role("button", name="Next series").tap()
    page.locator(".flash.ok", has_text="Series 2 is drawn").wait_for()
    assert page.locator(".tourn-table .state", has_text="playing").count() == 3
    assert page.get_by_role("button", name="Finish the tournament").is_visible()
    assert_axe(page, "organiser's page, series 2")
    org.shot("series-2")
    every_language(page, base, [f"/tournaments/{tid}", "/tournaments/new"])
    assert not org.problems, org.problems


def test_a_table_leader_enters_a_round_by_the_table_link(live_server: LiveServer, phone: Any,
                                                          artifacts: Path) -> None:
    base = live_server.url
    made = tournament(base, PLAYERS, 4)
    mine, other = made["tables"][0], made["tables"][1]
    leader = watch(phone, artifacts, "tournament-table-leader-")
    page = leader.page
    page.goto(f"{base}/t/{mine['table_token']}")
    page.wait_for_url(f"**/matches/{mine['match']}")
    assert page.locator("#round-form").count() == 1
    # Nothing night-wide: no new match, no night's edit link, no table display code to hand out.
    assert page.locator(f'a[href$="/nights/{made["night"]}/matches/new"]').count() == 0
    assert made["edit_token"] not in page.content()
    assert_axe(page, "table leader's match page")
    leader.shot("before")
    page.locator("#save-round").tap()
    page.locator(".flash.ok", has_text="Round 1 saved").wait_for()
    assert page.locator(".history li").count() >= 1
    assert page.locator(".void-link").count() >= 1  # this table's rounds can be voided here
    leader.shot("after-round", full=False)
    # Another table's page: readable, but no round form.
    page.goto(f"{base}/matches/{other['match']}")
    assert page.locator("#round-form").count() == 0
    assert page.locator(".void-link").count() == 0
    assert not leader.problems, leader.problems


def test_the_hall_display_fits_40_tables_of_5_and_follows_a_round_live(live_server: LiveServer, browser: Any,
                                                                        artifacts: Path) -> None:
    base = live_server.url
    players = [f"Spelare {n:03d}" for n in range(1, 201)]
    made = tournament(base, players, 5)
    assert len(made["tables"]) == 40
    hall = watch(context(browser, {"width": 1920, "height": 1080}, mobile=False), artifacts, "tournament-hall-")
    page = hall.page
    page.goto(f"{base}/v/{made['view_token']}?next=/tournaments/{made['id']}/hall")
    page.wait_for_url(f"**/tournaments/{made['id']}/hall")
    assert page.locator(".hall-table").count() == 40
    size = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    assert size[0] <= 1920 and size[1] <= 1080, size  # no scrolling on the projector
    last = page.locator(".hall-table").nth(39).bounding_box()
    assert last["y"] + last["height"] <= 1080 and last["x"] + last["width"] <= 1920
    names = page.locator(".hall-table li")
    assert names.count() == 200
    font = page.evaluate("() => parseFloat(getComputedStyle(document.querySelector('.hall-table li')).fontSize)")
    assert font >= 20, font  # readable from the back of the room
    assert page.locator(".hall-qr svg").is_visible()
    assert_axe(page, "hall display")
    page.wait_for_function("() => performance.getEntriesByType('resource').some(e => e.name.indexOf('/live') > 0)")
    hall.shot("before", full=False)
    first = made["tables"][0]
    who = lone_round(base, first, first["table_token"])
    page.wait_for_function("name => document.querySelector('.hall-standings th').textContent.trim() === name", arg=who)
    top = page.locator(".hall-standings tr").first.locator("td.num").inner_text()
    assert top.replace("\u00a0", " ").startswith("SEK"), top
    hall.shot("after-round", full=False)
    assert not hall.problems, hall.problems


def test_a_players_own_view_on_the_phone(live_server: LiveServer, browser: Any, artifacts: Path) -> None:
    base = live_server.url
    made = tournament(base, PLAYERS, 4, series=1)
    table = made["tables"][2]
    me = table["players"][1]  # the svängare of the round below
    player = watch(context(browser, PHONE, mobile=True), artifacts, "tournament-player-")
    page = player.page
    page.goto(f"{base}/v/{made['view_token']}?next=/tournaments/{made['id']}/me")
    page.get_by_role("heading", name="Who are you?").wait_for()
    assert_axe(page, "player's view: choose")
    player.shot("choose", full=False)
    page.get_by_role("button", name=me, exact=True).tap()
    page.locator("#my-table").wait_for()
    assert f"Table {table['table']} · seat 2" in page.locator("#my-table").inner_text()
    assert_axe(page, "player's view")
    page.wait_for_function("() => performance.getEntriesByType('resource').some(e => e.name.indexOf('/live') > 0)")
    lone_round(base, table, table["table_token"])
    # Before the round all nine share place 1 at -3.00 (each ante in a pot); after it the svängare is ahead,
    # alone in place 1, with their balance of the table's match (as the API states it).
    page.wait_for_function("() => !!document.querySelector('#my-standing p.pos')")
    status, state = call(base, "GET", f"/api/matches/{table['match']}", token=made["view_token"])
    assert status == 200, state
    balance = state["state"]["balances"][me]
    standing = page.locator("#my-standing").inner_text().replace("\u00a0", " ")
    assert "Place 1 of 9" in standing and f"SEK {balance}" in standing, (standing, balance)
    player.shot("standing", full=False)
    close_all(base, made["edit_token"], [t["match"] for t in made["tables"]])
    status, body = call(base, "POST", f"/api/tournaments/{made['id']}/next", {}, made["edit_token"])
    assert status == 200 and body["finished"], body
    page.locator("#my-money").wait_for()
    money = page.locator("#my-money").inner_text()
    assert "You receive" in money or "You pay" in money, money
    assert "Prize" in page.locator("#my-standing").inner_text()
    assert_axe(page, "player's view, finished")
    player.shot("finished", full=False)
    # Remembered on this phone: the view opens on the name again.
    page.goto(f"{base}/tournaments/{made['id']}/me")
    assert page.locator("#me h2").inner_text() == me
    every_language(page, base, [f"/tournaments/{made['id']}/me"])  # axe and thumb-sized targets in sv, de, en
    assert not player.problems, player.problems
