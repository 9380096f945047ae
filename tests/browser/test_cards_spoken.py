"""Cards are said in words to a screen reader, in Swedish and German (issue 50, point 4).

A phone at 390×844 in each language opens the trick referee (an illegal deal), the trick dispute (a trick
tapped card by card), the Knaker referee (a pile tapped, then a play) and Schwimmen's hand value page. The test
reads Chromium's own accessibility tree (CDP ``Accessibility.getFullAXTree``): no node's accessible name holds a
card code ("10S", "KC") or an English rank letter standing alone ("J", "K♠"), the rank buttons are named in the
language, and the verdicts name the cards in words ("spader kung", "Pik König"). What a user types into a text
field is not a name and is left out, as is the text inside a control that is read by its own name. The Knaker
verdict must land in the live region node that was on the page before the answer (a replaced region is not read).
Screenshots in ``test-artifacts/browser/cards-spoken-*``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import LOCALES, PHONE, LiveServer, watch

pytestmark = pytest.mark.browser

#: A card code of the contract ("10S", "KC"), and a rank letter standing alone ("J", "K♠", "A").
CODE = re.compile(r"\b(10|[2-9JQKA])[SHDC]\b")
BARE_RANK = re.compile(r"(?<![\w-])[JQKA](?![\w-])")
#: The letter rank buttons' names (a number keeps its digit: its visible label is its name, WCAG 2.5.3) and the
#: words a verdict must use, per language (the app's catalogs).
WORDS = {
    "sv": {"ranks": {"J": "knekt", "Q": "dam", "K": "kung", "A": "ess"},
           "tricks": ("spader nio", "spader kung"), "knaker": "spader kung", "schwimmen": "klöver ess"},
    "de": {"ranks": {"J": "Bube", "Q": "Dame", "K": "König", "A": "Ass"},
           "tricks": ("Pik Neun", "Pik König"), "knaker": "Pik König", "schwimmen": "Kreuz Ass"},
}


def _phone(browser: Any, lang: str) -> Any:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True,
                                  locale=LOCALES[lang])
    context.set_default_timeout(20_000)
    return context.new_page()


def _open(page: Any, base: str, lang: str, path: str) -> None:
    page.goto(f"{base}/lang/{lang}?next={quote(path, safe='')}")
    expect(page.locator("html")).to_have_attribute("lang", lang)


def names(page: Any) -> list[tuple[str, str]]:
    """Every (role, accessible name) of the page's accessibility tree, text fields' own contents left out."""
    nodes = page.context.new_cdp_session(page).send("Accessibility.getFullAXTree")["nodes"]
    by_id = {n["nodeId"]: n for n in nodes}

    def in_text_field(n: dict[str, Any]) -> bool:
        """Typed text, or the text inside a control whose children are presentational (ARIA: a button, an image,
        a radio or a checkbox is read by its own name, not by its text)."""
        while n.get("parentId") in by_id:
            n = by_id[n["parentId"]]
            if n.get("role", {}).get("value") in ("textbox", "searchbox", "button", "img", "image", "radio",
                                                  "checkbox"):
                return True
        return False

    out = []
    for n in nodes:
        name = str(n.get("name", {}).get("value", "") or "")
        if n.get("ignored") or not name.strip() or in_text_field(n):
            continue
        out.append((str(n.get("role", {}).get("value", "")), name))
    return out


def no_card_codes(page: Any, where: str) -> list[tuple[str, str]]:
    """The page's names, after checking none is a card code or a bare rank letter."""
    found = names(page)
    bad = [(role, name) for role, name in found if CODE.search(name) or BARE_RANK.search(name)]
    assert not bad, f"{where}: cards not said in words: {bad[:8]}"
    return found


