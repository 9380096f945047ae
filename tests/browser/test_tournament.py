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
from itertools import pairwise
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
    # The refused page stands for the organiser's page: the address bar names it (not the POST-only /next), and
    # the tables' last rounds come to it live as to the page itself (not the night's page, the night of /next).
    assert page.url == f"{base}/tournaments/{tid}"
    close_all(base, token, matches)
    page.locator(".tourn-table .state", has_text="finished").nth(2).wait_for()
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
    pages = page.locator(".hall-tables[data-page]").count()
    assert pages == 3  # more than 16 tables take turns on pages (referee/pages/hall.py split())
    for shown in range(pages):  # each page as static/js/hall.js shows it in its turn
        page.evaluate("""n => document.querySelectorAll('.hall-tables[data-page]')
            .forEach((s, i) => { s.hidden = i !== n; })""", shown)
        size = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
        assert size[0] <= 1920 and size[1] <= 1080, size  # no scrolling on the projector
        boxes = page.evaluate("""() => [...document.querySelectorAll('.hall-tables:not([hidden]) .hall-table')]
            .map(e => e.getBoundingClientRect()).map(r => [r.right, r.bottom])""")
        assert boxes and all(right <= 1920 and bottom <= 1080 for right, bottom in boxes), boxes
    names = page.locator(".hall-table li")
    assert names.count() == 200
    font = page.evaluate("() => parseFloat(getComputedStyle(document.querySelector('.hall-table li')).fontSize)")
    assert font >= 20, font  # readable from the back of the room
    assert page.locator(".hall-qr svg").is_visible()
    assert_axe(page, "hall display")
    for code in ("sv", "de", "en"):  # the players' code and its words, whole inside the standings' panel
        page.goto(f"{base}/lang/{code}?next=/tournaments/{made['id']}/hall")
        page.wait_for_url(f"**/tournaments/{made['id']}/hall")
        out = page.evaluate("""() => {
            const panel = document.querySelector('.hall-standings').getBoundingClientRect();
            return ['.hall-qr .qr', '.hall-qr p'].map(sel => {
                const box = document.querySelector(sel), r = box.getBoundingClientRect();
                const over = [r.right - panel.right, r.bottom - panel.bottom, box.scrollWidth - box.clientWidth];
                return [sel, Math.max(0, ...over)];
            }).filter(([, over]) => over > 0.5);
        }""")
        assert not out, (code, out)
    page.wait_for_function("() => performance.getEntriesByType('resource').some(e => e.name.indexOf('/live') > 0)")
    hall.shot("before", full=False)
    first = made["tables"][0]
    who = lone_round(base, first, first["table_token"])
    page.wait_for_function("name => document.querySelector('.hall-standings th').textContent.trim() === name", arg=who)
    top = page.locator(".hall-standings tr").first.locator("td.num").inner_text()
    assert top.replace("\u00a0", " ").startswith("SEK"), top
    hall.shot("after-round", full=False)
    # Eight tables enter a round each at once: the hall shows every one of them.
    for table in made["tables"][1:9]:
        lone_round(base, table, table["table_token"])
    page.wait_for_function("() => document.querySelectorAll('.hall-standings td.num.pos').length >= 9")
    # A page following the whole night fetches itself at most once a second (static/js/live.js GAP): six more
    # changes 100 ms apart are not six fetches back to back, and the last of them is still fetched.
    last = page.evaluate("""() => new Promise(done => {
        let n = 0;
        const tick = setInterval(() => {
            const at = performance.now();
            document.dispatchEvent(new Event('live:refresh'));
            if (++n === 6) { clearInterval(tick); done(at); }
        }, 100);
    })""")
    starts = """() => performance.getEntriesByType('resource')
        .filter(e => e.initiatorType === 'fetch' && e.name.indexOf('/hall') > 0).map(e => e.startTime)"""
    page.wait_for_function(f"last => ({starts})().some(t => t >= last)", arg=last)
    seen = page.evaluate(starts)
    gaps = [b - a for a, b in pairwise(seen)]
    assert len(seen) >= 3 and min(gaps) >= 950, seen  # the first round's fetch, the burst's, the last change's
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
    assert "You pay" in page.locator("#my-money").inner_text()  # the entry fee, owed from the start (issue 43.4)
    player.shot("standing", full=False)
    close_all(base, made["edit_token"], [t["match"] for t in made["tables"]])
    status, body = call(base, "POST", f"/api/tournaments/{made['id']}/next", {}, made["edit_token"])
    assert status == 200 and body["finished"], body
    page.locator("#my-standing").get_by_text("Prize").wait_for()  # the page follows the finish
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


def _alive(base: str, match: int, token: str) -> tuple[bool, list[str], list[str]]:
    """(finished, seats still in, the match's seats) of a Schwimmen table, as the API states it."""
    status, body = call(base, "GET", f"/api/matches/{match}", token=token)
    assert status == 200, body
    seats = list(body["players"])
    state = body["state"]
    return bool(state["finished"]), [p for p in seats if not state["players"][p]["out"]], seats


def _play_by_api(base: str, match: int, token: str) -> None:
    """Another table's leader plays their Schwimmen table to its winner (the last seat in loses each game)."""
    for _game in range(60):
        finished, alive, _seats = _alive(base, match, token)
        if finished:
            return
        status, body = call(base, "POST", f"/api/matches/{match}/rounds",
                            {"ended_by": "knock", "by": alive[0], "losers": [alive[-1]]}, token)
        assert status == 201, body
    raise AssertionError("the table did not finish")


