"""The group page and the charts on a 390×844 phone, in headless Chromium (issue 14).

A season of six nights is entered through the JSON API; the phone then opens
the group link, the season from a night, a match page and the settlement.
Each page must show its chart inside the screen (no sideways scrolling, the
chart as wide as the content), with no script or CSP error; screenshots are
kept in ``test-artifacts/browser``.
"""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import PHONE, LiveServer, watch
from tests.web.helpers import Api

pytestmark = pytest.mark.browser

PLAYERS = ["Anna", "Bo", "Cia", "Dan", "Eva", "Filip", "Greta", "Hugo"]


def season(client: Any) -> tuple[Api, int]:
    """Six nights of Kul and Svängknack among changing tables; returns the last night and a match of it."""
    token = None
    api = Api(client)
    match_id = 0
    for k in range(6):
        api = Api(client)
        table = PLAYERS[k % 4: k % 4 + 5]  # over the six nights every player plays
        extra = {"group_token": token} if token else {"group": "Fredagsgänget"}
        api.new_night(table, date=(date(2026, 10, 2) + timedelta(days=7 * k)).isoformat(), **extra)
        token = api.night["group_token"]
        kul = api.new_match("kul", table[:4], stake="2.00")["id"]
        for who in (table[k % 4], table[(k + 1) % 4], table[k % 4], table[k % 4]):
            if api.round(kul, {"last_trick": who})[0] != 201:
                break
        sk = api.new_match("svangknack", table, stake="3.00")["id"]
        for r in range(8):
            state = api.match(sk)["state"]
            sv = state["svangare"]
            other = next(p for p in table if p not in (sv, state["dealer"]))
            payload = [{"participants": [sv]}, {"participants": [sv, other], "tricks": {sv: 2, other: 1}},
                       {"participants": [sv, other], "tricks": {sv: 0, other: 3}}][(r + k) % 3]
            assert api.round(sk, payload)[0] == 201
        assert api.call("POST", f"/api/matches/{sk}/close", {"pot": "split"})[0] == 200
        match_id = sk
    return api, match_id


def fits(page: Any, selector: str) -> None:
    """The element is on screen and the page does not scroll sideways."""
    box = page.locator(selector).first.bounding_box()
    assert box is not None and box["width"] > 300 and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]


def test_group_page_and_charts_on_a_phone(live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    client = live_server.app.test_client()
    api, match_id = season(client)
    w = watch(phone, artifacts, "group-")
    base = live_server.url
    phone.goto(f"{base}/groups/{api.night['group_token']}")
    phone.get_by_role("heading", name="Fredagsgänget").wait_for()
    assert phone.locator("#standings-SEK tbody tr").count() == len(PLAYERS)
    assert phone.locator("#season-chart-SEK polyline").count() == len(PLAYERS)
    fits(phone, "#season-chart-SEK")
    w.shot("page")
    phone.locator("#season-chart-SEK").screenshot(path=str(w.shots / "group-season-chart.png"))
    # From a night: the view link, the night page's season link, the match and settlement charts.
    phone.goto(f"{base}/v/{api.night['view_token']}")
    phone.locator("a.season-link").tap()
    phone.get_by_role("heading", name="Fredagsgänget").wait_for()
    assert api.night["group_token"] not in phone.content()  # a guest never sees the group's code
    phone.goto(f"{base}/matches/{match_id}")
    phone.locator("#balance-chart").wait_for()
    fits(phone, "#balance-chart")
    phone.locator("#balance-chart-box").screenshot(path=str(w.shots / "group-match-chart.png"))
    phone.goto(f"{base}/nights/{api.night['id']}/settlement")
    phone.locator("#result-chart").wait_for()
    fits(phone, "#result-chart")
    phone.locator("#result-chart-box").screenshot(path=str(w.shots / "group-settlement-chart.png"))
    assert not w.problems, w.problems