def _rank_buttons(found: list[tuple[str, str]], lang: str) -> None:
    buttons = {name for role, name in found if role == "button"}
    assert set(WORDS[lang]["ranks"].values()) <= buttons, buttons


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_trick_referee_and_dispute_say_cards_in_words(live_server: LiveServer, browser: Any, artifacts: Path,
                                                      lang: str) -> None:
    page = _phone(browser, lang)
    watched = watch(page, artifacts, f"cards-spoken-{lang}-")
    words = WORDS[lang]
    # Svängknack, hearts trumps: Bo plays 5♠ under 9♠ but shows K♠ later: he had to beat it (SK-15).
    deal = "9S 5S 2S / 3S KS 4S"
    _open(page, live_server.url, lang,
          f"/referee/tricks/svangknack?players=Anna,Bo,Cia&leader=Anna&trump=H&deal={quote(deal)}")
    reason = page.locator("#tr-verdict #tr-reason")
    expect(reason).to_contain_text(words["tricks"][0])
    expect(reason).to_contain_text(words["tricks"][1])
    five = "spader fem" if lang == "sv" else "Pik fünf"
    expect(page.locator("#tr-verdict .tr-rule")).to_contain_text(f"Bo: {five}")
    page.locator(".tr-ranks").scroll_into_view_if_needed()
    watched.shot("trick-referee")
    _rank_buttons(no_card_codes(page, "trick referee"), lang)

    # The dispute: K♦ led by Bo, Cia 5♦, Dan 3♣, Anna A♦; Dan is known to have had a diamond.
    _open(page, live_server.url, lang, "/referee/tricks/svangknack/dispute")
    page.locator("#td-players").fill("Anna, Bo, Cia, Dan")
    page.locator("#td-leader").fill("Bo")
    page.locator("label.pick", has=page.locator('input[name="trump"][value="H"]')).tap()
    for suit, rank in (("D", "K"), ("D", "5"), ("C", "3"), ("D", "A")):
        page.locator("label.pick", has=page.locator(f'input[name="suit"][value="{suit}"]')).tap()
        page.locator(f'#td-ranks button[value="{rank}"]').tap()
    page.locator("#td-slots label.pick", has=page.locator('input[value="3C"]')).tap()
    page.locator("#td-facts label.toggle", has=page.locator('input[value="suit"]')).tap()
    expect(page.locator("#td-answer.illegal")).to_be_visible()
    slot = page.locator('#td-slots input[value="3C"]')
    expect(slot).to_have_attribute("aria-label", "Dan: " + ("klöver tre" if lang == "sv" else "Kreuz drei"))
    watched.shot("trick-dispute")
    _rank_buttons(no_card_codes(page, "trick dispute"), lang)
    assert not watched.problems, watched.problems
    page.context.close()


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_knaker_referee_says_cards_and_keeps_its_live_region(live_server: LiveServer, browser: Any,
                                                             artifacts: Path, lang: str) -> None:
    page = _phone(browser, lang)
    watched = watch(page, artifacts, f"cards-spoken-{lang}-")
    _open(page, live_server.url, lang, "/referee/knaker")
    region = page.locator("#kr-verdict").element_handle()
    assert region is not None and region.get_attribute("aria-live") == "polite"

    def choose(name: str, value: str) -> None:
        page.locator("label.pick", has=page.locator(f'input[name="{name}"][value="{value}"]')).tap()

    # A 5 on a king is too low (KN-3).
    choose("suit", "S")
    page.locator('#kr-ranks button[value="K"]').tap()
    expect(page.locator("#kr-verdict.kr-busy")).to_have_count(0)
    choose("target", "lay")
    choose("suit", "H")
    page.locator('#kr-ranks button[value="5"]').tap()
    expect(page.locator("#kr-reason")).to_contain_text(WORDS[lang]["knaker"])
    connected, said = region.evaluate("n => [n.isConnected, n.textContent]")
    assert connected, "the verdict's live region was replaced, so a screen reader does not read the verdict"
    assert WORDS[lang]["knaker"] in said
    expect(page.locator('#kr-pile .kr-card[data-code="KS"]')).to_have_attribute("aria-label", WORDS[lang]["knaker"])
    watched.shot("knaker-referee")
    _rank_buttons(no_card_codes(page, "Knaker referee"), lang)
    assert not watched.problems, watched.problems
    page.context.close()


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_schwimmen_cards_are_named_in_words(live_server: LiveServer, browser: Any, artifacts: Path,
                                            lang: str) -> None:
    page = _phone(browser, lang)
    watched = watch(page, artifacts, f"cards-spoken-{lang}-")
    _open(page, live_server.url, lang, "/referee/schwimmen/value?deck=32&card=AC&card=KC&card=9C")
    expect(page.locator("#sw-value")).to_have_text("30")
    found = no_card_codes(page, "Schwimmen's hand value")
    assert any(WORDS[lang]["schwimmen"] in name for role, name in found if role == "checkbox"), found
    assert any(WORDS[lang]["schwimmen"] in name and "30" in name for _, name in found), found
    watched.shot("schwimmen-value")
    assert not watched.problems, watched.problems
    page.context.close()
