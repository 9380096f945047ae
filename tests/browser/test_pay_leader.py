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
