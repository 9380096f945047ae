"""Numbers and words on a phone, in Swedish and German (issue 42.6, 42.7): Chromium at 390×844, both backends.

A leader makes a night on a Swedish (or German) phone, the matches of every game get a round each (a new
stake, a closed Kul match, a Knaker dot after its first game), and the phone walks the night's pages:
each match's history, its void page, the reopen page of the closed match, the new match form, the
settlement with its payment fields, the protocols and the settlement sheet. On every one:

- no amount with a decimal point (``\\d\\.\\d\\d``) in the text, a field's value or its placeholder;
- on a German page or sheet no word of the app's Swedish (``tests/web/test_words.py``'s glossary; a
  game's own terms excepted, Svängknack's "knackade");
- a match is titled as the table counts it ("Kul 2"), a one-tap save and a reopen are named so.

The night's settlement sheet fetched as a PDF app does (no Accept-Language, no cookie: ``urllib`` with
the view link) is in the night's language. Screenshots go to ``test-artifacts/browser/words-*.png``.
"""

from __future__ import annotations

import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee import ledger
from tests.browser.conftest import LOCALES, PHONE, LiveServer, serve, watch
from tests.conftest import make_app
from tests.web.test_words import PLAYERS, POINT, money_points, pdftotext, swedish_words

pytestmark = pytest.mark.browser

#: The new night form's labels and button, and the night page's "new match" link, per language.
FORM = {"sv": ("Kvällens namn", "Spelare, en per rad", "Skapa kvällen"),
        "de": ("Name des Abends", "Spieler, einer pro Zeile", "Abend anlegen")}


@pytest.fixture
def live(backend: str, tmp_path: Path) -> Iterator[LiveServer]:
    """The app on a live port, on each backend (as ``live_server``, whose database is SQLite only)."""
    # A page's live stream notices a closed phone within half a second (not after the database is gone).
    yield from serve(make_app(backend, tmp_path, WTF_CSRF_ENABLED=True, LIVE_PING=0.5))


def matches_of(server: LiveServer, night_id: int) -> dict[str, int]:
    """A match of every game in the night, two Kul (the second closed), a round in each."""
    with server.app.app_context():
        night = ledger.get_night(night_id)
        ids = {
            "svangknack": ledger.create_match(night, "svangknack", PLAYERS, "Anna", "3.00").id,
            "kul": ledger.create_match(night, "kul", PLAYERS, "Anna", "1.00").id,
            "kul2": ledger.create_match(night, "kul", PLAYERS, "Anna", "1.00").id,
            "schloapfer": ledger.create_match(night, "schloapfer", PLAYERS, "Anna", "1.00").id,
            "schwimmen": ledger.create_match(night, "schwimmen", PLAYERS, "Anna", "1.50").id,
            "knaker": ledger.create_match(night, "knaker", PLAYERS, "Anna", "1.00",
                                          {"double_deck": True, "payout": "loser_pays"}).id,
        }
        ledger.add_round(ids["svangknack"], {"svangare": "Bo", "participants": ["Bo"]})
        ledger.add_round(ids["svangknack"], {"svangare": "Dan", "participants": ["Dan"], "new_stake": "6.00"})
        ledger.add_round(ids["kul"], {"last_trick": "Cia"})
        ledger.add_round(ids["kul2"], {"last_trick": "Bo"})
        ledger.close_match(ids["kul2"], "award", "Bo")
        ledger.add_round(ids["schloapfer"], {"eyes": {"Bo": 40, "Cia": 40, "Dan": 20, "Göran": 12, "Anna": 8}})
        ledger.add_round(ids["schwimmen"], {"ended_by": "knock", "by": "Göran", "losers": ["Bo"]})
        ledger.add_round(ids["knaker"], {"events": [{"out": [p]} for p in PLAYERS[:4]]})
        ledger.add_round(ids["knaker"], {"dot": {"player": "Bo", "offence": "swap_face_down"}})
    return ids


def seen(page: Any) -> str:
    """What the reader meets: the page's visible text, and its fields' values and placeholders."""
    return str(page.evaluate("""() => document.body.innerText + ' ' + Array.from(
        document.querySelectorAll('input, textarea')).map(e => e.value + ' ' + (e.placeholder || '')).join(' ')"""))


