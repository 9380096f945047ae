"""The engine in the phone starts from a memory snapshot (issue 49), and answers exactly as a normal start does.

The first start on a phone is a normal one (Pyodide starts CPython, the engine is imported); the worker then
keeps a snapshot of that interpreter in Cache Storage, keyed by Pyodide's versioned folder and the engine
bundle's versioned URL. The next page starts from it. A snapshot made for another engine bundle (a rules
change gives the bundle a new URL) is not used and is replaced; one that Pyodide refuses is dropped and the
start is a normal one. These tests drive Debian's Chromium on a phone viewport and read how the worker started
(``RefereeEngine.started``), not how long it took: the times are bench/phone.py's business.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import LiveServer, require_browser_engine, watch
from tests.browser.test_engine_offline import CASES, _api, _browser_answer

pytestmark = pytest.mark.browser

SNAPSHOTS = "referee-engine-snapshot"

#: A legal first round of each game's fresh match (4 players: Anna deals), and a refused one where the game has
#: one to refuse: a queued round is checked with ``round/check`` against the match's snapshot.
ROUNDS: dict[str, list[dict[str, Any]]] = {
    "svangknack": [{"svangare": "Bo", "participants": ["Bo", "Dan"], "tricks": {"Bo": 2, "Dan": 1}},
                   {"svangare": "Bo", "participants": ["Bo", "Dan"], "tricks": {"Bo": 2, "Dan": 2}}],
    "kul": [{"last_trick": "Cia"}, {"last_trick": "Zed"}],
    "schloapfer": [{"eyes": {"Anna": 45, "Bo": 30, "Cia": 12, "Dan": 70}}],
    "schwimmen": [{"ended_by": "knock", "by": "Bo", "points": {"Anna": 30, "Bo": 31, "Cia": 20, "Dan": 25}},
                  {"ended_by": "knock", "by": "Bo", "points": {"Anna": 30}}],
    "knaker": [{"events": [{"out": ["Anna"]}, {"out": ["Bo"]}, {"out": ["Cia"]}]}],
}


@pytest.fixture(autouse=True)
def _engine_installed() -> None:
    require_browser_engine()


def _open(page: Any, url: str) -> dict[str, Any]:
    """The Knaker referee page (it warms the engine), until the engine answers: how it started."""
    page.goto(url + "/referee/knaker")
    page.wait_for_function("window.RefereeEngine !== undefined")
    page.evaluate("RefereeEngine.load().then(() => true)")
    started: dict[str, Any] = page.evaluate("RefereeEngine.started")
    return started


def _kept(page: Any) -> list[str]:
    """Wait until this start's snapshot is kept (after a normal start); the keys in the snapshots' cache."""
    page.wait_for_function("() => RefereeEngine.snapshot !== null", timeout=60_000)
    assert page.evaluate("RefereeEngine.snapshot") == "snapshot-kept"
    keys: list[str] = page.evaluate(f"caches.open('{SNAPSHOTS}').then(c => c.keys()).then(ks => ks.map(k => k.url))")
    return keys


def _answers(page: Any, rounds: list[tuple[str, dict[str, Any], dict[str, Any]]]) -> list[Any]:
    """Every referee case in sv and de, and each game's queued rounds, as this page's engine answers them."""
    out: list[Any] = []
    for lang in ("sv", "de"):
        out += [_browser_answer(page, name, body, lang) for name, body in CASES]
    for game, state, payload in rounds:
        out.append(_browser_answer(page, "round/check", {"game": game, "digits": 2, "state": state,
                                                         "round": payload}, "de"))
    return out


def _fresh_rounds(live_server: LiveServer) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """Each game's fresh match (made through the API), its snapshot state and the rounds to check against it."""
    from referee import ledger

    client = live_server.app.test_client()
    players = ["Anna", "Bo", "Cia", "Dan"]
    night = client.post("/api/nights", json={"name": "N", "currency": "SEK", "players": players}).get_json()
    auth = {"Authorization": f"Bearer {night['edit_token']}"}
    out = []
    for game, payloads in ROUNDS.items():
        made = client.post(f"/api/nights/{night['id']}/matches", headers=auth, json={
            "game": game, "players": players, "dealer": "Anna",
            **({"stake": "3.00"} if game == "svangknack" else {})})
        assert made.status_code == 201, made.get_json()
        with live_server.app.app_context():
            state = dict(ledger.get_match(made.get_json()["id"]).snapshot.state)
        out += [(game, state, p) for p in payloads]
    return out


def test_the_second_start_is_from_the_snapshot_and_answers_the_same(live_server: LiveServer, phone: Any,
                                                                     artifacts: Path) -> None:
    watched = watch(phone, artifacts, "engine-snapshot-")
    rounds = _fresh_rounds(live_server)
    first = _open(phone, live_server.url)
    assert first["from"] == "normal", first
    keys = _kept(phone)
    assert len(keys) == 1 and "/engine-snapshot?bundle=" in keys[0], keys
    normal = _answers(phone, rounds)

    second = _open(phone, live_server.url)  # a new page: a new worker
    assert second["from"] == "snapshot", second
    assert second["phases"]["import"] < first["phases"]["import"] + 1000, (first, second)  # (looked at, not timed)
    from_snapshot = _answers(phone, rounds)
    assert from_snapshot == normal
    # …and both are the server's answers.
    client = live_server.app.test_client()
    assert from_snapshot[:len(CASES)] == [_api(client, n, b, "sv") for n, b in CASES]
    statuses = {a["status"] for a in from_snapshot[2 * len(CASES):]}
    assert statuses == {200, 400, 422} or statuses == {200, 422}, from_snapshot[2 * len(CASES):]
    assert len({json.dumps(a, sort_keys=True) for a in from_snapshot}) > 10  # (not one answer repeated)
    assert not watched.problems


def test_a_stale_snapshot_is_not_used_and_is_replaced(live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    """A rules change gives the bundle a new URL: the old bundle's snapshot is another key, never resumed."""
    watched = watch(phone, artifacts, "engine-snapshot-")
    _open(phone, live_server.url)
    (key,) = _kept(phone)
    stale = key.replace("bundle=", "bundle=/static/pyodide/0123456789ab/old-")
    phone.evaluate(f"""async () => {{
        const c = await caches.open('{SNAPSHOTS}');
        await c.put({json.dumps(stale)}, await c.match({json.dumps(key)}));
        await c.delete({json.dumps(key)});
    }}""")
    again = _open(phone, live_server.url)
    assert again["from"] == "normal", again  # the stale one was not resumed
    assert _kept(phone) == [key]  # and it is gone, the current one kept
    assert _browser_answer(phone, *CASES[2], "sv")["body"]["rule"] == "KN-3"
    assert not watched.problems


def test_a_refused_snapshot_falls_back_to_a_normal_start(live_server: LiveServer, phone: Any,
                                                         artifacts: Path) -> None:
    watched = watch(phone, artifacts, "engine-snapshot-")
    _open(phone, live_server.url)
    (key,) = _kept(phone)
    phone.evaluate(f"""async () => {{  // the right key, bytes no Pyodide can resume
        const junk = new Uint8Array(4096).fill(7);
        await (await caches.open('{SNAPSHOTS}')).put({json.dumps(key)}, new Response(junk));
    }}""")
    again = _open(phone, live_server.url)
    assert again["from"] == "normal", again
    assert _browser_answer(phone, *CASES[2], "de")["body"]["rule"] == "KN-3"
    _kept(phone)  # a good one again
    third = _open(phone, live_server.url)
    assert third["from"] == "snapshot", third
    assert not watched.problems
