"""Every payment and link code on a 390×844 phone scans (issue 26.2).

The codes are read the hard way: a 390×844 Chromium screenshot at one
device pixel per CSS pixel (a phone's screen is sharper, a camera blurrier),
decoded by zbar, and each payload compared field by field with Swish's "C"
string and EPC069-12. Names and the night's name have å, ö and ü in them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.browser.conftest import PHONE, LiveServer, watch
from tests.browser.test_live import post
from tests.engine.test_payment_codes import check_girocode, check_swish, zbar_read

pytestmark = pytest.mark.browser

SEATS = ["Åsa", "Björn", "Jürgen", "Dan"]
DATE = "2026-11-20"


def kul_night(base: str, currency: str, name: str) -> dict[str, Any]:
    """Jürgen wins a Kul of four at 2.00 a head: Åsa, Björn and Dan each owe him 2.00."""
    night = post(base, "/api/nights", {"name": name, "currency": currency, "players": SEATS, "date": DATE})
    match = post(base, f"/api/nights/{night['id']}/matches", {"game": "kul", "players": SEATS, "stake": "2.00"},
                 night["edit_token"])
    for _ in range(3):
        post(base, f"/api/matches/{match['id']}/rounds", {"last_trick": "Jürgen"}, night["edit_token"])
    return dict(night)


def phone_page(browser: Any) -> Any:
    context = browser.new_context(viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True,
                                  locale="en-US")
    context.set_default_timeout(10_000)
    return context.new_page()


def scanned(page: Any, selector: str) -> list[str]:
    """Each code matching ``selector``, scrolled into view and read by zbar from a 390×844 screenshot."""
    import io

    from PIL import Image

    found = []
    codes = page.locator(selector)
    for i in range(codes.count()):
        code = codes.nth(i)
        code.scroll_into_view_if_needed()
        box = code.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
        shot = Image.open(io.BytesIO(page.screenshot())).convert("L")
        assert shot.size == (PHONE["width"], PHONE["height"])
        top, bottom = max(0, int(box["y"])), min(PHONE["height"], int(box["y"] + box["height"]) + 1)
        # Only this code's part of the screen: the screenshot is what the phone shows, cut to the one code.
        payloads = zbar_read(shot.crop((0, top, PHONE["width"], bottom)))
        assert len(payloads) == 1, (i, payloads)
        found.append(payloads[0].decode("utf-8"))
    return found


@pytest.mark.parametrize("currency", ["SEK", "EUR"])
def test_settlement_codes_scan_from_a_phone_screenshot(live_server: LiveServer, browser: Any, artifacts: Path,
                                                       currency: str) -> None:
    base = live_server.url
    name = "Kul på Öland hos Åsa, Björn och Jürgen" if currency == "SEK" else "Kul bei Jürgen"
    night = kul_night(base, currency, name)
    details = {"swish": "070-123 45 67"} if currency == "SEK" else {"iban": "DE72 3702 0500 0009 7097 00",
                                                                     "holder": "Jürgen Åström"}
    post(base, f"/api/nights/{night['id']}/players/{quote('Jürgen')}/details", details, night["edit_token"])
    page = phone_page(browser)
    watched = watch(page, artifacts, f"pay-codes-{currency.lower()}-")
    page.goto(f"{base}/v/{night['view_token']}")
    page.goto(f"{base}/nights/{night['id']}/settlement")
    summaries = page.locator("details.qr-box summary")
    assert summaries.count() == 3
    for i in range(3):
        summaries.nth(i).tap()
    payloads = scanned(page, ".qr-box .qr svg")
    watched.shot("settlement")
    assert len(payloads) == 3
    message = f"{name} {DATE}"
    for payload in payloads:
        if currency == "SEK":
            check_swish(payload, payee="0701234567", minor=200, message=message)
        else:
            check_girocode(payload, name="Jürgen Åström", iban="DE72370205000009709700", minor=200, text=message)
    assert not watched.problems, watched.problems


def test_night_page_link_codes_scan_from_a_phone_screenshot(live_server: LiveServer, browser: Any,
                                                            artifacts: Path) -> None:
    base = live_server.url
    night = kul_night(base, "SEK", "Schwimmen in Lübeck")
    page = phone_page(browser)
    watched = watch(page, artifacts, "pay-codes-night-")
    page.goto(f"{base}/e/{night['edit_token']}")
    page.goto(f"{base}/nights/{night['id']}")
    for summary in page.locator("details:has(.qr) > summary").all():
        summary.tap()
    links = scanned(page, ".qr svg")
    assert links and any(link.endswith(f"/v/{night['view_token']}") for link in links), links
    assert all(link.startswith(base) for link in links), links
    assert not watched.problems, watched.problems
