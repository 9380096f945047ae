"""A close shows on a following guest's page and on the table display within a second, like a round (issue 42.5).

A guest's match page fetches itself at most once in ``LIVE_FOLLOW_GAP`` (30 s) and shows a round's numbers from
the stream's ``state`` event in the meantime (``static/js/live.js``). A close within that gap of a round used to
leave the guest's page (and the tablet's table display) with a dealer, a svängare, "Next round 5" and "the history
follows shortly", and no word of the close, for up to 30 s. On both backends, against a real threaded server with
the gap as in use.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import LOCALES, PHONE, LiveServer, watch
from tests.browser.test_live import post
from tests.browser.test_offline_queue import night_and_match

pytestmark = pytest.mark.browser

#: What each language's pages say of a closed match (the table display's line, the match page's banner).
CLOSED = {"sv": "avslutat", "de": "beendet"}


def viewer(browser: Any, base: str, view_token: str, path: str, lang: str, size: dict[str, int]) -> Any:
    context = browser.new_context(viewport=size, locale=LOCALES[lang])
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(f"{base}/v/{view_token}")
    page.goto(f"{base}/lang/{lang}?next={path}")
    page.wait_for_function("() => performance.getEntriesByType('resource').some(e => e.name.indexOf('/live') > 0)")
    return page


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_a_close_soon_after_a_round_shows_on_the_guest_page_and_the_table_within_a_second(
        served: LiveServer, browser: Any, artifacts: Path, lang: str) -> None:
    assert served.app.config["LIVE_FOLLOW_GAP"] >= 30  # the gap as in use: the close must not wait for it
    base = served.url
    night, match = night_and_match(base)
    mid, token = match["id"], night["edit_token"]
    guest = watch(viewer(browser, base, night["view_token"], f"/matches/{mid}", lang, PHONE), artifacts,
                  f"close-live-{lang}-guest-")
    tablet = watch(viewer(browser, base, night["view_token"], f"/matches/{mid}/table", lang,
                          {"width": 390, "height": 844}), artifacts, f"close-live-{lang}-table-")
    for n, who in enumerate(["Bo", "Cia"], start=1):  # two rounds, the second well inside the gap
        post(base, f"/api/matches/{mid}/rounds", {"participants": [who]}, token)
        guest.page.wait_for_function(f"() => document.querySelector('#round-no').textContent.trim() === '{n + 1}'")
    tablet.page.locator(".td-last .seq", has_text="2").wait_for()
    assert guest.page.locator(".finished, .closed").count() == 0

    post(base, f"/api/matches/{mid}/close", {"pot": "split"}, token)
    closed_at = time.monotonic()
    word = CLOSED[lang]
    tablet.page.wait_for_function(
        "w => !document.querySelector('#td-dealer') && !document.querySelector('#td-svangare')"
        " && (document.querySelector('.td-closed') || {innerText: ''}).innerText.toLowerCase().includes(w)",
        arg=word, timeout=5_000)
    table_after = time.monotonic() - closed_at
    guest.page.wait_for_function(
        "w => !document.querySelector('#round-no') && !document.querySelector('#dealer')"
        " && (document.querySelector('#finished') || {innerText: ''}).innerText.toLowerCase().includes(w)",
        arg=word, timeout=5_000)
    guest_after = time.monotonic() - closed_at
    print(f"close shown: guest page {guest_after:.2f} s, table display {table_after:.2f} s")
    guest.shot("closed")
    tablet.shot("closed")
    assert guest_after < 1.0 and table_after < 1.0, (guest_after, table_after)
    assert not guest.page.locator("#live").is_visible()  # no "history follows" left over
    assert not guest.problems and not tablet.problems, guest.problems + tablet.problems
    guest.page.context.close()
    tablet.page.context.close()
