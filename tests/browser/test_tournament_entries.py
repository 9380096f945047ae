"""The organiser's phone (390×844) adds a late player in one tap and withdraws a player in two (issue 43.2).

Screenshots go to ``test-artifacts/browser/tournament-entries-*.png``; axe runs on each page, and the page's
targets and axe in sv, de and en (:func:`every_language`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import LiveServer, watch
from tests.browser.polish import assert_axe, every_language
from tests.browser.test_tournament import call

pytestmark = pytest.mark.browser


def test_the_organiser_adds_a_late_player_and_withdraws_one(live_server: LiveServer, phone: Any,
                                                            artifacts: Path) -> None:
    base = live_server.url
    status, made = call(base, "POST", "/api/tournaments", {
        "name": "Klubbkväll", "currency": "SEK", "game": "kul", "players": ["Anna", "Bo", "Cia", "Dan", "Eva", "Filip"],
        "table_size": 3, "series": 3, "stake": "1.00", "seed": "entries"})
    assert status == 201, made
    org = watch(phone, artifacts, "tournament-entries-")
    page = org.page
    page.goto(f"{base}/e/{made['edit_token']}")
    page.goto(f"{base}/tournaments/{made['id']}#entries")
    page.get_by_label("Late player (plays from series 2 on)").fill("Lea")
    page.get_by_role("button", name="Add", exact=True).tap()  # one field and one tap
    page.locator(".flash.ok", has_text="Lea plays from series 2 on.").wait_for()
    assert page.locator('.entrants li[data-player="Lea"]', has_text="came late, from series 2").is_visible()
    assert_axe(page, "organiser's page with a late player")
    org.shot("late")
    page.get_by_role("button", name="Withdraw Anna").tap()  # the first tap: the confirm step
    page.get_by_role("heading", name="Withdraw Anna?").wait_for()
    assert_axe(page, "withdraw confirm")
    org.shot("confirm")
    page.locator("#confirm-withdraw").tap()  # the second
    page.locator(".flash.ok", has_text="Anna has withdrawn").wait_for()
    assert page.locator('.entrants li[data-player="Anna"]', has_text="left in series 1").is_visible()
    assert page.get_by_role("button", name="Withdraw Anna").count() == 0
    status, view = call(base, "GET", f"/api/tournaments/{made['id']}", token=made["edit_token"])
    assert {"player": "Anna", "joined_series": 1, "left_series": 1} in view["players"]
    org.shot("withdrawn")
    every_language(page, base, [f"/tournaments/{made['id']}"])
    assert not org.problems, org.problems
