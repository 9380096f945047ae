"""Kul at the table (issue 42.2): one tap undoes the deal just saved; one tap starts the next game (KU-4).

On a 390×844 phone in Swedish and German, on both backends, against a real threaded server. Kul of
Anna, Bo and Cia, stake 5.00, 2 marks to win (the short variant, so that the next game must carry the option),
Anna dealing. Every fact is read back through the API (GET /api/matches/<id>, /api/nights/<id>), not off the page.
"""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import LOCALES, PHONE, LiveServer, watch
from tests.browser.test_offline_queue import api

pytestmark = pytest.mark.browser

SEATS = ["Anna", "Bo", "Cia"]
#: What each language says after the undo, and of the next game (the words of the flash messages).
UNDONE = {"sv": "Giv 2 är ångrad", "de": "Runde 2 ist rückgängig gemacht"}
NEXT = {"sv": "Nästa spel", "de": "Nächstes Spiel"}
REASON = {"sv": "ångrad direkt efter att den sparades", "de": "direkt nach dem Speichern rückgängig gemacht"}


def read(base: str, path: str, token: str) -> Any:
    req = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def kul_night(base: str) -> tuple[dict[str, Any], dict[str, Any]]:
    night = api(base, "/api/nights", {"name": "Kul night", "currency": "SEK", "players": SEATS})
    match = api(base, f"/api/nights/{night['id']}/matches",
                {"game": "kul", "players": SEATS, "dealer": "Anna", "stake": "5.00",
                 "options": {"marks_to_win": 2}}, night["edit_token"])
    return night, match


def leader_phone(browser: Any, base: str, night: dict[str, Any], match_id: int, lang: str) -> Any:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True,
                                  locale=LOCALES[lang])
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(f"{base}/e/{night['edit_token']}")
    page.goto(f"{base}/lang/{lang}?next=/matches/{match_id}")
    return page


def tap_last_trick(page: Any, name: str) -> None:
    with page.expect_navigation():
        page.locator(f'form.kul-form button[value="{name}"]').tap()


def rounds(base: str, match_id: int, token: str) -> list[tuple[int, str, bool]]:
    """(number, who took the last trick, void) of every deal, through the API."""
    got = read(base, f"/api/matches/{match_id}", token)["rounds"]
    return [(r["round"], r["payload"].get("last_trick", ""), bool(r["void"])) for r in got if r["kind"] == "round"]


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_a_kul_deal_is_undone_with_one_tap_within_seconds(served: LiveServer, browser: Any, artifacts: Path,
                                                           lang: str) -> None:
    base = served.url
    night, match = kul_night(base)
    mid, token = match["id"], night["edit_token"]
    leader = watch(leader_phone(browser, base, night, mid, lang), artifacts, f"kul-undo-{lang}-")
    page = leader.page
    assert not page.locator("#kul-undo").count()  # nothing saved yet: nothing to undo

    tap_last_trick(page, "Cia")  # deal 1: meant
    tap_last_trick(page, "Bo")  # deal 2: a mis-tap
    saved = time.monotonic()
    undo = page.locator("#kul-undo")
    assert undo.is_visible() and "Bo" in undo.inner_text()
    box = undo.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]  # in view after the save
    page.context.set_offline(True)  # offline the undo is hidden (it could not reach the server) ...
    page.wait_for_function("() => document.getElementById('kul-undo').hidden")
    page.context.set_offline(False)  # ... and back when the phone is
    page.wait_for_function("() => !document.getElementById('kul-undo').hidden")
    leader.shot("offer")
    page.locator("#undo-deal").tap()
    page.locator(".flash.ok", has_text=UNDONE[lang]).wait_for()
    assert time.monotonic() - saved < 10
    leader.shot("undone")

    # Exactly that deal is void, through the API: deal 1 stands, Cia has her mark, Bo none; the deal moved on once.
    assert rounds(base, mid, token) == [(1, "Cia", False), (2, "Bo", True)]
    shown = read(base, f"/api/matches/{mid}", token)
    assert shown["rounds"][1]["void_reason"] == REASON[lang]  # the ledger's void, with its reason in the page's words
    state = shown["state"]
    assert state["marks"] == {"Anna": 0, "Bo": 0, "Cia": 1} and state["dealer"] == "Bo" and not state["finished"]
    assert not page.locator("#kul-undo").count()  # the undone deal offers nothing more

    # The next deal's offer goes by itself after its seconds, and nothing below it moves when it goes.
    tap_last_trick(page, "Anna")  # deal 3
    form_top = page.locator("form.kul-form").bounding_box()["y"]
    page.locator("#kul-undo").wait_for(state="detached", timeout=15_000)
    assert page.locator("form.kul-form").bounding_box()["y"] == form_top
    assert rounds(base, mid, token)[-1] == (3, "Anna", False)
    assert not leader.problems, leader.problems
    page.context.close()


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_a_won_kul_starts_the_next_game_with_one_tap_the_winner_dealing(served: LiveServer, browser: Any,
                                                                         artifacts: Path, lang: str) -> None:
    base = served.url
    night, match = kul_night(base)
    mid, token = match["id"], night["edit_token"]
    leader = watch(leader_phone(browser, base, night, mid, lang), artifacts, f"kul-next-{lang}-")
    page = leader.page
    assert not page.locator("#next-game").count()  # not before the game is won
    tap_last_trick(page, "Cia")
    tap_last_trick(page, "Bo")
    tap_last_trick(page, "Cia")  # Cia's second mark: she takes the pot (KU-4)
    button = page.locator("#next-game")
    assert button.is_visible() and "Cia" in button.inner_text()
    leader.shot("won")

    # A double tap, as two requests at once with the same form (real concurrency), then the tap itself (a third).
    statuses = page.evaluate("""() => {
        const form = document.querySelector('#next-game').form;
        const send = () => fetch(form.action, {method: 'POST', body: new FormData(form), redirect: 'manual'})
                             .then(r => r.status);
        return Promise.all([send(), send()]);
    }""")
    assert all(s in (0, 302, 303) for s in statuses), statuses  # (a manual redirect reads as status 0)
    button.tap()
    page.locator(".flash.ok", has_text=NEXT[lang]).wait_for()
    leader.shot("next-game")

    matches = read(base, f"/api/nights/{night['id']}", token)["matches"]
    assert [m["id"] for m in matches if m["id"] != mid] == [int(page.url.rsplit("/", 1)[1])]  # one new match
    new_id = int(page.url.rsplit("/", 1)[1])
    new = read(base, f"/api/matches/{new_id}", token)
    assert new["game"] == "kul" and new["players"] == SEATS
    state = new["state"]
    assert state["dealer"] == "Cia"  # KU-4: the winner deals the next game
    assert state["stake"] == "5.00" and state["pot"] == "15.00" and state["options"] == {"marks_to_win": 2}
    assert state["marks"] == {"Anna": 0, "Bo": 0, "Cia": 0} and not state["finished"]
    assert page.locator("form.kul-form button").count() == 3  # the new game's one-tap form
    assert not leader.problems, leader.problems
    page.context.close()
