"""One thumb at a noisy table (issue 19): Schloapfer on a night of 8 players, on a 390×844 phone.

Schloapfer is for at most 6 players (SL-1), so two of the eight sit out (the
seat checkboxes are measured too). After every step of a deal (each typed
count, each "passed") the save button is inside the viewport; every
interactive element is at least 44×44 CSS px; an eye sum over 152 (SL-13)
marks exactly the rows that were counted; axe-core finds nothing on the new
match, match, void and closed pages in English, Swedish and German.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import LiveServer, new_night, watch
from tests.browser.polish import (
    PLAYERS,
    assert_axe,
    assert_targets,
    close_and_check,
    every_language,
    save_in_view,
    start_match,
    visit_void_page,
)

pytestmark = pytest.mark.browser

def enter(page: Any, entries: dict[str, Any]) -> None:
    """Type each count or tap "passed", checking the save button after every step."""
    for name, value in entries.items():
        row = page.locator(f'#round-form tr[data-name="{name}"]')
        if value == "pass":
            row.locator("label.toggle").tap()
        else:
            row.locator("input.sl-eyes-in").fill(str(value))
        save_in_view(page, "#save-round")


def test_schloapfer_six_of_eight_one_thumb(live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    page, base = phone, live_server.url
    watched = watch(page, artifacts, "thumb-schloapfer-")
    shot = lambda name: page.screenshot(path=str(artifacts / f"after-schloapfer-{name}.png"))  # noqa: E731
    night_url = new_night(page, base, "Schloapfer på åtta", PLAYERS, currency="SEK")
    match_path, new_path = start_match(page, base, night_url, "schloapfer", sit_out=("Gustav", "Hanna"))
    assert page.locator("#round-form tr.player-row").count() == 6

    save_in_view(page, "#save-round")
    assert_targets(page, "match")
    assert_axe(page, "match")
    shot("match")

    # --- an eye sum over 152 (SL-13): the counted rows are marked, the passed ones are not -------------
    enter(page, {"Bo": 100, "Cia": "pass", "Dan": 60, "Eva": "pass", "Fia": "pass", "Anna": 10})
    expect(page.locator("#eyes-left-n")).to_have_text("-18")  # the running count sits in the save bar
    page.locator("#save-round").tap()
    page.locator("#round-form p.error[role=alert]", has_text="SL-13").wait_for()
    save_in_view(page, "#save-round")
    marked = page.locator("#round-form tr.row-error").evaluate_all("rs => rs.map(r => r.dataset.name)")
    assert sorted(marked) == ["Anna", "Bo", "Dan"], marked
    assert_targets(page, "match with an error")
    assert_axe(page, "match with an error")
    shot("error")

    # --- fixed in one step: Dan 42 -> 152; saved ---------------------------------------------------------
    enter(page, {"Dan": 42})
    page.locator("#save-round").tap()
    page.locator(".flash.ok", has_text="Deal 1 saved").wait_for()
    save_in_view(page, "#save-round")
    assert page.locator("#round-form tr.row-error").count() == 0

    # --- the void page of that deal ------------------------------------------------------------------------
    void_path = visit_void_page(page, base, match_path, 1)

    close_and_check(page)
    assert "Next deal" not in page.locator("main").inner_text()
    shot("closed")

    every_language(page, base, [new_path + "?game=schloapfer", match_path, void_path])
    assert watched.problems == []
