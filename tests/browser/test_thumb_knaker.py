"""One thumb at a noisy table (issue 19): Knaker with 8 players (double deck, KN-17) on a 390×844 phone.

After every step of a game (each "went out") the save button is inside the
viewport; every interactive element is at least 44×44 CSS px; a refused dot
("denying a cheat Bo never made", KN-16.5) marks Bo's card; axe-core finds
nothing on the new match, match, void and closed pages in English, Swedish
and German.
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

def ready(page: Any) -> None:
    """The page's script has run (it fills the "still playing" line)."""
    page.wait_for_function("() => document.getElementById('kn-left').textContent !== ''")


def test_knaker_with_eight_players_one_thumb(live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    page, base = phone, live_server.url
    watched = watch(page, artifacts, "thumb-knaker-")
    shot = lambda name: page.screenshot(path=str(artifacts / f"after-knaker-{name}.png"))  # noqa: E731
    night_url = new_night(page, base, "Knaker zu acht", PLAYERS, currency="EUR")
    match_path, new_path = start_match(page, base, night_url, "knaker", options={"double_deck": "on"})
    ready(page)
    assert page.locator(".kn-player").count() == 8

    save_in_view(page, "#kn-save")
    assert_targets(page, "match")
    assert_axe(page, "match")
    shot("match")

    # --- a refused dot: Bo "denies" a cheat he never made (KN-16.5): Bo's card is marked ----------------
    bo = page.locator('.kn-player[data-name="Bo"]')
    bo.locator("details.kn-dot summary").tap()
    bo.locator('button[data-offence="denial"]').tap()
    page.locator("#dot-error", has_text="KN-16.5").wait_for()
    ready(page)
    save_in_view(page, "#kn-save")
    marked = page.locator(".kn-player.row-error").evaluate_all("rs => rs.map(r => r.dataset.name)")
    assert marked == ["Bo"], marked
    assert_targets(page, "match with an error")
    assert_axe(page, "match with an error")
    shot("error")

    # --- a game: seven go out one after the other, Bo is left; every step measured -----------------------
    for name in PLAYERS:
        if name != "Bo":
            page.locator(f'.kn-player[data-name="{name}"] button.kn-out').tap()
            save_in_view(page, "#kn-save")
    expect(page.locator("#kn-left")).to_have_text("Only Bo is left: save the game.")
    shot("game-tapped")
    page.locator("#kn-save").tap()
    page.locator(".flash.ok", has_text="Game 1 saved").wait_for()
    ready(page)
    save_in_view(page, "#kn-save")
    assert page.locator(".kn-player.row-error").count() == 0

    void_path = visit_void_page(page, base, match_path, 1)

    close_and_check(page)
    for gone in ("#dealer", "#game-no", "#kn-form"):
        assert page.locator(gone).count() == 0, gone
    shot("closed")

    every_language(page, base, [new_path + "?game=knaker", match_path, void_path])
    assert watched.problems == []
