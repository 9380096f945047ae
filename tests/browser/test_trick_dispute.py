"""The trick referee's dispute mode on a phone (issue 28 item 5): from the round in progress to a
verdict about one trick, counted in taps.

Headless Chromium at 390×844, in Swedish and German, driven by taps only
(every tap counted, the link on the match page included; nothing typed). A
4-player Svängknack match, dealer Anna, so Bo (the svängare) leads; trumps ♥.
The trick as it lies: Bo K♦, Cia 5♦, Dan 3♣, Anna A♦. The argument is about
Dan's 3♣: with nothing known of his hand it stands (SK-15 gives the benefit
of the doubt); once the table agrees Dan had a ♦, it breaks SK-15 ("must follow
suit"). The verdict must stand next to the cards, in view without scrolling,
inside an ``aria-live`` region; axe finds nothing. Once more with the network
cut, answered by the engine in the browser. Screenshots go to
``test-artifacts/browser/dispute-*.png``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import PHONE, LiveServer, require_browser_engine, watch
from tests.browser.polish import assert_axe, assert_targets
from tests.browser.test_engine_offline import _offline_noise

pytestmark = pytest.mark.browser

PLAYERS = ["Anna", "Bo", "Cia", "Dan"]
WORDS = {
    "sv": {"link": "Tvist om ett stick", "yes": "Tillåtet", "no": "Inte tillåtet", "had": "hade ♦",
           "3C": "klöver tre",
           "reason": "Dan måste bekänna färg med en ♦ (SK-15).", "won": "Sticket tas av Anna."},
    "de": {"link": "Streit um einen Stich", "yes": "Erlaubt", "no": "Nicht erlaubt", "had": "hatte ♦",
           "3C": "Kreuz drei",
           "reason": "Dan musste mit einer ♦-Karte Farbe bekennen (SK-15).", "won": "Den Stich bekommt Anna."},
}


class Taps:
    """Every tap of the flow goes through here, so the count is the count of the user's taps."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.count = 0

    def tap(self, locator: Any) -> None:
        locator.tap()
        self.count += 1

    def card(self, code: str, suit_changes: bool) -> None:
        """A card as the picker takes it: the suit (only when it changes: it stays chosen), then the rank."""
        if suit_changes:
            self.tap(self.page.locator("#td-form .td-suits label.pick",
                                       has=self.page.locator(f'input[value="{code[-1]}"]')))
        self.tap(self.page.locator(f'#td-ranks button[value="{code[:-1]}"]'))


def _match(server: LiveServer) -> tuple[dict[str, Any], int]:
    client = server.app.test_client()
    night = client.post("/api/nights", json={"name": "Bråk", "currency": "SEK", "players": PLAYERS}).get_json()
    auth = {"Authorization": f"Bearer {night['edit_token']}"}
    match = client.post(f"/api/nights/{night['id']}/matches", headers=auth,
                        json={"game": "svangknack", "players": PLAYERS, "dealer": "Anna", "stake": "3.00"}).get_json()
    return night, int(match["id"])


def _in_view(page: Any, selector: str) -> None:
    """The element lies wholly in the 390×844 viewport with the page unscrolled (and no sideways scroll)."""
    assert page.evaluate("window.scrollY") == 0, "the flow scrolled the page"
    box = page.locator(selector).bounding_box()
    assert box is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], box
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def _in_view_and_live(page: Any, selector: str) -> None:
    """In view without scrolling, and inside an aria-live region (announced to screen readers)."""
    _in_view(page, selector)
    assert page.locator(selector).evaluate("e => !!e.closest('[aria-live]')")


