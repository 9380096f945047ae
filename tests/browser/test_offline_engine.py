"""The referee in the phone after an offline reload, and round forms judged by it (issue 16, with issue 15).

The service worker keeps Pyodide and the engine bundle as the page loads them
(and, on a match page, fetches them ahead), so that after the page is
reloaded with no network the engine still starts from the phone's cache. On
a match page with no network, a round the engine refuses is refused at the
tap with its rule and reason in the page's language, as the server would,
instead of waiting in the queue; a legal one waits, as pending.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import LiveServer, require_browser_engine, watch
from tests.browser.network import back_online
from tests.browser.test_offline_queue import at_the_table, offline_noise, queue, save_round, stored

pytestmark = pytest.mark.browser

@pytest.fixture(autouse=True)
def _engine_installed() -> None:
    require_browser_engine()


def test_the_knaker_referee_answers_after_an_offline_reload(live_server: LiveServer, phone: Any,
                                                            artifacts: Path) -> None:
    from playwright.sync_api import expect

    page = phone
    watched = watch(page, artifacts, "offline-engine-")
    page.goto(live_server.url + "/referee/knaker")
    page.wait_for_function("() => navigator.serviceWorker && navigator.serviceWorker.controller !== null")
    page.reload()  # now under the worker: the engine's files are kept as they load
    page.wait_for_function("() => window.RefereeEngine !== undefined")
    page.evaluate("() => RefereeEngine.load().then(() => true)")
    page.context.set_offline(True)
    page.reload()
    expect(page.locator("#offline-bar")).to_contain_text("Offline copy of this page from")
    page.wait_for_function("() => window.RefereeEngine !== undefined")
    answer = page.evaluate("() => RefereeEngine.ask('knaker/play', {pile: ['9H'], lays: [['4D']]}, 'sv')")
    assert answer["status"] == 200 and answer["body"]["legal"] is False and answer["body"]["rule"] == "KN-3"
    files = page.evaluate("() => RefereeEngine.files")  # versioned URLs, Pyodide's under its version's folder
    assert any(re.search(r"/static/pyodide/[0-9a-f]{12}/pyodide\.asm\.wasm$", f) for f in files), files
    for name in files:  # from the phone's cache
        assert page.evaluate("(u) => caches.match(u).then(r => !!r)", name), name
    assert not offline_noise(watched.problems)


def _engine_kept(page: Any) -> None:
    """Wait until the leader's phone has kept the engine's files (on its own: Chromium reports no data saving).

    Waits for the files in the phone's cache, not for the offer's "ready": when an earlier page of the same
    phone finished the fetch (the rounds before it were saved while it ran), this page has nothing to offer and
    rightly says nothing (``test_a_leader_phone_saving_data_is_asked_first_with_the_size``: a kept engine is
    not offered again).
    """
    deadline = time.monotonic() + 60
    while not page.evaluate("() => Promise.all(RefereeEngine.files.map(u => caches.match(u)))"
                            ".then(rs => rs.length > 5 && rs.every(Boolean))"):
        assert time.monotonic() < deadline, "the engine's files were not kept within 60 s"
        page.wait_for_timeout(250)


def test_a_round_that_breaks_a_rule_is_refused_offline_at_the_tap(live_server: LiveServer, phone: Any,
                                                                   artifacts: Path) -> None:
    """Svängknack, no network, the page in Swedish: tricks that do not add up are refused at once with SK-8."""
    from playwright.sync_api import expect

    from referee import ledger
    from referee.offline import browser

    base, page = live_server.url, phone
    watched, match = at_the_table(base, page, artifacts, "offline-engine-")
    page.goto(f"{base}/lang/sv?next=/matches/{match['id']}")  # the page in Swedish, kept so by the worker
    _engine_kept(page)
    amounts = ["pot", "trick-value", *match["players"]]  # the boxes and rows with money in them
    before = _marked_texts(page, amounts)
    page.context.set_offline(True)
    page.reload()  # the offline copy: the engine starts from the phone's cache
    expect(page.locator("#offline-bar")).to_contain_text("Sparad kopia av sidan")

    with live_server.app.app_context():
        m = ledger.get_match(match["id"])
        data = {"game": "svangknack", "digits": 2, "state": dict(m.snapshot.state), "players": list(m.seats)}
    status, expected = browser.answer("round/form", data | {"form": {"tricks_3": "1"}}, "sv")
    assert status == 422 and expected["rule"] == "SK-8"

    save_round(page, [("Dan", 1)])  # Dan 1 trick, Bo (svängare) none: 1 of 3
    refusal = page.locator("#round-form .offline-check")
    expect(refusal).to_have_text(expected["error"], timeout=20_000)
    expect(refusal).to_contain_text("SK-8")
    expect(page.locator('#round-form tr[data-name="Dan"] input[value="1"]')).to_be_checked()  # the taps kept
    assert queue(page) == []  # refused on the spot: nothing waits
    watched.shot("refused-at-tap", full=False)

    save_round(page, [("Bo", 2)])  # now 2 + 1: legal, waits as pending, with the state it leads to
    expect(page.locator("#offline-entries li.pending")).to_have_count(1)
    entry = queue(page)[0]
    assert entry["after"] and entry["view"]["dealer"] == "Bo" and entry["view"]["svangare"] == "Cia"
    expect(page.locator("#dealer")).to_have_text("Bo")        # the match as the leader expects it
    expect(page.locator("#svangare")).to_have_text("Cia")
    expect(page.locator("#svangare")).to_have_class(re.compile("offline-expected"))
    # Said in words, not by amber italics alone (issue 50.6): "(väntat)" shown after it, and read with it.
    expect(page.locator("#svangare")).to_have_attribute("data-note", "väntat")
    assert "väntat" in page.locator("#svangare").evaluate("e => getComputedStyle(e, '::after').content")
    expect(page.locator('#round-form tr[data-name="Cia"]')).to_have_class(re.compile("svangare"))

    save_round(page, [("Anna", 3)])  # round 2, against round 1's result (Cia svängar): Anna 3, Cia 0, legal
    expect(page.locator("#offline-entries li.pending")).to_have_count(2)
    # The pot, a trick's value, the next round and the balances as the two waiting rounds leave them, in the
    # page's language; compared below with the server's own page once they are saved.
    expect(page.locator("#round-no")).to_have_text("3")
    expect(page.locator("#round-form .bar-summary")).to_have_text("Inget valt: Dan svängar ensam.")  # form emptied
    toggle = page.locator("label.toggle", has=page.locator("#passed"))  # the sväng would pass from Dan to Anna
    expect(toggle).to_have_text("Svängen lämnad vidare till Anna")
    toggle.tap()
    expect(page.locator("#round-form .bar-summary")).to_have_text("Svängen lämnad vidare till Anna")
    toggle.tap()
    projected = _marked_texts(page, amounts)
    assert projected != before and list(projected) == amounts and all(projected.values())
    expect(page.locator("#pot")).to_have_class(re.compile("offline-expected"))
    expect(page.locator("table.balances[data-money] td.offline-expected")).to_have_count(len(match["players"]))
    watched.shot("projected", full=False)
    # Round 3, checked against where the two waiting rounds lead: Dan svängar now, and alone he takes 3 (SK-7).
    save_round(page, [("Dan", 2)])
    expect(refusal).to_contain_text("SK-7", timeout=20_000)
    expect(refusal).to_contain_text("Dan")
    expect(page.locator("#offline-entries li.pending")).to_have_count(2)

    back_online(page)
    expect(page.locator("#offline-queue")).to_be_hidden()
    assert [r[0] for r in stored(live_server.app, match["id"])] == [1, 2]
    page.goto(f"{base}/matches/{match['id']}")
    expect(page.locator("#pot")).not_to_have_class(re.compile("offline-expected"))
    assert _marked_texts(page, amounts) == projected  # what the phone expected is what the server says
    assert not offline_noise(watched.problems)


def test_a_schloapfer_deal_waiting_offline_shows_the_next_deal_as_the_server_will(
        live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    """Every box the phone marks as expected says, once the deal is saved, what the server's page says."""
    from playwright.sync_api import expect

    from tests.browser.test_offline_queue import api, open_controlled

    base, page = live_server.url, phone
    watched = watch(page, artifacts, "offline-engine-schloapfer-")
    seats = ["Anna", "Bo", "Cia"]
    night = api(base, "/api/nights", {"name": "Hut night", "currency": "EUR", "players": seats})
    match = api(base, f"/api/nights/{night['id']}/matches",
                {"game": "schloapfer", "players": seats, "dealer": "Anna", "stake": "2.00"}, night["edit_token"])
    open_controlled(page, base, night, match)
    _engine_kept(page)
    before = _marked_texts(page, ["dealer", "deal-no"])
    page.context.set_offline(True)
    for name, eyes in (("Anna", 112), ("Bo", 40)):
        page.locator(f'#round-form tr[data-name="{name}"] input.sl-eyes-in').fill(str(eyes))
    page.locator('#round-form tr[data-name="Cia"] label.toggle').tap()  # Cia passed
    expect(page.locator("#eyes-left-n")).to_have_text("0")
    page.locator("#save-round").tap()
    # Checked first by the engine, which starts from the phone's cache as the network goes (seconds on a
    # loaded machine: 8 s measured at load 7 on two cores).
    expect(page.locator("#offline-entries li.pending strong")).to_have_text(["Deal 1"], timeout=30_000)
    expect(page.locator("#offline-next")).to_have_text("The next deal you enter is deal 2.")
    # The form is empty for the next deal: nobody passed yet, all 152 eyes to account for.
    expect(page.locator("#eyes-left-n")).to_have_text("152")
    expect(page.locator('#round-form tr[data-name="Cia"] input.sl-eyes-in')).to_be_enabled()
    expect(page.locator("#deal-no")).to_have_class(re.compile("offline-expected"), timeout=20_000)
    marked = page.locator(".offline-expected").evaluate_all(
        "els => els.map(e => e.id || e.closest('tr').querySelector('th').textContent.trim())")
    assert {"dealer", "deal-no", "at-stake", "in-match", *seats} <= set(marked), marked  # (no pot: loser pays)
    expected = _marked_texts(page, marked)
    assert expected["deal-no"] == "2" and expected["dealer"] != before["dealer"]
    watched.shot("projected", full=False)

    back_online(page)
    expect(page.locator("#offline-entries li")).to_have_count(0)
    page.goto(f"{base}/matches/{match['id']}")
    expect(page.locator(".offline-expected")).to_have_count(0)
    assert _marked_texts(page, marked) == expected  # the server's page, box by box
    assert not offline_noise(watched.problems)


