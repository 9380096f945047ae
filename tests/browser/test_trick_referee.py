"""The trick referee page on a phone (issue 12): a Svängknack deal tapped card by card and entered
as the match's round with one tap; an overtaking violation answered with the network cut (issue 16).

Headless Chromium at 390×844. Verdicts expected from ``shared/rules/svangknack.md`` SK-15
(reasoning in the comments); screenshots go to ``test-artifacts/browser/trick_referee-*.png``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import LiveServer, watch
from tests.browser.test_engine_offline import _offline_noise
from tests.browser.test_knaker import stored

pytestmark = pytest.mark.browser


def _night_and_match(server: LiveServer) -> tuple[dict[str, Any], int]:
    client = server.app.test_client()
    night = client.post("/api/nights", json={"name": "Tricks", "currency": "SEK",
                                             "players": ["Anna", "Bo", "Cia"]}).get_json()
    auth = {"Authorization": f"Bearer {night['edit_token']}"}
    match = client.post(f"/api/nights/{night['id']}/matches", headers=auth,
                        json={"game": "svangknack", "players": ["Anna", "Bo", "Cia"], "dealer": "Anna",
                              "stake": "3.00"}).get_json()
    return night, int(match["id"])


def _tap(page: Any, card: str) -> None:
    rank, suit = card[:-1], card[-1]
    page.locator("label.pick", has=page.locator(f'input[name="suit"][value="{suit}"]')).tap()
    page.locator(f'#tr-ranks button[value="{rank}"]').tap()


def test_a_deal_tapped_and_entered_with_one_tap(live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    from playwright.sync_api import expect

    page = phone
    watched = watch(page, artifacts, "trick_referee-")
    night, match_id = _night_and_match(live_server)
    page.goto(f"{live_server.url}/e/{night['edit_token']}")
    page.goto(f"{live_server.url}/matches/{match_id}")
    page.locator("#trick-referee-link").tap()
    expect(page.get_by_role("heading", name="Trick referee")).to_be_visible()
    # From the match: the players in seat order, and the svängare (left of the dealer Anna) leads.
    expect(page.locator("#tr-players")).to_have_value("Anna, Bo, Cia")
    expect(page.locator("#tr-leader")).to_have_value("Bo")
    page.locator("label.pick", has=page.locator('input[name="trump"][value="H"]')).tap()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390

    # Trick 1: Bo AS, Cia KS, Anna 2S: Bo wins. Trick 2 (trumps): 5H, 9H, QH: each overtakes; Anna wins.
    # Trick 3: Anna 3D, Bo (void in diamonds, no trump left that the log shows) 4C, Cia 7D: Cia wins.
    for card in ("AS", "KS", "2S"):
        _tap(page, card)
    expect(page.locator("#tr-winners li")).to_have_text(["Trick 1: won by Bo"])
    expect(page.locator("#tr-next")).to_contain_text("Bo")
    for card in ("5H", "9H", "QH", "3D", "4C"):
        _tap(page, card)
    expect(page.locator("#tr-enter")).to_be_hidden()  # not complete yet
    _tap(page, "7D")
    expect(page.locator("#tr-winners li")).to_have_text(["Trick 1: won by Bo", "Trick 2: won by Anna",
                                                         "Trick 3: won by Cia"])
    expect(page.locator("#tr-yes")).to_contain_text("All legal")
    expect(page.locator("#tr-enter")).to_be_visible()
    box = page.locator("#tr-enter").bounding_box()
    assert box and box["height"] >= 44
    watched.shot("complete")

    page.locator("#tr-enter").tap()  # one tap enters the round
    expect(page.locator(".flash.ok")).to_contain_text("Round 1 saved.")
    rounds = stored(live_server, match_id)
    assert len(rounds) == 1
    assert rounds[0]["svangare"] == "Bo"
    assert rounds[0]["tricks"] == {"Anna": 1, "Bo": 1, "Cia": 1}
    watched.shot("entered")
    # The match page's history keeps the deal under its round, folded; one tap opens it.
    log = page.locator("#round-1 details.deal-log")
    expect(log.locator("summary")).to_contain_text("Deal · trump ♥ · led by Bo")
    expect(log.locator("li").first).to_be_hidden()
    log.locator("summary").tap()
    expect(log.locator("li")).to_have_text(["1. Bo A♠, Cia K♠, Anna 2♠ → Bo", "2. Bo 5♥, Cia 9♥, Anna Q♥ → Anna",
                                            "3. Anna 3♦, Bo 4♣, Cia 7♦ → Cia"])
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    log.scroll_into_view_if_needed()
    watched.shot("deal-in-history")
    assert not watched.problems


def test_an_overtaking_violation_with_no_network(live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    from playwright.sync_api import expect

    page = phone
    watched = watch(page, artifacts, "trick_referee-")
    page.goto(f"{live_server.url}/referee/tricks/svangknack")
    page.locator("#tr-players").fill("Anna, Bo, Cia")
    page.locator("#tr-leader").fill("Anna")
    page.locator("label.pick", has=page.locator('input[name="trump"][value="H"]')).tap()
    page.evaluate("RefereeEngine.load().then(() => true)")  # as a phone that had the page before
    page.context.set_offline(True)
    # Anna 9S, Bo 5S, Cia 2S; Anna leads AD and Bo plays KS: Bo held KS in trick 1, so he had to
    # overtake 9S with it (forced overtaking, SK-15), caught at trick 1, position 2.
    for card in ("9S", "5S", "2S", "AD", "KS"):
        _tap(page, card)
    expect(page.locator("#tr-rule")).to_have_text("SK-15")
    expect(page.locator("#tr-answer")).to_contain_text("Trick 1, Bo: five of spades")
    expect(page.locator("#tr-reason")).to_contain_text("king of spades")
    expect(page.locator("#tr-local")).to_be_visible()
    watched.shot("offline-sk15")
    assert not _offline_noise(watched.problems)
