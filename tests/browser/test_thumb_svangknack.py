"""One thumb at a noisy table (issue 19): a Svängknack night of 8 players on a 390×844 phone.

Measured, not looked at: after every step of a round the save button lies
inside the viewport; every interactive element of every page (night, new
match, match with its round form, error, void, close confirmation, closed
match, settlement, payment details) is at least 44×44 CSS px; axe-core
reports no violation on any of those pages in English, Swedish and German.
An error marks the rows it is about; closing asks once more; the closed match
looks closed; a paid transfer shows what is still open.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import LiveServer, new_night, watch
from tests.browser.polish import PLAYERS, assert_axe, assert_targets, every_language, save_in_view

pytestmark = pytest.mark.browser

def test_svangknack_with_eight_players_one_thumb(live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    page, base = phone, live_server.url
    watched = watch(page, artifacts, "thumb-svangknack-")
    shot = lambda name: page.screenshot(path=str(artifacts / f"after-svangknack-{name}.png"))  # noqa: E731
    night_url = new_night(page, base, "Svängknack på åtta", PLAYERS, currency="SEK")
    night_path = night_url.removeprefix(base)
    assert_targets(page, "night")
    assert_axe(page, "night")

    page.get_by_role("link", name="New match").tap()
    page.get_by_role("heading", name="New match").wait_for()
    game = page.locator('select[name="game"]')
    if game.input_value() != "svangknack":
        with page.expect_navigation():
            game.select_option("svangknack")
    new_match_path = page.url.removeprefix(base).split("?")[0]
    # Options by their names, not their codes (issue 19, point 8).
    options = page.locator("#match-form select[name^=opt_] option").all_inner_texts()
    assert options and not any(re.search(r"\b[a-z]+_[a-z_]+\b", o) for o in options), options
    hints = " ".join(page.locator("#match-form .option .hint").all_inner_texts())
    assert "dealer_only" not in hints and "fresh_pot" not in hints, hints
    assert_targets(page, "new match")
    assert_axe(page, "new match")
    shot("new-match")
    page.get_by_label("First dealer").select_option("Anna")
    page.get_by_label("Stake").fill("3.00")
    page.get_by_role("button", name="Start the match").tap()
    page.locator("#round-form").wait_for()
    match_path = page.url.removeprefix(base)
    match_id = int(match_path.rsplit("/", 1)[1])
    rows = page.locator("#round-form tr.player-row")
    assert rows.count() == 8

    # The svängare (Bo) always plays: no knock toggle in that row, a "plays" mark instead.
    bo = page.locator('#round-form tr[data-name="Bo"]')
    assert not bo.locator("label.toggle").is_visible() and bo.locator(".always").is_visible()
    # The headers stand over their columns.
    head = page.locator("#round-form table.tricks thead th")
    knock_col = page.locator('#round-form tr[data-name="Anna"] td').nth(0).bounding_box()
    tricks_from = page.locator('#round-form tr[data-name="Anna"] td').nth(1).bounding_box()
    tricks_to = page.locator('#round-form tr[data-name="Anna"] td').nth(4).bounding_box()
    knocked, tricks = head.nth(1).bounding_box(), head.nth(2).bounding_box()
    assert abs(knocked["x"] - knock_col["x"]) < 2 and abs(knocked["width"] - knock_col["width"]) < 2
    assert abs(tricks["x"] - tricks_from["x"]) < 2
    assert abs(tricks["x"] + tricks["width"] - tricks_to["x"] - tricks_to["width"]) < 2

    # --- a round, measured after every step: Bo 2 tricks, Hanna (the last row) 1 -----------------------
    save_in_view(page, "#save-round")
    assert_targets(page, "match")
    assert_axe(page, "match")
    shot("match")
    expect(page.locator(".bar-summary")).to_contain_text("Bo svängar alone")
    bo.locator("label.pick").nth(2).tap()
    save_in_view(page, "#save-round")
    page.locator('#round-form tr[data-name="Hanna"] label.pick').nth(1).tap()
    save_in_view(page, "#save-round")
    expect(page.locator(".bar-summary")).to_have_text("Bo 2 tricks · Hanna 1 trick")
    shot("round-tapped")
    page.locator("#save-round").tap()
    page.locator(".flash.ok", has_text="Round 1 saved").wait_for()
    save_in_view(page, "#save-round")  # the "Round 1 saved." note does not push it away

    # --- an error: Cia (svängare now) 2 and Dan 2 add up to 4 (SK-8): both rows marked ------------------
    page.locator('#round-form tr[data-name="Cia"] label.pick').nth(2).tap()
    save_in_view(page, "#save-round")
    page.locator('#round-form tr[data-name="Dan"] label.pick').nth(2).tap()
    save_in_view(page, "#save-round")
    page.locator("#save-round").tap()
    page.locator("#round-form p.error[role=alert]", has_text="SK-8").wait_for()
    save_in_view(page, "#save-round")
    marked = page.locator("#round-form tr.row-error").evaluate_all("rs => rs.map(r => r.dataset.name)")
    assert marked == ["Cia", "Dan"], marked
    assert page.locator('#round-form tr[data-name="Cia"] .row-flag').is_visible()
    assert_targets(page, "match with an error")
    assert_axe(page, "match with an error")
    shot("error")
    page.locator('#round-form tr[data-name="Dan"] label.pick').nth(1).tap()
    save_in_view(page, "#save-round")
    page.locator("#save-round").tap()
    page.locator(".flash.ok", has_text="Round 2 saved").wait_for()
    assert page.locator("#round-form tr.row-error").count() == 0

    # --- void round 2 from the history: the link is a 44 px button ---------------------------------------
    void = page.locator("#round-2 a.void-link")
    box = void.bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44
    void.tap()
    page.get_by_role("heading", name="Void round 2").wait_for()
    void_path = page.url.removeprefix(base)
    assert_targets(page, "void page")
    assert_axe(page, "void page")
    page.get_by_role("button", name="Void round 2").tap()
    page.locator(".flash.ok", has_text="Round 2 is void").wait_for()

    # --- closing: only the choice that matters, then a confirmation ---------------------------------------
    page.locator("details.close-box summary").tap()
    assert not page.locator("#close-to").is_visible()  # "split among all players" needs no player
    page.get_by_label("The pot").select_option("award")
    assert page.locator("#close-to").is_visible()
    page.get_by_label("The pot").select_option("split")
    assert not page.locator("#close-to").is_visible()
    page.locator("details.close-box").get_by_role("button", name="Close the match").tap()
    page.get_by_role("heading", name="Close the match?").wait_for()
    assert "the pot was split among all players" in page.locator("#close-confirm").inner_text()
    assert_targets(page, "close confirmation")
    assert_axe(page, "close confirmation")
    shot("close-confirm")
    page.get_by_role("link", name="Back to the match").tap()  # not closed by one tap
    page.locator("#round-form").wait_for()
    page.locator("details.close-box summary").tap()
    page.locator("details.close-box").get_by_role("button", name="Close the match").tap()
    page.locator("#confirm-close").tap()
    page.locator(".flash.ok", has_text="The match is closed").wait_for()

    # --- a closed match looks closed ----------------------------------------------------------------------
    assert page.url == f"{base}/matches/{match_id}"
    for gone in ("#dealer", "#svangare", "#round-form", "#trick-referee-link", "details.close-box"):
        assert page.locator(gone).count() == 0, gone
    assert "Next round" not in page.locator("main").inner_text()
    assert "the pot was split among all players" in page.locator("#finished").inner_text()
    close_row = page.locator(".history li.close-event")
    assert "Closed: the pot was split among all players" in close_row.inner_text()
    assert close_row.locator("a.void-link").inner_text().startswith("Reopen…")
    assert_targets(page, "closed match")
    assert_axe(page, "closed match")
    shot("closed")

    # --- settlement: the transfers come first; a payment shows what is still open -----------------------
    page.get_by_role("link", name="Settlement: who pays whom").tap()
    page.get_by_role("heading", name="Settlement").wait_for()
    settlement_path = page.url.removeprefix(base)
    first = page.locator("ul.transfers li").first.bounding_box()
    assert first["y"] + 60 < 844, first  # the first transfer is on the first screen
    assert_targets(page, "settlement")
    assert_axe(page, "settlement")
    shot("settlement")
    payer = page.locator("ul.transfers li").first.locator("strong").first.inner_text()
    page.locator("ul.transfers li").first.get_by_role("button", name="Paid").tap()
    page.locator(".flash.ok", has_text="Payment recorded").wait_for()
    line = page.locator("table.result tr", has=page.locator(f"th:text-is('{payer}')"))
    if line.count() == 0:  # the name cell holds the per-match lines too
        line = page.locator("table.result tr").filter(has_text=payer).first
    cell = line.locator("td")
    assert "settled" in cell.inner_text() or "result" in cell.inner_text()
    assert_targets(page, "settlement after a payment")
    assert_axe(page, "settlement after a payment")
    shot("settlement-paid")
    # Voiding the payment asks once more.
    page.locator(".void-payment").first.get_by_role("button", name="Void").tap()
    page.get_by_role("heading", name="Void this payment?").wait_for()
    assert_targets(page, "void payment confirmation")
    assert_axe(page, "void payment confirmation")
    page.locator("#confirm-void-payment").tap()
    page.locator(".flash.ok", has_text="The payment is void").wait_for()
    page.get_by_role("link", name="Anna").first.tap()
    page.get_by_role("heading", name="Payment details of Anna").wait_for()
    details_path = page.url.removeprefix(base)
    assert_targets(page, "payment details")

    # A new edit link asks once more too.
    page.goto(night_url)
    page.locator("details", has_text="Edit link for a second phone").locator("summary").tap()
    page.get_by_role("button", name="New edit link (logs out other phones)").tap()
    page.get_by_role("heading", name="New edit link?").wait_for()
    assert_targets(page, "new edit link confirmation")
    assert_axe(page, "new edit link confirmation")
    page.locator("#revoke-confirm").get_by_role("link").tap()
    page.get_by_role("heading", name="Svängknack på åtta").wait_for()

    every_language(page, base, [night_path, new_match_path, match_path, void_path, settlement_path, details_path])
    assert watched.problems == []