def check(page: Any, lang: str, where: str, game: str | None = None) -> list[str]:
    return check_text(seen(page), lang, where, game)


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_a_night_of_every_game_in_numbers_and_words(browser: Any, live: LiveServer, artifacts: Path,
                                                     lang: str) -> None:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True,
                                  locale=LOCALES[lang])
    context.set_default_timeout(10_000)
    page = context.new_page()
    watched = watch(page, artifacts, f"words-{lang}-")
    base = live.url
    try:
        # The leader makes the night on the phone, in its language.
        name_label, players_label, create = FORM[lang]
        page.goto(f"{base}/nights/new")
        page.get_by_label(name_label).fill("Fredag")
        page.get_by_label(players_label).fill("\n".join(PLAYERS))
        page.get_by_role("button", name=create).tap()
        page.get_by_role("heading", name="Fredag").wait_for()
        night_id = int(page.url.rsplit("/", 1)[1])
        ids = matches_of(live, night_id)
        with live.app.app_context():
            view = ledger.get_night(night_id).view_token

        found: list[str] = []
        page.goto(f"{base}/nights/{night_id}")
        found += check(page, lang, "night")
        links = page.locator("ul.list a").all_inner_texts()
        assert "Kul 1" in links and "Kul 2" in links, links
        assert not any(re.search(r"#\d", t) for t in links), links
        watched.shot("night")
        for key, match_id in ids.items():
            game = "kul" if key == "kul2" else key
            page.goto(f"{base}/matches/{match_id}")
            found += check(page, lang, f"{key} history", game)
            watched.shot(f"{key}")
            page.locator("#round-1 a.void-link").tap()
            page.locator("h1").wait_for()
            found += check(page, lang, f"{key} void page", game)
        # The closed Kul's "reopen" opens a page that says so, not "void round 2".
        page.goto(f"{base}/matches/{ids['kul2']}")
        page.locator("#round-2 a.void-link").tap()
        reopen = {"sv": "Öppna partiet igen", "de": "Partie wieder öffnen"}[lang]
        page.get_by_role("heading", name=reopen).wait_for()
        found += check(page, lang, "reopen page", "kul")
        watched.shot("reopen")
        # Kul's one tap saves round 2 of Kul 1, named so.
        page.goto(f"{base}/matches/{ids['kul']}")
        page.locator(".kul-form button[name=last_trick]").first.tap()
        saved = {"sv": "Runda 2 sparad.", "de": "Runde 2 gespeichert."}[lang]
        page.locator(".flash.ok", has_text=saved).wait_for()
        # The new match form, every game's.
        for game in ("svangknack", "kul", "schloapfer", "schwimmen", "knaker"):
            page.goto(f"{base}/nights/{night_id}/matches/new?game={game}")
            found += check(page, lang, f"new {game} match", game)
        watched.shot("new-match")
        # The settlement with its payment fields, prefilled.
        page.goto(f"{base}/nights/{night_id}/settlement")
        found += check(page, lang, "settlement")
        amounts = page.locator('input[name="amount"]')
        assert amounts.count() > 0
        assert all(re.fullmatch(r"\d+,\d\d", amounts.nth(i).input_value()) for i in range(amounts.count()))
        watched.shot("settlement")
        # The sheets as this phone gets them, read back as text.
        for key, match_id in ids.items():
            text = pdftotext(page.request.get(f"{base}/matches/{match_id}/protocol.pdf").body())
            found += check_text(text, lang, f"{key} protocol.pdf", "kul" if key == "kul2" else key)
        text = pdftotext(page.request.get(f"{base}/nights/{night_id}/settlement.pdf").body())
        found += check_text(text, lang, "settlement.pdf")
        assert found == []

        # A PDF app: no Accept-Language, no cookie, the view link. The night was made in ``lang``.
        with urllib.request.urlopen(f"{base}/nights/{night_id}/settlement.pdf?view={view}", timeout=60) as resp:
            text = pdftotext(resp.read())
        assert {"sv": "Avräkning: Fredag", "de": "Abrechnung: Fredag"}[lang] in text, text[:400]
        assert not POINT.search(text), text[:800]
        assert watched.problems == []
    finally:
        page.goto("about:blank")  # the last match page's live stream ends
        context.close()


def check_text(text: str, lang: str, where: str, game: str | None = None) -> list[str]:
    found = [f"{where}: {hit}" for hit in money_points(text)]
    if lang == "de":
        found += [f"{where}: {hit}" for hit in swedish_words(text, game)]
    return found
