"""Offline at the table (issue 15): rounds entered with no network are kept and sent once, in order.

The leader's phone loads the match page online (the service worker installs
and keeps the page), then the network goes: with Playwright's
``context.set_offline(True)``, or with the server stopped and started again
on the same port. Rounds tapped meanwhile wait in the phone's queue
(IndexedDB), shown as pending, survive a reload of the page (served from the
service worker's copy, which says it is an offline copy), and are sent in
order when the server answers: each ends saved, refused with its rule, or in
conflict with another phone's round. The database is the judge: each tap is
stored once, in the order tapped, or not at all when refused.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from tests.browser.conftest import PHONE, LiveServer, Watched, second_phone, watch
from tests.browser.network import back_online
from tests.components import free_port
from tests.conftest import make_app

pytestmark = pytest.mark.browser

SEATS = ["Anna", "Bo", "Cia", "Dan"]


# --- a server that can be stopped and started again on its port --------------------------------------------

class Restartable:
    """The app served by a thread on a fixed port; :meth:`stop` and :meth:`start` as a power cut would."""

    def __init__(self, app: Any, port: int) -> None:
        self.app, self.port, self.server, self.thread = app, port, None, None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        from werkzeug.serving import make_server

        self.server = make_server("127.0.0.1", self.port, self.app, threaded=True)
        self.thread = threading.Thread(target=self.server.serve_forever, name="referee-restartable", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            assert self.thread is not None
            self.thread.join(timeout=10)
            self.server = None


@pytest.fixture
def restartable(tmp_path: Path) -> Iterator[Restartable]:
    from referee.models import db

    app = make_app(f"sqlite:///{tmp_path}/q.sqlite3", tmp_path, WTF_CSRF_ENABLED=True)
    server = Restartable(app, free_port())
    server.start()
    try:
        yield server
    finally:
        server.stop()
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


# --- a proxy that cuts the answer to a round after the server committed it ----------------------------------

class CutAfterCommit:
    """Loopback proxy: forwards everything, except that the answer to the first form post of a round is
    swallowed and the browser's connection closed, so the phone never hears that the round was saved."""

    def __init__(self, upstream: int) -> None:
        self.upstream = upstream
        self.port = free_port()
        self.cuts = 0
        self.armed = True
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", self.port))
        self.sock.listen(64)
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        server = socket.create_connection(("127.0.0.1", self.upstream))
        cut = threading.Event()

        def up() -> None:
            try:
                while data := client.recv(65536):
                    if self.armed and re.match(rb"POST /matches/\d+/rounds ", data):
                        self.armed = False
                        cut.set()
                    server.sendall(data)
            except OSError:
                pass
            finally:
                server.close()

        threading.Thread(target=up, daemon=True).start()
        try:
            while data := server.recv(65536):
                if cut.is_set():  # the server has answered (so it committed): the phone hears nothing
                    self.cuts += 1
                    break
                client.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (client, server):  # shutdown first: it wakes the other thread's recv at once
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()

    def close(self) -> None:
        self.sock.close()


# --- helpers -------------------------------------------------------------------------------------------------

def api(base: str, path: str, body: Any, token: str | None = None) -> Any:
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json",
                                          **({"Authorization": f"Bearer {token}"} if token else {})})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def night_and_match(base: str) -> tuple[dict[str, Any], dict[str, Any]]:
    night = api(base, "/api/nights", {"name": "Cabin night", "currency": "SEK", "players": SEATS})
    match = api(base, f"/api/nights/{night['id']}/matches",
                {"game": "svangknack", "players": SEATS, "dealer": "Anna", "stake": "3.00"}, night["edit_token"])
    return night, match


def stored(app: Any, match_id: int) -> list[tuple[int, str | None, bool]]:
    """(round number, idempotency key, void) of every event of the match, in order."""
    from referee.models import Round, db

    with app.app_context():
        rows = db.session.execute(select(Round.seq, Round.idempotency_key, Round.void)
                                  .where(Round.match_id == match_id).order_by(Round.seq)).all()
        db.session.remove()
    return [(r[0], r[1], r[2]) for r in rows]