def _play_by_page(leader: Any, base: str, link: str, table: int, series: int) -> str:
    """A table leader opens the table link and taps every game on the match page until a winner; returns who."""
    page = leader.page
    page.goto(link)
    page.wait_for_url("**/matches/*")
    match = int(page.url.rstrip("/").split("/")[-1])
    token = link.rstrip("/").split("/")[-1]
    where = page.locator("#table-where")
    assert " ".join(where.inner_text().split()).startswith(f"Table {table} · series {series} Knockkväll")
    assert where.locator("a").count() == 0  # no way into the organiser's page from a table link
    leader.shot(f"series-{series}-start", full=False)
    for seq in range(1, 60):
        finished, alive, _seats = _alive(base, match, token)
        if finished:
            break
        page.locator("#round-form label.pick", has=page.locator(f'input[name="by"][value="{alive[0]}"]')).tap()
        page.locator("#round-form .sw-panel-losers label.toggle", has_text=alive[-1]).tap()
        page.locator("#save-round").tap()
        page.locator(".flash.ok", has_text=f"Game {seq} saved").wait_for()  # (Schwimmen plays games)
    winner = page.locator("#winner-name").inner_text()
    leader.shot(f"series-{series}-winner", full=False)
    return winner


def test_a_knockout_to_its_champion_through_the_pages(live_server: LiveServer, browser: Any,
                                                       artifacts: Path) -> None:
    """Nine players, tables of three, Schwimmen knockout: three tables, then the final table, then the champion.

    Through the pages: the organiser's form and "next series"/"finish" taps, one table's leader (own
    browser context, opened by its table link) tapping every game of table 1 in both series, the hall
    display and the champion's own view. The other two tables of series 1 are played through the JSON
    API with their own table tokens (as their leaders' phones would), to keep the test short.
    """
    base = live_server.url
    org = watch(context(browser, PHONE, mobile=True), artifacts, "tournament-knockout-organiser-")
    page = org.page
    page.goto(base + "/tournaments/new")
    page.get_by_label("Name of the tournament").fill("Knockkväll")
    page.get_by_label("Game").select_option("schwimmen")
    page.get_by_label("Players, one per line").fill("\n".join(PLAYERS))
    page.get_by_label("Most players at one table").fill("3")
    page.get_by_label("Format").select_option("knockout")
    page.get_by_label("Stake").fill("1.00")
    page.get_by_label("Entry fee").fill("10.00")
    page.get_by_label("Prizes in percent, best place first (e.g. 50, 30, 20)").fill("60, 40")
    page.get_by_role("button", name="Draw the tables").tap()
    page.get_by_role("heading", name="Knockkväll").wait_for()
    tid = int(page.url.rstrip("/").split("/")[-1])

    def links() -> dict[int, str]:
        return {int(t.get_attribute("data-table")): t.locator("input.copy").input_value()
                for t in page.locator(".tourn-table").all()}

    first = links()
    assert sorted(first) == [1, 2, 3]
    leader = watch(context(browser, PHONE, mobile=True), artifacts, "tournament-knockout-leader-")
    winners = {_play_by_page(leader, base, first[1], 1, 1)}
    for number in (2, 3):
        token = first[number].rstrip("/").split("/")[-1]
        status, tview = call(base, "GET", f"/api/tournaments/{tid}", token=token)
        assert status == 200, tview
        match = next(t["match"] for t in tview["tables"] if t["table"] == number)
        _play_by_api(base, match, token)
        status, body = call(base, "GET", f"/api/matches/{match}", token=token)
        assert status == 200, body
        winners.add(body["state"]["winner"])

    page.reload()
    page.get_by_role("button", name="Next series").tap()
    page.locator(".flash.ok", has_text="Series 2 is drawn").wait_for()
    final = links()
    assert list(final) == [1]
    seated = page.locator(".tourn-table .tt-seats li").all_inner_texts()
    assert sorted(seated) == sorted(winners)  # each table's winner goes on
    org.shot("final-drawn", full=False)
    champion = _play_by_page(leader, base, final[1], 1, 2)
    assert champion in winners

    page.reload()
    page.get_by_role("button", name="Finish the tournament").tap()
    page.locator("#finished").wait_for()
    org.shot("finished", full=False)
    players_url = page.locator('input.copy[aria-label="Players’ link"]').input_value()

    hall = watch(context(browser, {"width": 1920, "height": 1080}, mobile=False), artifacts,
                 "tournament-knockout-hall-")
    hall.page.goto(players_url.replace("/me", "/hall"))
    hall.page.wait_for_url(f"**/tournaments/{tid}/hall")
    assert hall.page.locator("#champion").inner_text() == f"★ Champion: {champion}"
    assert hall.page.locator(".hall-standings th").first.inner_text() == champion
    assert_axe(hall.page, "hall display, champion")
    hall.shot("champion", full=False)

    me = watch(context(browser, PHONE, mobile=True), artifacts, "tournament-knockout-player-")
    me.page.goto(players_url)
    me.page.get_by_role("button", name=champion, exact=True).tap()
    me.page.locator("#champion").wait_for()
    assert me.page.locator("#champion").inner_text() == "★ You are the champion!"
    assert "Place 1 of 9" in me.page.locator("#my-standing").inner_text()
    assert "You receive" in me.page.locator("#my-money").inner_text()
    assert_axe(me.page, "player's view, champion")
    me.shot("champion", full=False)
    for watched in (org, leader, hall, me):
        assert not watched.problems, watched.problems
