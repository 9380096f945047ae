"""Plain http from another machine (issue 44.2): the leader's page says what needs HTTPS, and offers nothing it
cannot keep.

Chromium treats ``http://127.0.0.1`` and ``localhost`` as secure contexts,
so a phone on the club's wifi reaching the server at ``http://192.168.…``
is played here by a test host name mapped to the loopback
(``--host-resolver-rules``): ``http://referee.test:PORT`` is the same live
app, but no secure context, so no service worker and no Cache Storage. The
leader's night and match pages then show one short line (the details a tap
away, naming the "HTTPS" section of docs/deploying.md), the engine's "ready
for no network" offer never appears and no engine file is fetched, the
offline bar says to keep the page open, and the copy buttons still copy
(they need no clipboard API). On ``127.0.0.1`` (secure) the line is absent.
Screenshots at 390×844 in Swedish and German: ``test-artifacts/browser/insecure-*.png``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.browser.conftest import PHONE, LiveServer, watch
from tests.browser.polish import assert_axe
from tests.browser.test_offline_queue import api, night_and_match
from tests.browser.test_pay import kul_night
from tests.components import another_chromium

pytestmark = pytest.mark.browser

HOST = "referee.test"
#: How many lines an element's text takes on the screen.
LINES = """(el) => { const range = document.createRange(); range.selectNodeContents(el);
  return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size; }"""


@pytest.fixture(scope="module")
def mapped_browser(browser: Any) -> Iterator[Any]:
    """A Chromium that resolves ``referee.test`` to the loopback (and nothing else differs)."""
    with another_chromium(browser, f"--host-resolver-rules=MAP {HOST} 127.0.0.1") as mapped:
        yield mapped


def leader_phone(browser: Any, base: str, edit_token: str) -> Any:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True,
                                  locale="en-US")
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto(f"{base}/e/{edit_token}")
    return page


def test_plain_http_from_another_machine_says_what_needs_https(live_server: LiveServer, mapped_browser: Any,
                                                               artifacts: Path) -> None:
    from playwright.sync_api import expect

    secure = live_server.url
    insecure = secure.replace("127.0.0.1", HOST)
    night, match = night_and_match(secure)
    nid, mid = night["id"], match["id"]
    page = leader_phone(mapped_browser, insecure, night["edit_token"])
    watched = watch(page, artifacts, "insecure-")
    engine_files: list[str] = []
    page.on("request", lambda r: engine_files.append(r.url) if "/static/pyodide/" in r.url else None)
    assert urlsplit(page.url).hostname == HOST and page.evaluate("window.isSecureContext") is False
    assert page.evaluate("'serviceWorker' in navigator") is False  # what the notice is about

    notice = page.locator("#insecure")
    expect(notice).to_be_visible()
    summary = notice.locator("summary")
    expect(summary).to_have_text("Without HTTPS: not ready for no network.")
    assert summary.evaluate(LINES) == 1  # one short line, not a banner
    expect(notice.get_by_text("docs/deploying.md")).to_be_hidden()  # the details: a tap away
    summary.tap()
    expect(notice.get_by_text("“HTTPS” of docs/deploying.md")).to_be_visible()
    expect(notice.get_by_text("a reload with no network shows the browser's error page")).to_be_visible()

    # The match page: the same line; the offer to keep the referee for no network never shows, nothing is fetched.
    page.goto(f"{insecure}/matches/{mid}")
    expect(page.locator("#insecure")).to_have_count(1)
    expect(page.locator("#insecure")).to_be_visible()
    page.wait_for_timeout(2500)  # the offer comes 1 s after the load where it may
    expect(page.locator("#engine-offer")).to_be_hidden()
    assert engine_files == []
    page.context.set_offline(True)  # no network: the bar says to keep this page open
    expect(page.locator("#offline-bar")).to_contain_text("Keep this page open: without HTTPS")
    page.context.set_offline(False)

    # The copy buttons need no clipboard API (a selected text and execCommand): they copy, and say so.
    owed = kul_night(secure, "EUR", "Schwimmen bei Cia")
    api(secure, f"/api/nights/{owed['id']}/players/Cia/details", {"iban": "de72 3702 0500 0009 7097 00",
                                                                    "holder": "Cia"}, owed["edit_token"])
    page.goto(f"{insecure}/e/{owed['edit_token']}")
    page.goto(f"{insecure}/nights/{owed['id']}/settlement")
    assert page.evaluate("navigator.clipboard === undefined")
    pay = page.locator(".pay").first
    pay.get_by_role("button", name="Copy IBAN").tap()
    expect(pay.get_by_text("IBAN copied.")).to_be_visible()

    for lang in ("sv", "de"):
        page.goto(f"{insecure}/lang/{lang}?next=/nights/{nid}")
        expect(page.locator("#insecure")).to_be_visible()
        assert page.locator("#insecure summary").evaluate(LINES) == 1
        watched.shot(f"{lang}-night", full=False)
        page.locator("#insecure summary").tap()
        page.evaluate("document.activeElement.blur()")
        assert_axe(page, f"the night page over plain http ({lang}), the details open")
        watched.shot(f"{lang}-night-details", full=False)

    # On 127.0.0.1 (a secure context) the same leader's page has no such line.
    other = leader_phone(mapped_browser, secure, night["edit_token"])
    try:
        assert other.evaluate("window.isSecureContext") is True
        expect(other.locator("#insecure")).to_have_count(1)  # a leader's page, which would say it
        expect(other.locator("#insecure")).to_be_hidden()
    finally:
        other.context.close()
    page.context.close()
    assert not watched.problems, watched.problems