def _marked_texts(page: Any, keys: list[str]) -> dict[str, str]:
    """The texts of glance boxes (by id) and balance rows (by player), spaces of every width as one."""
    shown = page.evaluate("""(keys) => Object.fromEntries(keys.map(k => {
        const el = document.getElementById(k) || [...document.querySelectorAll('table.balances[data-money] tr')]
            .filter(r => r.querySelector('th').textContent.trim() === k).map(r => r.querySelector('td'))[0];
        return [k, el ? el.textContent : null];
    }))""", keys)
    return {k: " ".join(v.replace("\u00a0", " ").replace("\u202f", " ").split()) for k, v in shown.items() if v}


def _engine_requests(page: Any) -> list[str]:
    """Every request of the page (and its workers) for a file of the in-browser engine, as it happens."""
    seen: list[str] = []
    page.context.on("request", lambda req: seen.append(req.url)
                    if "/static/pyodide/" in req.url or "pyengine-worker" in req.url else None)
    return seen


def test_a_guest_phone_fetches_no_engine_file(live_server: LiveServer, browser: Any, phone: Any,
                                             artifacts: Path) -> None:
    """Issue 29: a view-only phone at the table (the view link) never fetches the offline engine."""
    from playwright.sync_api import expect

    from tests.browser.conftest import PHONE
    from tests.browser.test_offline_queue import night_and_match, open_controlled

    base = live_server.url
    night, match = night_and_match(base)
    open_controlled(phone, base, night, match)  # the leader's phone, which does fetch it (checked below)
    _engine_kept(phone)
    guest = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="en-US").new_page()
    try:
        seen = _engine_requests(guest)
        watched = watch(guest, artifacts, "guest-engine-")
        guest.goto(f"{base}/v/{night['view_token']}")
        guest.wait_for_function("() => navigator.serviceWorker && navigator.serviceWorker.controller !== null")
        guest.goto(f"{base}/matches/{match['id']}")
        expect(guest.locator("main h1")).to_be_visible()
        guest.wait_for_timeout(3000)  # well past the leader's phone's moment to fetch it (1 s after the load)
        guest.reload()
        guest.wait_for_timeout(2000)
        assert guest.locator("#engine-offer").count() == 0
        assert seen == [], seen
        assert guest.evaluate("() => caches.has('referee-engine-snapshot')") is False  # issue 49: nor started
        assert not watched.problems
    finally:
        guest.context.close()


