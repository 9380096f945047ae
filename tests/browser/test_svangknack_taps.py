"""The Svängknack round form on a 390×844 phone (issue 26.8): a mistap can be cleared, a 0 is played.

Tapping the chosen trick count again clears it; tapping 0 marks the player
as having knocked, so the round is saved with that player bet (SK-9) rather
than refused with an SK-7 message.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import LiveServer, watch
from tests.browser.test_live import post

pytestmark = pytest.mark.browser

SEATS = ["Åsa", "Björn", "Jürgen", "Dan"]


def test_tap_again_clears_and_zero_is_played(live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    base, page = live_server.url, phone
    night = post(base, "/api/nights", {"name": "Svängknack på Öland", "currency": "SEK", "players": SEATS})
    match = post(base, f"/api/nights/{night['id']}/matches",
                 {"game": "svangknack", "players": SEATS, "dealer": "Åsa", "stake": "3.00"}, night["edit_token"])
    watched = watch(page, artifacts, "svangknack-taps-")
    page.goto(f"{base}/e/{night['edit_token']}")
    page.goto(f"{base}/matches/{match['id']}")

    def row(name: str) -> Any:
        return page.locator(f'#round-form tr[data-name="{name}"]')

    def count(name: str, n: int) -> Any:
        return row(name).locator(f'input[name^="tricks_"][value="{n}"]')

    def tap(name: str, n: int) -> None:
        row(name).locator("label.pick").nth(n).tap()

    # A mistap: Jürgen 2, then 2 again clears it (and the knock it set stays for the leader to untap).
    tap("Jürgen", 2)
    assert count("Jürgen", 2).is_checked() and row("Jürgen").locator('input[name^="knock_"]').is_checked()
    tap("Jürgen", 2)
    assert row("Jürgen").locator('input[name^="tricks_"]:checked').count() == 0
    row("Jürgen").locator("label.toggle").tap()  # Jürgen did not knock after all
    assert not row("Jürgen").locator('input[name^="knock_"]').is_checked()
    # Another count after a clear is taken as usual; a third tap on it clears it again.
    tap("Jürgen", 1)
    tap("Jürgen", 1)
    assert row("Jürgen").locator('input[name^="tricks_"]:checked').count() == 0
    row("Jürgen").locator("label.toggle").tap()
    assert not row("Jürgen").locator('input[name^="knock_"]').is_checked()

    # Dan played and took nothing: 0 marks him as knocked. Björn (svängare) takes all three.
    tap("Dan", 0)
    assert count("Dan", 0).is_checked() and row("Dan").locator('input[name^="knock_"]').is_checked()
    tap("Björn", 3)
    watched.shot("tapped", full=False)
    page.locator("#save-round").tap()
    page.locator(".flash.ok", has_text="Round 1 saved").wait_for()  # not an SK-7 refusal
    req = urllib.request.Request(f"{base}/api/matches/{match['id']}",
                                 headers={"Authorization": f"Bearer {night['edit_token']}"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        body = json.loads(resp.read())
    balances = body["state"]["balances"]
    assert balances["Dan"] == "-15.00" and balances["Björn"] == "6.00", balances  # Dan bet (SK-9)
    watched.shot("saved")
    assert not watched.problems, watched.problems
