"""The Knaker referee page on a phone (issue 7), in headless Chromium at 390×844.

The leader builds a pile by tapping cards, asks about a legal and an illegal
play, lays the legal one (a flip empties the pile) and undoes it. Card taps,
"next lay" and "undo" run in the page's script without loading a page (only
the verdict is fetched); "Lay it" posts the form. Verdicts expected from
``shared/rules/knaker.md`` part B (reasoning in the comments); screenshots go
to ``test-artifacts/browser/knaker_referee-*.png``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import LiveServer, watch

pytestmark = pytest.mark.browser


def test_knaker_referee_on_a_phone(live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    from playwright.sync_api import expect

    page = phone
    # The refused "Lay it" answers 422 on purpose; the browser logs that status as an error (expected noise).
    watched = watch(page, artifacts, "knaker_referee-")
    problems, shot = watched.problems, watched.shot
    loads: list[str] = []  # whole pages loaded (GET or the form's POST)
    page.on("request", lambda req: loads.append(f"{req.method} {req.url}") if req.resource_type == "document" else None)
    fetched: list[str] = []
    # Questions to the server; the in-browser engine's own files (static/, fetched by its worker) aside.
    page.on("request", lambda req: fetched.append(req.url)
            if req.resource_type == "fetch" and "/static/" not in req.url else None)

    def choose(name: str, value: str) -> None:
        page.locator("label.pick", has=page.locator(f'input[name="{name}"][value="{value}"]')).tap()

    def card(rank: str, suit: str | None = None) -> None:
        if suit:
            choose("suit", suit)
        page.locator(f'#kr-ranks button[value="{rank}"]').tap()

    def undo() -> None:
        """Undo, and wait for its answer: it redraws the board, and a tap on a card being redrawn is lost."""
        page.locator("#kr-undo").tap()
        expect(page.locator("#kr-verdict.kr-busy")).to_have_count(0)

    pile = page.locator("#kr-pile .kr-card")
    lays = page.locator("#kr-lays li")

    page.goto(live_server.url + "/referee/knaker")
    expect(page.get_by_role("heading", name="Knaker referee")).to_be_visible()
    assert page.evaluate("document.documentElement.classList.contains('js')")
    expect(page.locator("#kr-ask")).to_be_hidden()  # the script answers at once
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing sticks out sideways

    # --- build the pile: 5♥ 5♠ 5♣ (the target is the pile at first) -----------------------
    card("5", "H")
    card("5", "S")
    card("5", "C")
    expect(pile).to_have_text(["5♥", "5♠", "5♣"])
    expect(page.locator("#kr-pile-count")).to_have_text("3 cards")
    # A second 5♥ does not exist in one deck: the tap is taken back with a message.
    card("5", "H")
    expect(page.locator("#kr-error")).to_contain_text("5H appears 2 times")
    expect(pile).to_have_text(["5♥", "5♠", "5♣"])
    shot("01-pile")

    # --- a legal play: 5♦ makes four 5s in a row, the pile flips, lay again (KN-4.2) ------
    choose("target", "lay")
    card("5", "D")
    expect(lays).to_have_count(1)
    expect(lays.first).to_contain_text("5♦")
    expect(page.locator("#kr-rule")).to_have_text("KN-4.2")
    expect(page.locator("#kr-yes")).to_contain_text("Yes")
    expect(page.locator("#kr-answer")).to_contain_text("The pile flips.")
    expect(page.locator("#kr-answer")).to_contain_text("Lay again.")
    page.locator("#kr-verdict").scroll_into_view_if_needed()
    shot("02-legal")

    # --- an illegal one: undo the 5♦, ask about 3♦ instead: lower than a 5 (KN-3) ---------
    undo()
    expect(lays).to_have_count(0)
    card("3")
    expect(page.locator("#kr-rule")).to_have_text("KN-3")
    expect(page.locator("#kr-yes")).to_contain_text("No")
    expect(page.locator("#kr-rule-text")).to_contain_text("equal to or higher")
    expect(page.locator("#kr-lays li.bad")).to_have_count(1)
    shot("03-illegal")

    # --- "Lay it" refuses it; undo, lay the 5♦ instead: the flip empties the pile ---------
    page.locator("#kr-lay").tap()
    expect(page.locator("#kr-refused")).to_be_visible()
    expect(pile).to_have_count(3)
    undo()
    expect(lays).to_have_count(0)
    card("5", "D")
    expect(page.locator("#kr-rule")).to_have_text("KN-4.2")
    page.locator("#kr-lay").tap()
    expect(page.locator("#kr-laid")).to_contain_text("The pile flips.")
    expect(pile).to_have_count(0)
    expect(page.locator("#kr-pile")).to_have_text("empty")
    expect(lays).to_have_count(0)
    shot("04-laid")

    # --- undo brings back the pile and the play, with its verdict --------------------------
    page.locator("#kr-undo").tap()
    expect(pile).to_have_text(["5♥", "5♠", "5♣"])
    expect(lays.first).to_contain_text("5♦")
    expect(page.locator("#kr-rule")).to_have_text("KN-4.2")

    # --- toggles reach the verdict: as the last card, a flip loses (KN-7) -------------------
    page.locator("label.toggle", has=page.locator("#kr-last-card")).tap()
    expect(page.locator("#kr-outcome")).to_contain_text("Lost")
    expect(page.locator("#kr-outcome")).to_contain_text("KN-7")
    shot("05-undone-last-card")

    # Card taps, undo and toggles loaded no page; only "Lay it" (twice) did.
    assert [u.split(" ")[0] for u in loads] == ["GET", "POST", "POST"], loads
    assert all(u.endswith("/referee/knaker/verdict") for u in fetched) and len(fetched) >= 8
    assert not problems, problems