def test_a_leader_phone_saving_data_is_asked_first_with_the_size(live_server: LiveServer, phone: Any,
                                                                 artifacts: Path) -> None:
    """A phone that saves data fetches nothing until the leader taps the offer, which names the size; then
    the progress shows, and the files stay in the phone's cache."""
    from playwright.sync_api import expect

    from tests.browser.test_offline_queue import night_and_match, open_controlled

    page = phone
    page.add_init_script("Object.defineProperty(navigator, 'connection', {value: {saveData: true}})")
    seen = _engine_requests(page)
    watched = watch(page, artifacts, "engine-offer-")
    night, match = night_and_match(live_server.url)
    open_controlled(page, live_server.url, night, match)
    offer = page.locator("#engine-offer button")
    expect(offer).to_have_text(re.compile(r"^Make this phone ready for no network: \d\.\d MB$"))
    megabytes = float(offer.inner_text().split(": ")[1].split()[0])
    assert 3.0 <= megabytes <= 5.0  # what the wire carries, compressed (issue 29: at most 5 MB)
    page.wait_for_timeout(1500)
    assert seen == [], seen  # not one byte of it before the tap
    page.evaluate("() => { const o = document.getElementById('engine-offer'); window.offerStates = [];"
                  " new MutationObserver(() => offerStates.push(o.dataset.state + ' ' +"
                  " o.querySelector('progress').value))"
                  ".observe(o, {attributes: true, subtree: true, childList: true, characterData: true}); }")
    offer.tap()
    expect(page.locator("#engine-offer[data-state=ready]")).to_be_visible(timeout=90_000)
    expect(page.locator("#engine-offer [role=status]")).to_have_text("This phone is ready for no network.")
    expect(offer).to_be_hidden()
    states = page.evaluate("() => offerStates")
    assert any(s.startswith("progress ") and s != "progress 0" for s in states), states  # the progress moved
    versioned = re.compile(r"/pyodide/([0-9a-f]{12}/|referee_engine\.zip\?v=)")
    assert seen and all("/static/pyodide/" not in url or versioned.search(url) for url in seen), seen
    assert page.evaluate("() => Promise.all(RefereeEngine.files.map(u => caches.match(u)))"
                         ".then(rs => rs.every(Boolean))")
    page.reload()  # kept: not offered again, not fetched again
    page.wait_for_timeout(2000)
    expect(page.locator("#engine-offer")).to_be_hidden()
    assert not offline_noise(watched.problems)
