"""The Save bar's summary is never cut with "…" (issue 50, point 5).

A leader's Svängknack round with eight players, each tapped, on a 390×844 phone and on a 320 px one, in Swedish
and German: the summary names every tap, and all of its text is shown (its box is as wide as its text, nothing
hidden by an ellipsis). Screenshots in ``test-artifacts/browser/savebar-summary-*``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import LOCALES, PHONE, LiveServer, watch
from tests.browser.test_form_in_view import leader_on, night_match

pytestmark = pytest.mark.browser

SEATS = ["Anna", "Göran", "Örjan", "Märta", "Kristoffer", "Bernadette", "Maximilian", "Ulrika"]


@pytest.mark.parametrize("lang", ["sv", "de"])
@pytest.mark.parametrize("width", [390, 320])
def test_the_save_bar_summary_shows_every_tap(live_server: LiveServer, browser: Any, artifacts: Path, lang: str,
                                              width: int) -> None:
    context = browser.new_context(viewport={"width": width, "height": PHONE["height"]}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale=LOCALES[lang])
    context.set_default_timeout(20_000)
    page = context.new_page()
    w = watch(page, artifacts, f"savebar-summary-{lang}-{width}-")
    token, match_id = night_match(live_server.url, "svangknack", SEATS)
    leader_on(page, live_server.url, token, match_id, lang)
    for name in SEATS[1:6]:  # five players take one trick each (Göran, the svängare, too)
        page.locator(f'#round-form tr[data-name="{name}"] label.pick').nth(1).tap()
    bar = page.locator(".savebar .bar-summary")
    for name in SEATS[1:6]:
        expect(bar).to_contain_text(name)
    shown = bar.evaluate("""e => ({scroll: e.scrollWidth, client: e.clientWidth,
                                   cut: getComputedStyle(e).textOverflow, hidden: getComputedStyle(e).overflowX})""")
    assert shown["scroll"] <= shown["client"] + 1, shown  # no text runs out of its box
    assert not (shown["cut"] == "ellipsis" and shown["hidden"] == "hidden"), shown
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # and nothing sticks out sideways
    w.shot("bar", full=False)
    assert not w.problems, w.problems
    context.close()