def open_controlled(page: Any, base: str, night: dict[str, Any], match: dict[str, Any]) -> None:
    """The leader's phone opens the night and the match online, with the service worker in control."""
    page.goto(f"{base}/e/{night['edit_token']}")
    page.wait_for_function("() => navigator.serviceWorker && navigator.serviceWorker.controller !== null")
    page.goto(f"{base}/matches/{match['id']}")  # now kept by the service worker
    page.wait_for_function("() => window.RefereeQueue !== undefined")


def at_the_table(base: str, page: Any, artifacts: Path,
                 prefix: str = "offline-") -> tuple[Watched, dict[str, Any]]:
    """A fresh night and match, and the leader's phone on it (watched) with the service worker in control."""
    watched = watch(page, artifacts, prefix)
    night, match = night_and_match(base)
    open_controlled(page, base, night, match)
    return watched, match


def save_round(page: Any, taps: list[tuple[str, int]] = ()) -> None:  # type: ignore[assignment]
    """Tap the given players' tricks (none: the svängare alone) and Save round."""
    for name, tricks in taps:
        page.locator(f'#round-form tr[data-name="{name}"] label.pick').nth(tricks).tap()
    page.locator("#save-round").tap()


def queue(page: Any) -> list[dict[str, Any]]:
    return list(page.evaluate("() => RefereeQueue.all()"))


def offline_noise(problems: list[str]) -> list[str]:
    """Problems other than the failed requests of a phone with no network or no server (expected here)."""
    return [p for p in problems if not any(s in p for s in (
        "ERR_INTERNET_DISCONNECTED", "ERR_CONNECTION_REFUSED", "ERR_CONNECTION_RESET", "ERR_EMPTY_RESPONSE",
        "ERR_FAILED", "status of 409", "status of 503"))]


# --- the tests -----------------------------------------------------------------------------------------------

