"""The offline banner is one quiet line (issue 42.8, and issue 50.5's part on it), on a 390×844 phone, sv and de.

With no network and a round waiting in the phone, the banner is one line (its box at most two lines of the page's
text high), in the page's flow (not pinned over the dealer and the pot), with its sentences a tap away
(``<details>``); a control focused by the keyboard is never under the banner or the save bar. When the network is
back and the queue is sent, the round form stays where it was on the screen (its box measured before and after).
Screenshots in ``test-artifacts/browser/offline-banner-*``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import LiveServer, watch
from tests.browser.network import back_online
from tests.browser.polish import assert_axe
from tests.browser.test_at_the_table import svangknack_at
from tests.browser.test_offline_queue import offline_noise, save_round, stored

pytestmark = pytest.mark.browser

SEATS = ["Anna", "Bo", "Cia", "Dan"]
#: The banner's sentence with no network, in each language (the app's catalog).
NO_NETWORK = {"sv": "Ingen anslutning", "de": "Kein Netz"}

#: The focused element's box against the bars: it must lie between the banner's bottom and the save bar's top,
#: and be the element found at its own centre (nothing laid over it).
_FOCUS_HIDDEN = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return 'focus on body';
  const box = (el.type === 'radio' || el.type === 'checkbox') && el.labels && el.labels[0] ? el.labels[0] : el;
  const r = box.getBoundingClientRect();
  const bar = document.querySelector('.savebar'), banner = document.querySelector('#offline-bar');
  const bottom = bar && !bar.contains(el) ? bar.getBoundingClientRect().top : innerHeight;  // (Save is in the bar)
  const b = banner && !banner.hidden ? banner.getBoundingClientRect() : null;
  const what = el.outerHTML.slice(0, 80);
  if (r.bottom > bottom + 0.5 || r.top < 0) return `${what} at ${r.top}-${r.bottom}, bar at ${bottom}`;
  if (b && b.bottom > r.top + 0.5 && b.top < r.bottom - 0.5) return `${what} under the banner`;
  const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
  if (!hit || !(box.contains(hit) || hit.contains(box))) return `${what} covered by ${hit && hit.tagName}`;
  return '';
}"""


def _form_top(page: Any) -> float:
    """The round form's top on the screen (CSS px from the viewport's top)."""
    return float(page.locator("#round-form").evaluate("f => f.getBoundingClientRect().top"))


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_the_offline_banner_is_one_line_and_nothing_jumps_when_the_queue_is_sent(
        live_server: LiveServer, phone: Any, artifacts: Path, lang: str) -> None:
    base, page = live_server.url, phone
    page.context.set_default_timeout(60_000)  # a busy machine: the worker installs slowly
    watched = watch(page, artifacts, f"offline-banner-{lang}-")
    _night, match = svangknack_at(base, page, SEATS, lang, controlled=True)
    page.context.set_offline(True)
    save_round(page)  # the svängare alone: waits in the phone
    expect(page.locator("#offline-entries li.pending")).to_have_count(1)

    banner = page.locator("#offline-bar")
    expect(banner).to_be_visible()
    expect(page.locator("#offline-line")).to_contain_text(NO_NETWORK[lang])  # the line says it
    line_height = float(page.evaluate("() => parseFloat(getComputedStyle(document.body).lineHeight)"))
    height = float(banner.evaluate("b => b.getBoundingClientRect().height"))
    assert height <= 2 * line_height, f"the banner is {height} px high, two lines are {2 * line_height} px"
    assert banner.evaluate("b => getComputedStyle(b).position") in ("static", "relative")  # not pinned on top
    page.evaluate("() => window.scrollTo(0, 0)")
    watched.shot("pending", full=False)
    # the details a tap away
    said = page.locator("#offline-said")
    expect(said).to_be_hidden()
    page.locator("#offline-bar summary").tap()
    expect(said).to_be_visible()
    expect(said).to_contain_text(NO_NETWORK[lang])
    watched.shot("details", full=False)
    assert_axe(page, "the offline line, open")
    page.locator("#offline-bar summary").tap()
    expect(said).to_be_hidden()

    # Every control of the round form, reached by the keyboard, lies clear of the banner and the save bar.
    page.locator('#round-form input[type=radio]').first.focus()
    for _ in range(page.locator("#round-form input:not([type=hidden]), #round-form button").count()):
        problem = page.evaluate(_FOCUS_HIDDEN)
        assert not problem, problem
        page.keyboard.press("Tab")
        if not page.evaluate("() => !!document.activeElement.closest('#round-form')"):
            break

    page.evaluate("() => window.scrollTo(0, 0)")
    before = _form_top(page)
    back_online(page)
    page.locator("#round-1").wait_for()  # sent and saved: the page as the server has it
    page.wait_for_load_state()
    assert [r[0] for r in stored(live_server.app, match["id"])] == [1]
    page.wait_for_timeout(500)  # the queue's line rendered
    after = _form_top(page)
    watched.shot("sent", full=False)
    assert abs(after - before) <= 1, f"the round form moved from {before} to {after} px when the queue was sent"
    assert not offline_noise(watched.problems), watched.problems
