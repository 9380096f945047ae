"""The void page shows, before the void is confirmed, what it changes in later rounds (issue 42.1), at 390×844.

The match is the eleven Svängknack rounds of ``tests/web/test_corrections.py``, whose money after each round
is computed there by hand from the rules: voiding round 3 changes Anna's, Bo's and Dan's balance after each of
rounds 4..11 and never the pot; voiding the last round changes nothing later.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee import ledger
from tests.browser.conftest import PHONE, LiveServer, second_phone
from tests.web.test_corrections import PLAYED, PLAYERS, ROUNDS, VOID_DELTA, A


def kr(ore: int, lang: str) -> str:
    """Öre as the page writes them in Swedish and German: a decimal comma (issue 42.6), never a point."""
    sign = "-" if ore < 0 else ""
    return f"{sign}{abs(ore) // 100},{abs(ore) % 100:02d}"


def played(server: LiveServer) -> tuple[int, str]:
    with server.app.app_context():
        night = ledger.create_night("Kväll", "SEK", PLAYERS)
        match = ledger.create_match(night, "svangknack", PLAYERS, A, "3.00")
        for payload in ROUNDS:
            ledger.add_round(match.id, payload)
        return match.id, night.edit_token


def inside_viewport(page: Any, selector: str) -> None:
    box = page.locator(selector).bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 0.5, box


def test_the_void_page_shows_the_later_rounds_money_before_the_void(
        live_server: LiveServer, browser: Any, artifacts: Path) -> None:
    mid, token = played(live_server)
    for lang, heading, nothing in (("sv", "Vad som ändras i senare rundor", "Inget senare ändras"),
                                   ("de", "Was sich in späteren Runden ändert", "Später ändert sich nichts")):
        phone = second_phone(browser, live_server.url, token, mid, artifacts, f"void-preview-{lang}-", lang=lang)
        page = phone.page
        page.goto(f"{live_server.url}/matches/{mid}/rounds/3/void")
        page.get_by_role("heading", name=heading).wait_for()
        items = page.locator("#later-changes li").all_inner_texts()
        assert len(items) == 8, items  # rounds 4..11
        for k, text in zip(range(4, 12), items, strict=True):
            for i, name in enumerate(PLAYERS):
                now, then = PLAYED[k - 1][i], PLAYED[k - 1][i] + VOID_DELTA[i]
                shown = f"{name} {kr(now, lang)} → {kr(then, lang)}"
                assert (shown in text) == bool(VOID_DELTA[i]), (k, shown, text)  # Cia's never changes
            assert "→" in text and "Pot" not in text and "Pott" not in text, text
            assert text.startswith({"sv": f"Runda {k}:", "de": f"Runde {k}:"}[lang]), text  # as the table counts
        inside_viewport(page, "#later-changes")
        phone.shot("round-3")
        page.goto(f"{live_server.url}/matches/{mid}/rounds/11/void")
        page.get_by_text(nothing).wait_for()
        phone.shot("round-11")
        assert not phone.problems, phone.problems
        page.context.close()
    with live_server.app.app_context():  # looking at the previews wrote nothing
        match = ledger.get_match(mid)
        assert match.snapshot.version == 11 and not any(r["void"] for r in ledger.match_json(match)["rounds"])