def test_three_rounds_offline_survive_a_reload_and_are_stored_once_in_order(
        live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    from playwright.sync_api import expect

    base, page = live_server.url, phone
    watched, match = at_the_table(base, page, artifacts)
    page.context.set_offline(True)

    for n in (1, 2, 3):
        save_round(page)
        expect(page.locator("#offline-entries li.pending")).to_have_count(n)
    expect(page.locator("#offline-bar")).to_contain_text("No network")
    expect(page.locator("#offline-bar")).to_contain_text("3 entries wait to be sent")
    expect(page.locator("#offline-entries li strong")).to_have_text(["Round 1", "Round 2", "Round 3"])
    expect(page.locator("#offline-next")).to_have_text("The next round you enter is round 4.")
    page.evaluate("() => window.scrollTo(0, 0)")
    watched.shot("pending", full=False)
    keys = [e["key"] for e in queue(page)]
    assert len(set(keys)) == 3
    assert stored(live_server.app, match["id"]) == []

    page.reload()  # still offline: the service worker's copy, and the queue from IndexedDB
    expect(page.locator("#offline-bar")).to_contain_text("Offline copy of this page from")
    expect(page.locator("#offline-entries li.pending")).to_have_count(3)
    assert [e["key"] for e in queue(page)] == keys
    assert page.locator("html").get_attribute("data-offline-copy")

    back_online(page)
    expect(page.locator("#offline-bar")).to_contain_text("3 waiting entries were sent and saved.")
    expect(page.locator("#offline-queue")).to_be_hidden()
    assert stored(live_server.app, match["id"]) == [(1, keys[0], False), (2, keys[1], False), (3, keys[2], False)]
    assert page.locator("html").get_attribute("data-offline-copy") is None  # online: the fresh page
    expect(page.locator(".history li")).to_have_count(3)
    assert not offline_noise(watched.problems)


def test_a_refused_round_shows_its_rule_and_nothing_else_is_lost(live_server: LiveServer, phone: Any,
                                                                  artifacts: Path) -> None:
    from playwright.sync_api import expect

    base, page = live_server.url, phone
    watched, match = at_the_table(base, page, artifacts)
    page.context.set_offline(True)
    save_round(page)                      # round 1: Bo svängar alone
    save_round(page, [("Dan", 1)])        # round 2: Dan says 1 trick, the svängare none: 1 of 3 tricks, SK-8
    save_round(page)                      # round 3 (as the leader sees it)
    expect(page.locator("#offline-entries li.pending")).to_have_count(3)
    keys = [e["key"] for e in queue(page)]

    back_online(page)
    refused = page.locator("#offline-entries li.refused")
    expect(refused).to_have_count(1)
    expect(refused.locator("strong")).to_have_text("Round 2")
    expect(refused.locator(".offline-message")).to_contain_text("SK-8")
    expect(refused.locator(".offline-what")).to_contain_text("Dan: 1 trick")
    # The round after it waits for the leader's decision; it is not lost and not sent on a wrong premise.
    expect(page.locator("#offline-entries li.blocked strong")).to_have_text("Round 3")
    page.evaluate("() => window.scrollTo(0, 0)")
    watched.shot("refused", full=False)
    assert stored(live_server.app, match["id"]) == [(1, keys[0], False)]

    # The leader drops the refused entry: the waiting one becomes round 2 and is saved.
    page.once("dialog", lambda d: d.accept())
    refused.locator(".offline-drop").tap()
    expect(page.locator("#offline-queue")).to_be_hidden()
    assert stored(live_server.app, match["id"]) == [(1, keys[0], False), (2, keys[2], False)]
    assert not offline_noise(watched.problems)


def test_a_refused_round_can_be_fixed_in_the_form(live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    from playwright.sync_api import expect

    base, page = live_server.url, phone
    watched, match = at_the_table(base, page, artifacts)
    page.context.set_offline(True)
    save_round(page, [("Dan", 1)])        # round 1: 1 of 3 tricks, SK-8
    expect(page.locator("#offline-entries li.pending")).to_have_count(1)
    back_online(page)
    refused = page.locator("#offline-entries li.refused")
    expect(refused.locator(".offline-message")).to_contain_text("SK-8")
    refused.locator(".offline-fix").tap()
    # The taps are back in the form; Bo (the svängare) took the other 2 tricks.
    expect(page.locator('#round-form tr[data-name="Dan"] input[value="1"]')).to_be_checked()
    save_round(page, [("Bo", 2)])
    expect(page.locator(".history li")).to_have_count(1)
    rounds = stored(live_server.app, match["id"])
    assert [r[0] for r in rounds] == [1]
    assert not offline_noise(watched.problems)


def test_two_phones_enter_round_5_the_offline_one_ends_in_a_shown_conflict(
        live_server: LiveServer, phone: Any, browser: Any, artifacts: Path) -> None:
    from playwright.sync_api import expect

    base = live_server.url
    night, match = night_and_match(base)
    for _ in range(4):  # rounds 1-4: the svängare alone each time
        req = urllib.request.Request(f"{base}/api/matches/{match['id']}",
                                     headers={"Authorization": f"Bearer {night['edit_token']}"})
        with urllib.request.urlopen(req, timeout=10) as resp:
            state = json.loads(resp.read())["state"]
        alone = {"svangare": state["svangare"], "participants": [state["svangare"]]}
        api(base, f"/api/matches/{match['id']}/rounds", alone, night["edit_token"])
    leader = watch(phone, artifacts, "offline-conflict-leader-")
    open_controlled(leader.page, base, night, match)
    other = second_phone(browser, base, night["edit_token"], match["id"], artifacts, "offline-conflict-other-")

    leader.page.context.set_offline(True)
    save_round(leader.page)               # the leader's round 5, offline
    expect(leader.page.locator("#offline-entries li.pending strong")).to_have_text("Round 5")
    other_sv = other.page.locator("#svangare").inner_text()
    others_pick = next(n for n in SEATS if n != other_sv and n != "Dan")
    save_round(other.page, [(others_pick, 1), (other_sv, 2)])  # the other phone's round 5, online
    expect(other.page.locator(".history li")).to_have_count(5)

    back_online(leader.page)
    conflict = leader.page.locator("#offline-entries li.conflict")
    expect(conflict).to_have_count(1)
    expect(conflict.locator("strong")).to_have_text("Round 5")
    expect(conflict.locator(".offline-other")).to_contain_text("Another phone entered round 5 first:")
    expect(conflict.locator(".offline-other")).to_contain_text(others_pick)
    expect(leader.page.locator(".history li")).to_have_count(5)  # the page as it is now: the other phone's round
    expect(leader.page.locator("#offline-next")).to_have_text("The next round you enter is round 6.")
    leader.page.evaluate("() => window.scrollTo(0, 0)")
    leader.shot("conflict", full=False)
    rounds = stored(live_server.app, match["id"])
    assert [r[0] for r in rounds] == [1, 2, 3, 4, 5]
    assert rounds[4][1] not in {e["key"] for e in queue(leader.page)}  # round 5 is the other phone's
    other.page.context.close()
    assert not offline_noise(leader.problems)
    assert not offline_noise(other.problems)


def test_a_round_whose_answer_is_cut_after_the_commit_is_stored_once(
        live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    from playwright.sync_api import expect

    proxy = CutAfterCommit(int(live_server.url.rsplit(":", 1)[1]))
    try:
        base = f"http://127.0.0.1:{proxy.port}"
        page = phone
        watched = watch(page, artifacts, "offline-cut-")
        night, match = night_and_match(live_server.url)
        open_controlled(page, base, night, match)
        save_round(page)  # online: the round is sent; the server commits; the answer never arrives
        expect(page.locator(".history li")).to_have_count(1)
        expect(page.locator("#offline-queue")).to_be_hidden()
        assert proxy.cuts == 1
        rounds = stored(live_server.app, match["id"])
        assert [r[0] for r in rounds] == [1]
        assert not offline_noise(watched.problems)
    finally:
        proxy.close()


def test_a_round_entered_while_the_server_is_down_is_saved_after_its_restart(
        restartable: Restartable, phone: Any, artifacts: Path) -> None:
    from playwright.sync_api import expect

    base, page = restartable.url, phone
    watched, match = at_the_table(base, page, artifacts, "offline-restart-")
    restartable.stop()
    save_round(page)  # the phone thinks it is online; the server is gone
    expect(page.locator("#offline-entries li.pending strong")).to_have_text("Round 1")
    expect(page.locator("#offline-bar")).to_contain_text("The server cannot be reached")
    page.reload()  # still no server: the worker's copy, said to be one, and the entry from the phone's storage
    expect(page.locator("#offline-bar")).to_contain_text("Offline copy of this page from")
    expect(page.locator("#offline-entries li.pending strong")).to_have_text("Round 1")
    restartable.start()
    # Sent by the phone's own retry (every few seconds), with no reload and no tap.
    expect(page.locator(".history li")).to_have_count(1, timeout=20_000)
    expect(page.locator("#offline-queue")).to_be_hidden()
    assert [r[0] for r in stored(restartable.app, match["id"])] == [1]
    assert not offline_noise(watched.problems)


def test_a_void_and_a_close_tapped_offline_are_sent_in_order(live_server: LiveServer, phone: Any,
                                                            artifacts: Path) -> None:
    from playwright.sync_api import expect

    base, page = live_server.url, phone
    watched, match = at_the_table(base, page, artifacts, "offline-void-")
    save_round(page)  # online: round 1, posted as without JavaScript
    expect(page.locator(".history li")).to_have_count(1)
    void_url = f"/matches/{match['id']}/rounds/1/void"
    for _ in range(100):  # the match page asked the worker to keep the night's pages, the void page included
        if page.evaluate("(u) => caches.match(u, {ignoreVary: true}).then(r => !!r)", void_url):
            break
        page.wait_for_timeout(100)
    else:
        raise AssertionError("the void page was not kept")
    page.context.set_offline(True)
    page.locator(".void-link").tap()
    expect(page.locator("#offline-bar")).to_contain_text("Offline copy of this page from")
    page.get_by_label("Reason").fill("misdeal")
    page.get_by_role("button", name="Void round 1").tap()
    page.wait_for_url(f"**/matches/{match['id']}")
    expect(page.locator("#offline-entries li.pending strong")).to_have_text(["Void of round 1"])
    page.locator(".close-box summary").tap()
    page.locator("#close-pot").select_option("split")
    # With no network the phone asks once more itself (online, the server's confirmation page asks):
    # "Back" queues nothing, "OK" queues the close with its confirmation.
    asked: list[str] = []
    page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    page.locator(".close-box button[type=submit]").tap()
    expect(page.locator("#offline-entries li.pending strong")).to_have_text(["Void of round 1"])
    page.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    page.locator(".close-box button[type=submit]").tap()
    expect(page.locator("#offline-entries li.pending strong")).to_have_text(["Void of round 1", "Close the match"])
    assert asked == ["Close the match?", "Close the match?"]
    assert stored(live_server.app, match["id"]) == [(1, stored(live_server.app, match["id"])[0][1], False)]

    back_online(page)
    expect(page.locator("#offline-bar")).to_contain_text("2 waiting entries were sent and saved.")
    events = stored(live_server.app, match["id"])
    assert [(seq, void) for seq, _key, void in events] == [(1, True), (2, False)]  # the void, then the close
    assert not offline_noise(watched.problems)


def test_the_queue_survives_closing_the_browser(live_server: LiveServer, browser: Any, tmp_path: Path,
                                                artifacts: Path) -> None:
    from playwright.sync_api import expect

    from tests.components import CHROMIUM_ARGS, chromium_path

    base = live_server.url
    night, match = night_and_match(base)
    profile = tmp_path / "profile"

    def launch() -> Any:
        context = browser.browser_type.launch_persistent_context(
            str(profile), executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True, viewport=PHONE,
            device_scale_factor=2, is_mobile=True, has_touch=True, locale="en-US")
        context.set_default_timeout(10_000)
        return context

    context = launch()
    page = context.pages[0] if context.pages else context.new_page()
    open_controlled(page, base, night, match)
    context.set_offline(True)
    save_round(page)
    expect(page.locator("#offline-entries li.pending")).to_have_count(1)
    key = queue(page)[0]["key"]
    context.close()  # the browser is closed with the entry unsent

    context = launch()
    try:
        context.set_offline(True)
        page = context.pages[0] if context.pages else context.new_page()
        watched = watch(page, artifacts, "offline-reopen-")
        page.goto(f"{base}/matches/{match['id']}")  # the worker's copy; the queue from the phone's storage
        expect(page.locator("#offline-entries li.pending strong")).to_have_text(["Round 1"])
        back_online(page)
        expect(page.locator(".history li")).to_have_count(1)
        assert stored(live_server.app, match["id"]) == [(1, key, False)]
        assert not offline_noise(watched.problems)
    finally:
        context.close()


def test_a_payment_marked_offline_is_recorded_once(live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    from playwright.sync_api import expect

    from referee.models import Payment, db

    base, page = live_server.url, phone
    watched = watch(page, artifacts, "offline-payment-")
    night = api(base, "/api/nights", {"name": "Ferry night", "currency": "SEK", "players": SEATS})
    match = api(base, f"/api/nights/{night['id']}/matches",
                {"game": "kul", "players": SEATS, "dealer": "Anna", "stake": "2.00"}, night["edit_token"])
    api(base, f"/api/matches/{match['id']}/rounds", {"last_trick": "Anna"}, night["edit_token"])
    api(base, f"/api/matches/{match['id']}/close", {"pot": "award", "to": "Anna"}, night["edit_token"])
    page.goto(f"{base}/e/{night['edit_token']}")
    page.wait_for_function("() => navigator.serviceWorker && navigator.serviceWorker.controller !== null")
    page.goto(f"{base}/nights/{night['id']}/settlement")
    page.wait_for_function("() => window.RefereeQueue !== undefined")
    page.context.set_offline(True)
    page.locator(".pay-form button").first.tap()
    expect(page.locator("#offline-entries li.pending strong")).to_have_text(["Payment"])
    expect(page.locator("#offline-entries li.pending .offline-what")).to_contain_text("2.00")

    back_online(page)
    expect(page.locator("#offline-bar")).to_contain_text("1 waiting entry was sent and saved.")
    with live_server.app.app_context():
        assert db.session.query(Payment).filter_by(night_id=night["id"]).count() == 1
        db.session.remove()

    # Voiding it with no network: the phone asks once more (no page of the server can), then it waits, named.
    page.context.set_offline(True)
    void = page.locator("form.void-payment")
    void.locator('input[name="reason"]').fill("wrong payer")
    page.once("dialog", lambda dialog: dialog.dismiss())
    void.locator("button").tap()
    page.wait_for_timeout(300)
    assert queue(page) == []  # "no" queues nothing
    page.once("dialog", lambda dialog: dialog.accept())
    void.locator("button").tap()
    pending = page.locator("#offline-entries li.pending")
    expect(pending.locator("strong")).to_have_text(["Void of a payment"])
    expect(pending.locator(".offline-what")).to_contain_text("paid")
    expect(pending.locator(".offline-what")).to_contain_text("wrong payer")
    expect(page.locator("#offline-bar")).to_contain_text("1 entry waits to be sent.")
    expect(page.locator("#offline-bar")).not_to_contain_text("sent and saved")  # that was the payment, before
    watched.shot("void-pending", full=False)
    back_online(page)
    expect(page.locator("#offline-bar")).to_contain_text("1 waiting entry was sent and saved.")
    expect(page.locator("#offline-entries li")).to_have_count(0)
    expect(page.locator(".void-reason")).to_contain_text("wrong payer")  # the page again, from the server
    with live_server.app.app_context():
        rows = db.session.query(Payment).filter_by(night_id=night["id"]).all()
        assert [(r.void, r.void_reason) for r in rows] == [(True, "wrong payer")]
        db.session.remove()
    assert not offline_noise(watched.problems)


def test_a_round_queued_after_a_refusal_is_filed_under_the_match_page(live_server: LiveServer, phone: Any,
                                                                       artifacts: Path) -> None:
    """A refusal online is answered at the form's POST address (/matches/N/rounds, a 422); the address bar then
    shows the match page (static/js/app.js).

    A round then queued with no network belongs to the match page: filed under the POST address, the
    queue's "fix it in the form" and "where" link and its fresh-token fetch would all point at an address
    that takes only POST (the queue reads the page's data-page, the address bar's only since app.js).
    """
    from playwright.sync_api import expect

    base, page = live_server.url, phone
    watched, match = at_the_table(base, page, artifacts)
    save_round(page, [("Dan", 1)])        # online: 1 of 3 tricks, refused (SK-8)
    page.locator("#round-form p.error[role=alert]", has_text="SK-8").wait_for()
    assert page.url == f"{base}/matches/{match['id']}"

    page.context.set_offline(True)
    dan = page.locator('#round-form tr[data-name="Dan"]')
    dan.locator("label.pick").nth(1).tap()  # Dan's 1 tapped again: cleared (he still knocks) ...
    dan.locator("label.toggle").tap()       # ... and his knock taken back: Bo svängar alone
    save_round(page)
    expect(page.locator("#offline-entries li.pending")).to_have_count(1)
    assert [e["page"] for e in queue(page)] == [f"/matches/{match['id']}"]

    back_online(page)
    expect(page.locator("#offline-queue")).to_be_hidden()
    assert [r[0] for r in stored(live_server.app, match["id"])] == [1]
    assert not offline_noise(watched.problems)
