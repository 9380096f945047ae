"""The referee with no network at all (issue 16): the same Python engine in the phone's browser.

Pyodide (from the npm registry, ``make browser-engine``) runs the engine
bundle built from ``referee/engine`` at install time. These tests first load
the page online (as the phone did before the network went, so the files are
at hand), then cut the network with Playwright's ``context.set_offline(True)``
and ask again: the answers must be the rules' answers with their IDs, and a
table of cases must get *identical* answers from the server's API and from
the engine in the browser.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import LiveServer, require_browser_engine, watch

pytestmark = pytest.mark.browser

@pytest.fixture(autouse=True)
def _engine_installed() -> None:
    require_browser_engine()


#: (question, body) pairs asked of the API and of the engine in the browser.
CASES: list[tuple[str, dict[str, Any]]] = [
    ("knaker/play", {"pile": ["5H", "5S", "5C"], "lays": [["5D"]]}),                  # flip, KN-4.2
    ("knaker/play", {"pile": ["5H", "5S", "7C"], "lays": [["5D"]]}),                  # 7s transparent: no flip
    ("knaker/play", {"pile": ["9H"], "lays": [["4D"]]}),                              # too low, KN-3
    ("knaker/play", {"pile": ["9H"], "lays": [["10D"]]}),                             # a 10 burns
    ("knaker/play", {"pile": ["9H"], "lays": [["4D"]], "last_card": True}),
    ("knaker/play", {"pile": ["9H", "9H"], "lays": [["4D"]]}),                        # a card twice: 400
    ("knaker/play", {"pile": ["QQ"], "lays": [["4D"]]}),                              # no such card: 400
    ("schwimmen/value", {"cards": ["AC", "KC", "9C"], "deck": 32}),
    ("schwimmen/value", {"cards": ["7D", "7H", "7S"], "deck": 32}),
    ("schwimmen/value", {"cards": ["AC", "KC"]}),                                     # SW-10, 422
    ("schloapfer/eyes", {"cards": ["AS", "10S", "JH", "9H"], "trump": "H"}),
    ("schloapfer/eyes", {"cards": ["2S"], "trump": "H"}),                             # not in the deck
    ("svangknack/dealer", {"draws": {"Anna": "QH", "Bo": "QS", "Cia": "2C"}}),
    ("svangknack/dealer", {"draws": {"Anna": "QH"}}),
    ("tricks", {"game": "svangknack", "trump": "H", "players": ["Anna", "Bo", "Cia"], "leader": "Anna",
                "tricks": [["AS", "KS", "2S"], ["5H", "9H", "QH"], ["3D", "4C", "7D"]]}),
    ("tricks", {"game": "svangknack", "trump": "H", "players": ["Anna", "Bo", "Cia"], "leader": "Anna",
                "tricks": [["9S", "5S", "2S"], ["AD", "KS"]]}),                  # Bo had to overtake 9S, SK-15
    ("tricks", {"game": "kul", "players": ["Anna", "Bo", "Cia"], "leader": "Anna",
                "tricks": [["9S", "5S", "KS"]], "hands": {"Cia": ["2S", "3D"]},
                "ask": {"player": "Cia", "card": "3D"}}),
    ("tricks", {"game": "svangknack", "trump": "H", "players": ["Anna", "Bo"], "leader": "Anna",
                "tricks": [["9S", "9S"]]}),                                        # a card twice: 400
]


def _api(client: Any, name: str, body: dict[str, Any], lang: str) -> dict[str, Any]:
    resp = client.post(f"/api/referee/{name}", json=body, headers={"Accept-Language": lang})
    return {"status": resp.status_code, "body": resp.get_json()}


def _browser_answer(page: Any, name: str, body: dict[str, Any], lang: str) -> dict[str, Any]:
    answer = page.evaluate("([n, b, l]) => RefereeEngine.ask(n, b, l)", [name, body, lang])
    return {"status": answer["status"], "body": answer["body"]}


def _engine_page(page: Any, url: str) -> None:
    """Open the Knaker referee page online and wait until its engine has loaded (and is cached)."""
    page.goto(url + "/referee/knaker")
    page.wait_for_function("window.RefereeEngine !== undefined")
    page.evaluate("RefereeEngine.load().then(() => true)")


def test_same_answers_from_the_api_and_from_the_browser(live_server: LiveServer, phone: Any,
                                                        artifacts: Path) -> None:
    watched = watch(phone, artifacts, "engine_offline-")
    _engine_page(phone, live_server.url)
    phone.context.set_offline(True)
    client = live_server.app.test_client()
    compared = 0
    for lang in ("en", "sv", "de"):
        for name, body in CASES:
            server = _api(client, name, body, lang)
            here = _browser_answer(phone, name, body, lang)
            assert here == server, f"{name} {json.dumps(body)} [{lang}]"
            compared += 1
    # The cases cover every kind of answer: an answer, a rule violation, bad input.
    statuses = {_api(client, n, b, "en")["status"] for n, b in CASES}
    assert statuses == {200, 400, 422}
    assert compared == 3 * len(CASES)
    assert not watched.problems


def _offline_noise(problems: list[str]) -> list[str]:
    """Problems other than the failed fetches of a phone with no network (expected here)."""
    return [p for p in problems if "ERR_INTERNET_DISCONNECTED" not in p]


def test_knaker_referee_answers_with_no_network(live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    from playwright.sync_api import expect

    page = phone
    watched = watch(page, artifacts, "engine_offline-")
    _engine_page(page, live_server.url)
    page.context.set_offline(True)

    def choose(name: str, value: str) -> None:
        page.locator("label.pick", has=page.locator(f'input[name="{name}"][value="{value}"]')).tap()

    def card(rank: str, suit: str) -> None:
        choose("suit", suit)
        page.locator(f'#kr-ranks button[value="{rank}"]').tap()

    for suit in "HSC":
        card("5", suit)
    expect(page.locator("#kr-pile .kr-card")).to_have_text(["5♥", "5♠", "5♣"])
    choose("target", "lay")
    card("5", "D")
    # Four 5s in a row flip the pile (KN-4.2), answered by the engine on this phone.
    expect(page.locator("#kr-rule")).to_have_text("KN-4.2")
    expect(page.locator("#kr-yes")).to_contain_text("Yes, allowed")
    expect(page.locator("#kr-local")).to_contain_text("on this phone")
    watched.shot("knaker-flip")

    page.locator("#kr-undo").tap()
    card("4", "D")
    # A 4 on a 5 is too low (KN-3): a refusal with its rule, still with no network.
    expect(page.locator("#kr-rule")).to_have_text("KN-3")
    expect(page.locator("#kr-yes")).to_contain_text("No, not allowed")
    expect(page.locator("#kr-reason")).to_contain_text("4")
    watched.shot("knaker-refused")
    assert not _offline_noise(watched.problems)


def test_a_round_is_checked_in_the_browser_as_on_the_server(live_server: LiveServer, phone: Any,
                                                            artifacts: Path) -> None:
    """``round/check`` against the match's snapshot: the server's 422 (SK-8) and the next state, offline."""
    from referee import ledger

    watched = watch(phone, artifacts, "engine_offline-")
    client = live_server.app.test_client()
    night = client.post("/api/nights", json={"name": "N", "currency": "SEK",
                                             "players": ["Anna", "Bo", "Cia", "Dan"]}).get_json()
    auth = {"Authorization": f"Bearer {night['edit_token']}"}
    match = client.post(f"/api/nights/{night['id']}/matches", headers=auth, json={
        "game": "svangknack", "players": ["Anna", "Bo", "Cia", "Dan"], "dealer": "Anna", "stake": "3.00"}).get_json()

    def snapshot() -> dict[str, Any]:
        with live_server.app.app_context():
            return dict(ledger.get_match(match["id"]).snapshot.state)

    _engine_page(phone, live_server.url)
    phone.context.set_offline(True)
    bad = {"svangare": "Bo", "participants": ["Bo", "Dan"], "tricks": {"Bo": 2, "Dan": 2}}
    good = {"svangare": "Bo", "participants": ["Bo", "Dan"], "tricks": {"Bo": 2, "Dan": 1}}
    for lang in ("en", "sv", "de"):
        here = _browser_answer(phone, "round/check", {"game": "svangknack", "digits": 2, "state": snapshot(),
                                                      "round": bad}, lang)
        server = client.post(f"/api/matches/{match['id']}/rounds", json=bad,
                             headers={**auth, "Accept-Language": lang})
        assert (here["status"], here["body"]) == (server.status_code, server.get_json())
        assert here["body"]["rule"] == "SK-8"
    here = _browser_answer(phone, "round/check", {"game": "svangknack", "digits": 2, "state": snapshot(),
                                                  "round": good}, "en")
    server = client.post(f"/api/matches/{match['id']}/rounds", json=good, headers=auth)
    assert here["status"] == 200 and server.status_code == 201
    assert here["body"] == {"legal": True, "state": server.get_json()["state"]}
    assert not _offline_noise(watched.problems)
