"""Paying from one's own phone: the payer opens the settlement by the view link (issue 20).

A payer cannot scan their own screen, so each transfer offers a **Pay** link
that opens Swish with the transfer filled in (SEK to a Swish number), or the
IBAN and amount with **Copy** buttons (EUR to an IBAN; no scheme opens an
arbitrary banking app). On a 390×844 phone the test finds the buttons, taps
the Pay link (the request to app.swish.nu is caught: the machine has no
network, and what matters is where the tap goes) and reads the clipboard
after each Copy. Without JavaScript the IBAN and amount stay visible text.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.browser.conftest import PHONE, LiveServer, watch
from tests.browser.test_live import post

pytestmark = pytest.mark.browser

SEATS = ["Anna", "Bo", "Cia", "Dan"]


def kul_night(base: str, currency: str, name: str) -> dict[str, Any]:
    """Cia wins a Kul of four at 2.00 a head: Anna, Bo and Dan each owe Cia 2.00."""
    night = post(base, "/api/nights", {"name": name, "currency": currency, "players": SEATS})
    match = post(base, f"/api/nights/{night['id']}/matches", {"game": "kul", "players": SEATS, "stake": "2.00"},
                 night["edit_token"])
    for _ in range(3):
        post(base, f"/api/matches/{match['id']}/rounds", {"last_trick": "Cia"}, night["edit_token"])
    return dict(night)


def payer_phone(browser: Any, base: str, night: dict[str, Any], **extra: Any) -> Any:
    """Anna's own phone: a fresh context that opened the view link, then the settlement."""
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True,
                                  locale="en-US", **extra)
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(f"{base}/v/{night['view_token']}")
    page.goto(f"{base}/nights/{night['id']}/settlement")
    return page


def test_swish_pay_button_opens_the_payment(live_server: LiveServer, browser: Any, artifacts: Path) -> None:
    base = live_server.url
    night = kul_night(base, "SEK", "Kul hos Cia")
    post(base, f"/api/nights/{night['id']}/players/Cia/details", {"swish": "+46 70-123 45 67"}, night["edit_token"])
    payer = watch(payer_phone(browser, base, night), artifacts, "pay-swish-")
    page = payer.page
    buttons = page.get_by_role("link", name=re.compile(r"^Pay .* with Swish$"))
    assert buttons.count() == 3
    for i in range(3):
        button = buttons.nth(i)
        assert button.is_visible()
        box = button.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        assert box["height"] >= 44  # a thumb's target
        query = parse_qs(urlsplit(button.get_attribute("href") or "").query)
        assert query == {"sw": ["0701234567"], "amt": ["2.00"], "cur": ["SEK"], "edit": ["msg"],
                         "msg": [query["msg"][0]]}
        assert query["msg"][0].startswith("Kul hos Cia ")
    assert page.get_by_text("opens Swish with 070-123 45 67").first.is_visible()
    payer.shot("settlement")

    # Tapping goes to the Swish link (on a phone with Swish: the app); caught here, there is no network.
    opened: list[str] = []

    def swish(route: Any) -> None:
        opened.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body="<title>Swish</title>")

    page.context.route("https://app.swish.nu/**", swish)
    first = buttons.first.get_attribute("href")
    buttons.first.tap()
    page.wait_for_url("https://app.swish.nu/**")
    assert opened == [first]
    assert not payer.problems, payer.problems


def test_euro_payer_copies_iban_and_amount(live_server: LiveServer, browser: Any, artifacts: Path) -> None:
    base = live_server.url
    night = kul_night(base, "EUR", "Schwimmen bei Cia")
    page = payer_phone(browser, base, night)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    payer = watch(page, artifacts, "pay-euro-")
    assert page.locator(".pay").count() == 0
    page.wait_for_function("() => performance.getEntriesByType('resource')"
                           ".some(e => e.name.indexOf('/live') > 0)")
    # The leader enters Cia's IBAN while Anna's phone shows the settlement: the page follows (live.js)
    # and the copy buttons work in the swapped-in part too.
    post(base, f"/api/nights/{night['id']}/players/Cia/details",
         {"iban": "de72 3702 0500 0009 7097 00", "holder": "Cia Åberg"}, night["edit_token"])
    page.locator(".pay-details").first.wait_for()
    assert page.get_by_role("link", name=re.compile("Pay")).count() == 0  # no app opens a bank transfer
    boxes = page.locator(".pay-details")
    assert boxes.count() == 3
    box = page.locator(".pay").first
    assert box.locator(".pay-iban").inner_text() == "DE72 3702 0500 0009 7097 00"
    assert box.get_by_text("SozialBank").is_visible()  # the bank, from schwifty's registry
    assert box.get_by_text("Cia Åberg").is_visible()

    copy_iban = box.get_by_role("button", name="Copy IBAN")
    copy_amount = box.get_by_role("button", name="Copy amount")
    for button in (copy_iban, copy_amount):
        assert button.is_visible()
        rect = button.bounding_box()
        assert rect is not None and rect["x"] + rect["width"] <= PHONE["width"]
    copy_iban.tap()
    box.get_by_text("IBAN copied.").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == "DE72370205000009709700"
    copy_amount.tap()
    box.get_by_text("Amount copied.").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == "2.00"
    payer.shot("settlement")

    # In German the copied amount is what a German banking app's field takes.
    page.goto(f"{base}/lang/de?next=/nights/{night['id']}/settlement")
    page.locator(".pay").first.get_by_role("button", name="Betrag kopieren").tap()
    page.locator(".pay").first.get_by_text("Betrag kopiert.").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == "2,00"
    assert not payer.problems, payer.problems


def test_without_javascript_the_bank_details_are_text(live_server: LiveServer, browser: Any,
                                                      artifacts: Path) -> None:
    base = live_server.url
    night = kul_night(base, "EUR", "Ohne Skript")
    post(base, f"/api/nights/{night['id']}/players/Cia/details",
         {"iban": "AT43 2011 1289 2684 7600", "holder": "Cia"}, night["edit_token"])
    page = payer_phone(browser, base, night, java_script_enabled=False)
    box = page.locator(".pay").first
    assert box.locator(".pay-iban").inner_text() == "AT43 2011 1289 2684 7600"
    assert box.locator(".pay-amount").inner_text() == "2.00"
    assert box.locator(".pay-iban").is_visible() and box.locator(".pay-amount").is_visible()
    assert not box.get_by_role("button").first.is_visible()  # no button that would do nothing
    page.screenshot(path=str(artifacts / "browser" / "pay-nojs-settlement.png"), full_page=True)
