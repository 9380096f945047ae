"""The correct page at 390×844 in Swedish and German (issue 42.1): Correct… from the history, the tricks changed,
the later rounds' money shown before the confirm, the correction stored.

The match is the eleven Svängknack rounds of ``tests/web/test_corrections.py``, whose money is worked out
there by hand: round 3 corrected to Dan 2 tricks, Anna 1 moves Anna's, Bo's, Cia's and Dan's balances after
each of rounds 4..11 by ``CORRECT_DELTA`` and never the pot.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee import ledger
from tests.browser.conftest import LiveServer, second_phone
from tests.browser.test_void_preview import inside_viewport, kr, played
from tests.web.test_corrections import CORRECT_DELTA, DEALT, PLAYED, PLAYERS

WORDS = {"sv": ("Rätta…", "Rätta runda 3", "Runda 3 rättad"),
         "de": ("Korrigieren…", "Runde 3 korrigieren", "Runde 3 korrigiert")}


def test_a_leader_corrects_round_3_from_the_history_seeing_the_later_money_first(
        live_server: LiveServer, browser: Any, artifacts: Path) -> None:
    for lang, (link, heading, flashed) in WORDS.items():
        mid, token = played(live_server)
        phone = second_phone(browser, live_server.url, token, mid, artifacts, f"correct-{lang}-", lang=lang)
        page = phone.page
        page.locator("#round-3 .correct-link", has_text=link).click()
        page.get_by_role("heading", name=heading).wait_for()
        assert page.locator("#round-3 .correct-link").count() == 0
        # The form as round 3 was entered: Dan took 3, Anna 0.
        assert page.locator('input[name="tricks_3"][value="3"]').is_checked()
        assert page.locator('input[name="tricks_0"][value="0"]').is_checked()
        page.locator('input[name="tricks_3"][value="2"]').locator("xpath=..").click()
        page.locator('input[name="tricks_0"][value="1"]').locator("xpath=..").click()
        phone.shot("form")
        page.locator("#save-round").click()
        page.locator("#later-changes li").first.wait_for()
        items = page.locator("#later-changes li").all_inner_texts()
        assert len(items) == 8, items  # rounds 4..11
        for k, text in zip(range(4, 12), items, strict=True):
            for i, name in enumerate(PLAYERS):
                now, then = PLAYED[k - 1][i], PLAYED[k - 1][i] + CORRECT_DELTA[i]
                assert f"{name} {kr(now, lang)} → {kr(then, lang)}" in text, (k, text)
        inside_viewport(page, "#later-changes")
        phone.shot("preview")
        with live_server.app.app_context():  # the preview wrote nothing
            assert ledger.get_match(mid).snapshot.version == 11
        page.locator("#confirm-correct-button").click()
        page.get_by_text(flashed).wait_for()
        assert page.url.endswith(f"/matches/{mid}")
        phone.shot("done")
        assert not phone.problems, phone.problems
        page.context.close()
        with live_server.app.app_context():
            rounds = ledger.match_json(ledger.get_match(mid))["rounds"]
            assert rounds[2]["corrected_by"] == 12 and rounds[11]["payload"]["tricks"] == {"Dan": 2, "Anna": 1}
            for k in range(4, 12):  # every later round keeps its dealer and svängare
                facts = rounds[k - 1]["facts"]
                assert (facts["dealer"], facts["svangare"]) == DEALT[k - 1], k
