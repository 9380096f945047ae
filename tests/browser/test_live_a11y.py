"""After a live update the page still works and says what changed (issue 50, points 1 and 2).

The leader's phone (390×844, Swedish and German) is tapping a round when another phone's round comes in over the
live stream (entered through the API, as a second phone would): the page swaps its ``<main>``. After one and after
two such updates the fresh form's taps still fill the Save bar's summary and tick "knocked", a second tap on a
chosen count clears it, and the taps made for the round that is gone are shown apart ("Round N was just entered
on another phone", "You had tapped: …"). What changed is said in a polite live region that was on the page before
the update (the test keeps a handle to that node), in the page's language with money as a sentence says it (no
",00"), and focus is not thrown to ``<body>``. A guest's match page says it too. Screenshots in
``test-artifacts/browser/a11y-live-*``.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import LOCALES, PHONE, LiveServer, watch
from tests.browser.polish import assert_axe
from tests.browser.test_offline_queue import api

pytestmark = pytest.mark.browser

SEATS = ["Anna", "Bo", "Cia", "Dan"]
#: The page's words the test reads in each language (the app's catalogs): the round, the pot, who deals.
WORDS = {"sv": ("Runda {n}:", "pott {pot}", "{dealer} ger", "kr"),
         "de": ("Runde {n}:", "Pott {pot}", "{dealer} gibt", "€")}
CURRENCY = {"sv": "SEK", "de": "EUR"}


def _open(browser: Any, base: str, token_path: str, match_id: int, lang: str) -> Any:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True,
                                  locale=LOCALES[lang])
    context.set_default_timeout(20_000)
    page = context.new_page()
    page.goto(token_path)
    page.goto(f"{base}/lang/{lang}?next=/matches/{match_id}")
    page.wait_for_function("() => performance.getEntriesByType('resource').some(e => e.name.indexOf('/live') > 0)")
    page.wait_for_timeout(300)  # the stream is open
    return page


def _said(state: dict[str, Any], n: int, lang: str) -> list[str]:
    """What the announcement must hold after round ``n``: its number, the pot as a whole amount, the dealer."""
    head, pot, deals, unit = WORDS[lang]
    whole = Decimal(state["pot"])
    assert whole == whole.to_integral_value()
    amount = f"{int(whole)}\u00a0{unit}"
    return [head.format(n=n), pot.format(pot=amount), deals.format(dealer=state["dealer"])]


def _region_text(region: Any) -> str:
    """The text of the live region the test took hold of before the update (and that it is still on the page)."""
    connected, text = region.evaluate("n => [n.isConnected, n.textContent]")
    assert connected, "the live region was replaced"
    return str(text)


def _focus_kept(page: Any) -> None:
    where = page.evaluate("() => { const a = document.activeElement;"
                          " return a === null || a === document.body ? 'body' : a.outerHTML.slice(0, 120); }")
    assert where != "body", "focus fell to <body>"


def _taps_work(page: Any, name: str, lang: str) -> str:
    """A count tapped on the form as it is now: the summary says it and the player is marked knocked; tapped
    again, it clears (the summary says only "knocks"). Tapped once more, it stays (the taps of this round)."""
    row = page.locator(f'#round-form tr[data-name="{name}"]')
    radio = row.locator('input[type=radio][value="1"]')
    say = str(radio.get_attribute("data-say"))
    knock = row.locator('input[name^="knock_"]')
    knocks = str(knock.get_attribute("data-say"))
    summary = page.locator("#round-form [data-bar-summary]")
    expect(knock).not_to_be_checked()
    row.locator("label.pick").nth(1).tap()
    expect(summary).to_have_text(f"{name} {say}")
    expect(knock).to_be_checked()
    row.locator("label.pick").nth(1).tap()  # the chosen count again: cleared (the knock stays)
    expect(radio).not_to_be_checked()
    expect(summary).to_have_text(f"{name} {knocks}")
    row.locator("label.pick").nth(1).tap()
    expect(summary).to_have_text(f"{name} {say}")
    return f"{name} {say}"


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_the_round_form_works_and_the_change_is_said_after_each_live_update(
        live_server: LiveServer, browser: Any, artifacts: Path, lang: str) -> None:
    base = live_server.url
    night = api(base, "/api/nights", {"name": "Stugan", "currency": CURRENCY[lang], "players": SEATS})
    match = api(base, f"/api/nights/{night['id']}/matches",
                {"game": "svangknack", "players": SEATS, "dealer": "Anna", "stake": "3.00"}, night["edit_token"])
    mid, token = match["id"], night["edit_token"]
    leader = watch(_open(browser, base, f"{base}/e/{token}", mid, lang), artifacts, f"a11y-live-{lang}-")
    guest = watch(_open(browser, base, f"{base}/v/{night['view_token']}", mid, lang), artifacts,
                  f"a11y-live-guest-{lang}-")
    page = leader.page
    page.locator("#round-form").wait_for()
    region = page.evaluate_handle(
        "() => document.getElementById('announce') || document.querySelector('[aria-live]')")
    guest_region = guest.page.evaluate_handle(
        "() => document.getElementById('announce') || document.querySelector('[aria-live]')")
    guest.page.locator("main a").first.focus()  # a guest reading the page

    sv = str(page.locator("#round-form").get_attribute("data-svangare"))
    tapped = _taps_work(page, next(s for s in SEATS if s != sv), lang)  # on the page as loaded
    for n in (1, 2):
        state = api(base, f"/api/matches/{mid}/rounds", {"participants": [sv]}, token)["state"]  # another phone
        page.locator(f"#round-{n}").wait_for()
        # The taps made for the round that is gone, shown apart; the notice says which round came in.
        box = page.locator("#stale-taps")
        expect(box).to_be_visible()
        expect(box.locator(".stale-what")).to_have_text(tapped)
        expect(page.locator("#live")).to_be_visible()
        expect(page.locator("#live")).to_contain_text(str(n))
        # Said in the region that was there before the update, in words, money without ",00".
        for part in _said(state, n, lang):
            page.wait_for_function("([r, t]) => r.textContent.indexOf(t) >= 0", arg=[region, part])
        assert ",00" not in _region_text(region) and ".00" not in _region_text(region)
        _focus_kept(page)
        leader.shot(f"after-update-{n}", full=False)
        assert_axe(page, f"the match page after live update {n}")
        page.locator("#stale-drop").tap()  # it was the same round
        expect(box).to_have_count(0)
        # The fresh form works: taps fill the summary, tick knocked, a second tap clears.
        sv = str(page.locator("#round-form").get_attribute("data-svangare"))
        tapped = _taps_work(page, next(s for s in SEATS if s != sv), lang)  # (taken out by the next update)
        if n == 1:  # the guest's page fetches itself at once only once in its gap (30 s): its first update
            for part in _said(state, n, lang):
                guest.page.wait_for_function("([r, t]) => r.textContent.indexOf(t) >= 0",
                                             arg=[guest_region, part])
            _region_text(guest_region)
            _focus_kept(guest.page)
            guest.shot("after-update", full=False)

    for watched in (leader, guest):
        watched.page.context.close()
        assert not watched.problems, watched.problems