def _tap_the_trick(taps: Taps) -> None:
    page = taps.page
    taps.tap(page.locator(".td-trump label.pick", has=page.locator('input[value="H"]')))  # trumps: ♥
    taps.card("KD", True)    # Bo leads K♦
    taps.card("5D", False)   # Cia 5♦ (♦ stays chosen)
    taps.card("3C", True)    # Dan 3♣: the card in question
    taps.card("AD", True)    # Anna A♦


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_dispute_from_the_round_in_progress(live_server: LiveServer, phone: Any, artifacts: Path, lang: str) -> None:
    from playwright.sync_api import expect

    page = phone
    watched = watch(page, artifacts, "dispute-")
    words = WORDS[lang]
    night, match_id = _match(live_server)
    page.goto(f"{live_server.url}/e/{night['edit_token']}")
    page.goto(f"{live_server.url}/lang/{lang}?next=/matches/{match_id}")
    taps = Taps(page)

    taps.tap(page.locator("#trick-dispute-link"))
    expect(page.locator("#td-form")).to_be_visible()
    # From the round in progress: the players in seat order, the svängare Bo (left of the dealer) leads.
    expect(page.locator('.td-lead input[name="leader"]:checked')).to_have_value("Bo")
    expect(page.locator(".td-lead label.pick")).to_have_text(PLAYERS)
    _tap_the_trick(taps)
    expect(page.locator("#td-slots label")).to_have_count(4)
    expect(page.locator("#td-slots small")).to_have_text(["Bo", "Cia", "Dan", "Anna"])
    # Cards on the table are greyed out: with ♦ chosen, K and A cannot be tapped again.
    expect(page.locator("#td-ranks button.td-used")).to_have_count(3)  # K♦, 5♦ and A♦
    expect(page.locator('#td-ranks button[value="K"]')).to_be_disabled()

    taps.tap(page.locator("#td-slots label.pick", has=page.locator('input[value="3C"]')))  # the card in question
    expect(page.locator("#td-reason")).to_contain_text("Dan")  # the answer about Dan's 3♣, not Anna's A♦
    expect(page.locator("#td-reason")).to_contain_text(words["3C"])  # said in words (issue 50.4)
    expect(page.locator("#td-yes")).to_contain_text(words["yes"])
    expect(page.locator("#td-rule")).to_have_text("SK-15")
    expect(page.locator("#td-won")).to_have_text(words["won"])
    _in_view_and_live(page, "#td-answer")
    watched.shot(f"{lang}-legal", full=False)

    taps.tap(page.locator("#td-facts label.toggle", has_text=words["had"]))  # Dan had a ♦
    expect(page.locator("#td-yes")).to_contain_text(words["no"])
    expect(page.locator("#td-rule")).to_have_text("SK-15")
    expect(page.locator("#td-reason")).to_have_text(words["reason"])
    _in_view_and_live(page, "#td-answer")
    _in_view(page, "#td-slots")  # the verdict next to the cards it judges
    assert taps.count <= 12, taps.count
    assert taps.count == 11  # link 1, trumps 1, cards 7 (the suit only when it changes), card 1, fact 1
    watched.shot(f"{lang}-illegal", full=False)
    assert_axe(page, f"dispute [{lang}]")
    assert_targets(page, f"dispute [{lang}]")
    assert not watched.problems


def test_dispute_with_no_network(live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    from playwright.sync_api import expect

    require_browser_engine()
    page = phone
    watched = watch(page, artifacts, "dispute-")
    night, match_id = _match(live_server)
    page.goto(f"{live_server.url}/e/{night['edit_token']}")
    page.goto(f"{live_server.url}/matches/{match_id}")
    taps = Taps(page)
    taps.tap(page.locator("#trick-dispute-link"))
    expect(page.locator("#td-form")).to_be_visible()
    page.wait_for_load_state()
    page.evaluate("RefereeEngine.load().then(() => true)")  # as a phone that had the page before
    page.context.set_offline(True)
    _tap_the_trick(taps)
    taps.tap(page.locator("#td-slots label.pick", has=page.locator('input[value="3C"]')))
    taps.tap(page.locator("#td-facts label.toggle", has_text="had a trump (♥)"))  # void in ♦ but held a trump
    expect(page.locator("#td-rule")).to_have_text("SK-15")
    expect(page.locator("#td-reason")).to_have_text("Dan had no diamonds and had to trump with a ♥ (SK-15).")
    expect(page.locator("#td-local")).to_be_visible()
    watched.shot("offline", full=False)
    _in_view_and_live(page, "#td-answer")
    assert taps.count == 11
    assert not _offline_noise(watched.problems)
