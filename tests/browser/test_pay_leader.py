"""Paying a night through the leader on a 390×844 phone until it says Settled (issue 26.1, 26.6, 26.7).

The leader (Jürgen Öst, who does not play) taps **Paid** on each transfer of
"Everything through the leader"; the night ends Settled, and the night page
links every match's score protocol.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import PHONE, LiveServer, watch
from tests.browser.test_live import post

pytestmark = pytest.mark.browser

SEATS = ["Åsa", "Björn", "Cia", "Dan"]


def test_leader_plan_tapped_paid_until_settled(live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    base, page = live_server.url, phone
    night = post(base, "/api/nights", {"name": "Kul på Öland", "currency": "SEK", "players": SEATS,
                                       "leader": "Jürgen Öst"})
    match = post(base, f"/api/nights/{night['id']}/matches", {"game": "kul", "players": SEATS, "stake": "2.00"},
                 night["edit_token"])
    for _ in range(3):
        post(base, f"/api/matches/{match['id']}/rounds", {"last_trick": "Cia"}, night["edit_token"])
    watched = watch(page, artifacts, "pay-leader-")
    page.goto(f"{base}/e/{night['edit_token']}")
    page.goto(f"{base}/nights/{night['id']}")
    assert page.locator(f'a.protocol-link[href="/matches/{match["id"]}/protocol.pdf"]').is_visible()
    page.goto(f"{base}/nights/{night['id']}/settlement?plan=leader")
    assert page.locator("li.transfer").count() == 4  # three pay in, Jürgen pays Cia out
    assert page.get_by_text("Jürgen Öst collects for the others").first.is_visible()
    for paid in range(4):
        button = page.locator("li.transfer").first.get_by_role("button", name="Paid")
        box = button.bounding_box()
        assert box is not None and box["x"] + box["width"] <= PHONE["width"]
        with page.expect_navigation():
            button.tap()
        page.get_by_text("Payment recorded.").wait_for()
        assert "plan=leader" in page.url
        assert page.locator("li.transfer").count() == 3 - paid
    page.locator("#settled").wait_for()
    assert page.locator("#settled").inner_text() == "Settled: everybody has paid."
    watched.shot("settled")
    assert not watched.problems, watched.problems


def test_a_night_without_a_leader_offers_no_leader_plan(live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    """Issue 43.4: the leader plan is never routed through whoever was listed first. Without a leader the page
    names no one to go through, and ``?plan=leader`` shows the fewest payments and says why."""
    base, page = live_server.url, phone
    night = post(base, "/api/nights", {"name": "Kul utan ledare", "currency": "SEK", "players": SEATS})
    match = post(base, f"/api/nights/{night['id']}/matches", {"game": "kul", "players": SEATS, "stake": "2.00"},
                 night["edit_token"])
    post(base, f"/api/matches/{match['id']}/rounds", {"last_trick": "Cia"}, night["edit_token"])
    watched = watch(page, artifacts, "no-leader-")
    page.goto(f"{base}/e/{night['edit_token']}")
    page.goto(f"{base}/nights/{night['id']}/settlement")
    assert page.locator("a[href*='plan=leader']").count() == 0
    assert page.locator(".plan-switch .no-leader").is_visible()
    fewest = page.locator("li.transfer").all_inner_texts()
    page.goto(f"{base}/nights/{night['id']}/settlement?plan=leader")
    assert page.locator(".no-leader-plan").is_visible()
    assert page.locator("li.transfer").all_inner_texts() == fewest  # the fewest payments, not all through Åsa
    assert fewest and not all("Åsa" in text.split("\n")[0] for text in fewest)
    button = page.locator("li.transfer").first.get_by_role("button", name="Paid")
    with page.expect_navigation():
        button.tap()
    assert "plan=leader" not in page.url
    watched.shot("no-leader")
    assert not watched.problems, watched.problems
