"""At the table, round three (issue 28): a scripted Svängknack night on a 390×844 phone, in Swedish and German.

After every tap of the night, online and with no network (rounds waiting in the phone, the page showing the
state the engine in the phone expects): the page is no wider than the phone and nothing covers or touches
the save button (``tests/browser/table_layout.py``); the tapped count is between the bars. A refused round
brings its first marked row (online) or its message (refused by the engine in the phone) into view, clear
of the bars. Tables of 3, 5, 8 and 16 players; the engine in the phone is awaited at 5 and 8 (it is slow to
start on a busy machine), the others queue their rounds as they come.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import LiveServer, Watched, second_phone, watch
from tests.browser.network import back_online
from tests.browser.polish import assert_axe, every_language
from tests.browser.table_layout import layout_problems, uncovered
from tests.browser.test_offline_engine import _engine_kept
from tests.browser.test_offline_queue import api, offline_noise, stored

pytestmark = pytest.mark.browser

NAMES = ["Anna", "Göran", "Örjan", "Märta", "Åsa", "Fia", "Gustav", "Hanna", "Ingrid", "Jöns", "Karl-Johan",
         "Lovisa", "Mårten", "Nils", "Ottilia", "Per"]
SAVE = "#save-round"


class Night:
    """The leader's phone at one Svängknack match, checked after every tap."""

    def __init__(self, watched: Watched) -> None:
        self.watched, self.page, self.taps = watched, watched.page, 0

    def check(self, what: str, tapped: Any = None) -> None:
        problems = layout_problems(self.page, SAVE)
        if tapped is not None:
            problems += uncovered(tapped)
        assert not problems, f"after tap {self.taps} ({what}): {problems}"

    def tap(self, locator: Any, what: str) -> None:
        locator.tap()
        self.taps += 1
        self.check(what, locator)

    def svangare(self) -> str:
        return str(self.page.locator("#round-form").get_attribute("data-svangare"))

    def tricks(self, name: str, n: int) -> None:
        self.tap(self.page.locator(f'#round-form tr[data-name="{name}"] label.pick').nth(n), f"{name} {n}")

    def save(self) -> None:
        """Save (checked once the page has answered: a tap on Save may load a new page)."""
        self.page.locator(SAVE).tap()
        self.taps += 1


def others(seats: list[str], sv: str) -> list[str]:
    """The players other than the svängare, the last rows first (the ones the save bar would cover)."""
    return [n for n in reversed(seats) if n != sv]


def play_rounds(night: Night, seats: list[str], rounds: int, offline: bool, refuse: bool = True) -> None:
    """``rounds`` legal rounds, the second after a refused one (1 trick of 3: SK-8) if ``refuse``."""
    page = night.page
    for r in range(rounds):
        sv = night.svangare()
        pick = others(seats, sv)
        if r == 1 and refuse:
            night.tricks(pick[0], 1)
            night.save()
            if offline:  # refused by the engine in the phone, at the tap: the message at the form, in view
                refusal = page.locator("#round-form .offline-check")
                expect(refusal).to_contain_text("SK-8", timeout=60_000)
                assert not uncovered(refusal), uncovered(refusal)
            else:  # refused by the server: the page again, its first marked row in view
                first = page.locator("#round-form tr.row-error").first
                expect(first).to_be_visible()
                page.wait_for_load_state()
                assert not uncovered(first), uncovered(first)
                # answered at the form's POST address; the address bar shows the match page (static/js/app.js)
                assert re.fullmatch(r"/matches/\d+", urlsplit(page.url).path), page.url
            night.check("refused")
            night.watched.shot(f"refused-{'offline' if offline else 'online'}", full=False)
            night.tricks(sv, 2)
        elif len(pick) >= 3 and r == 2:
            night.tricks(pick[0], 1)
            night.tricks(pick[1], 1)
            night.tricks(sv, 1)
        else:
            night.tricks(pick[0], 1)
            night.tricks(sv, 2)
        night.save()
        if offline:
            expect(page.locator("#offline-entries li.pending")).to_have_count(r + 1, timeout=60_000)
        else:
            expect(page.locator(".history li")).to_have_count(r + 1)  # the online rounds come first
            page.wait_for_load_state()
        night.check("saved")


def svangknack_at(base: str, page: Any, seats: list[str], lang: str,
                  controlled: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    """A night and a Svängknack match (Anna deals, 3.00), the leader's phone on it in ``lang``; with
    ``controlled``, once the service worker controls the page (it keeps the page for going offline)."""
    night = api(base, "/api/nights", {"name": "Stugan", "currency": "SEK", "players": seats})
    match = api(base, f"/api/nights/{night['id']}/matches",
                {"game": "svangknack", "players": seats, "dealer": "Anna", "stake": "3.00"}, night["edit_token"])
    page.goto(f"{base}/e/{night['edit_token']}")
    if controlled:
        page.evaluate("() => navigator.serviceWorker.ready.then(() => true)")
    page.goto(f"{base}/lang/{lang}?next=/matches/{match['id']}")  # a page load: the ready worker controls it
    if controlled:
        page.wait_for_function("() => navigator.serviceWorker.controller !== null"
                               " && window.RefereeQueue !== undefined")
    return night, match


@pytest.mark.parametrize(("players", "lang", "engine"), [(3, "sv", False), (5, "sv", True), (8, "de", True),
                                                         (16, "de", False)])
def test_nothing_covers_save_and_the_page_never_widens(live_server: LiveServer, phone: Any, artifacts: Path,
                                                       players: int, lang: str, engine: bool) -> None:
    base, page = live_server.url, phone
    page.context.set_default_timeout(60_000)  # a busy machine: the worker installs slowly
    watched = watch(page, artifacts, f"table-{players}-{lang}-")
    seats = NAMES[:players]
    _night, match = svangknack_at(base, page, seats, lang, controlled=True)
    night = Night(watched)
    night.check("opened")

    play_rounds(night, seats, 3, offline=False)
    assert [r[0] for r in stored(live_server.app, match["id"])] == [1, 2, 3]
    assert_axe(page, f"match, {players} players [{lang}]")
    watched.shot("online", full=False)

    if engine:
        _engine_kept(page)
    page.context.set_offline(True)
    page.reload()  # the worker's copy, as after the phone slept with no network
    expect(page.locator("html")).to_have_attribute("data-offline-copy", re.compile(r"\d+"))
    night.check("offline copy")
    if engine:  # started from the phone's cache before the first tap (it checks each tap in at most 15 s)
        page.wait_for_function("() => window.RefereeOfflineCheck !== undefined && window.RefereeEngine !== undefined")
        page.evaluate("() => RefereeOfflineCheck.start().then(() => RefereeEngine.load()).then(() => true)")
    play_rounds(night, seats, 3 if engine else 2, offline=True, refuse=engine)
    if engine:  # the page as the leader expects it after the waiting rounds, and still nothing covered
        expect(page.locator("#svangare")).to_have_class(re.compile("offline-expected"), timeout=60_000)
        night.check("projected")
    watched.shot("offline", full=False)
    waiting = len(page.evaluate("() => RefereeQueue.all()"))

    back_online(page)
    expect(page.locator("#offline-queue")).to_be_hidden(timeout=30_000)
    assert [r[0] for r in stored(live_server.app, match["id"])] == list(range(1, 4 + waiting))
    night.check("back online")
    assert not offline_noise(watched.problems)


# --- another phone's round while this one is tapping (point 2), and this phone's own rounds (point 3) ---------

SEATS = ["Anna", "Bo", "Cia", "Dan"]


def _this_rounds_taps(page: Any) -> tuple[str, str]:
    """Taps legal now and, as the next round, after a round that gives the sväng on: the one after the
    svängare 1 trick, the svängare 2."""
    sv = str(page.locator("#round-form").get_attribute("data-svangare"))
    return SEATS[(SEATS.index(sv) + 1) % len(SEATS)], sv


def test_another_phones_round_takes_my_taps_out_of_the_form(live_server: LiveServer, phone: Any, browser: Any,
                                                           artifacts: Path) -> None:
    base, page = live_server.url, phone
    page.context.set_default_timeout(30_000)
    watched = watch(page, artifacts, "table-two-phones-")
    night, match = svangknack_at(base, page, SEATS, "sv")
    other = second_phone(browser, base, night["edit_token"], match["id"], artifacts, "table-two-phones-other-",
                         "de", 30_000)

    def b_saves() -> None:
        nxt, sv = _this_rounds_taps(other.page)
        other.page.locator(f'#round-form tr[data-name="{nxt}"] label.pick').nth(1).tap()
        other.page.locator(f'#round-form tr[data-name="{sv}"] label.pick').nth(2).tap()
        other.page.locator(SAVE).tap()
        other.page.locator(".flash.ok").wait_for()

    # 1. The live stream brings B's round while A is tapping: A's taps leave the form, shown apart.
    page.wait_for_function("() => document.getElementById('live') !== null")
    page.wait_for_timeout(500)  # the stream is open
    nxt, sv = _this_rounds_taps(page)
    page.locator(f'#round-form tr[data-name="{nxt}"] label.pick').nth(1).tap()
    b_saves()
    box = page.locator("#stale-taps")
    expect(box).to_be_visible()
    expect(box.locator(".stale-what")).to_have_text(f"{nxt} 1 stick")
    expect(page.locator("#round-form input[type=radio]:checked")).to_have_count(0)  # the fresh form, empty
    expect(page.locator("#round-form")).to_have_attribute("data-svangare", nxt)    # with the new roles
    expect(page.locator("#live")).to_contain_text("1")  # the notice says which round came in (issue 50.1)
    assert not layout_problems(page, SAVE)
    watched.shot("stale-live", full=False)
    assert_axe(page, "the stale taps box")
    page.locator("#stale-drop").tap()  # it was the same round
    expect(box).to_have_count(0)
    assert [r[0] for r in stored(live_server.app, match["id"])] == [1]

    # 2. A hears nothing (no stream): A's save meets a 409; the page shows the taps apart, the form empty.
    page.route("**/live?*", lambda route: route.abort())
    page.reload()
    nxt, sv = _this_rounds_taps(page)
    page.locator(f'#round-form tr[data-name="{nxt}"] label.pick').nth(1).tap()
    page.locator(f'#round-form tr[data-name="{sv}"] label.pick').nth(2).tap()
    b_saves()  # round 2, B's
    page.locator(SAVE).tap()
    expect(box).to_be_visible()
    expect(page.locator("main p.error[role=alert]")).to_contain_text("2")
    said = sorted([(nxt, f"{nxt} 1 stick"), (sv, f"{sv} 2 stick")], key=lambda t: SEATS.index(t[0]))
    expect(box.locator(".stale-what")).to_have_text(" · ".join(t for _n, t in said))  # in seat order
    expect(page.locator("#round-form input[type=radio]:checked")).to_have_count(0)
    assert not layout_problems(page, SAVE)
    watched.shot("stale-409", full=False)
    # Mine was the next deal: entered as round 3, checked by the rules against the state after round 2.
    expect(page.locator("#stale-next")).to_contain_text("3")
    page.locator("#stale-next").tap()
    page.locator(".flash.ok").wait_for()
    expect(page.locator("#stale-taps")).to_have_count(0)
    assert [r[0] for r in stored(live_server.app, match["id"])] == [1, 2, 3]  # one round per deal
    other.page.context.close()
    assert not offline_noise(watched.problems)
    assert not offline_noise(other.problems)


def test_back_online_my_own_rounds_are_mine_and_the_page_is_fresh(live_server: LiveServer, phone: Any,
                                                                   artifacts: Path) -> None:
    base, page = live_server.url, phone
    page.context.set_default_timeout(60_000)
    watched = watch(page, artifacts, "table-back-online-")
    _night, match = svangknack_at(base, page, SEATS, "sv", controlled=True)
    page.context.set_offline(True)
    page.reload()  # the offline copy
    expect(page.locator("#offline-bar")).to_contain_text("Sparad kopia av sidan")
    nxt, sv = _this_rounds_taps(page)
    page.locator(f'#round-form tr[data-name="{nxt}"] label.pick').nth(1).tap()
    page.locator(f'#round-form tr[data-name="{sv}"] label.pick').nth(2).tap()
    page.locator(SAVE).tap()
    expect(page.locator("#offline-entries li.pending")).to_have_count(1)
    page.locator('#round-form tr[data-name="Anna"] label.pick').nth(1).tap()  # the next round, being tapped

    back_online(page)
    expect(page.locator("#offline-bar")).to_contain_text("1 väntande post skickades och sparades")
    expect(page.locator("#offline-bar")).not_to_contain_text("Sparad kopia")  # the page is fresh again
    expect(page.locator("html")).not_to_have_attribute("data-offline-copy", re.compile(".*"))
    expect(page.locator(".history li")).to_have_count(1)  # swapped in from the server, the form kept
    page.wait_for_timeout(1500)  # the live stream's news of round 1 (this phone's own) has come by now
    expect(page.locator("#live")).to_be_hidden()  # not "entered on another phone"
    expect(page.locator("#stale-taps")).to_have_count(0)
    expect(page.locator('#round-form tr[data-name="Anna"] input[value="1"]')).to_be_checked()
    assert [r[0] for r in stored(live_server.app, match["id"])] == [1]
    # The phone knows round 1 as its own (the stream's news of it is said by nobody), and round 2 as not yet.
    assert page.evaluate("(m) => [RefereeQueue.own(m, 1), RefereeQueue.own(m, 2)]", match["id"]) == [True, False]
    assert not layout_problems(page, SAVE)
    watched.shot("fresh", full=False)
    # The match page with the table display's QR code (opened by the measurement) in three languages.
    every_language(page, base, [f"/matches/{match['id']}"])
    page.locator("details.table-qr summary").tap()
    watched.shot("table-qr", full=False)
    assert not offline_noise(watched.problems)


def test_schloapfer_the_dealers_eyes_take_real_key_presses(live_server: LiveServer, phone: Any,
                                                          artifacts: Path) -> None:
    """Issue 28, point 6: the dealer's eyes field, tapped and typed into key by key (no ``fill``), on a
    390 px phone in German; the deal is saved with what was typed (SL-13 would refuse an empty field)."""
    base, page = live_server.url, phone
    page.context.set_default_timeout(30_000)
    watched = watch(page, artifacts, "table-schloapfer-keys-")
    seats = ["Anna", "Bo", "Cia"]
    night = api(base, "/api/nights", {"name": "Hütte", "currency": "EUR", "players": seats})
    match = api(base, f"/api/nights/{night['id']}/matches",
                {"game": "schloapfer", "players": seats, "dealer": "Anna", "stake": "2.00"}, night["edit_token"])
    page.goto(f"{base}/e/{night['edit_token']}")
    page.goto(f"{base}/lang/de?next=/matches/{match['id']}")
    dealer = page.locator('#round-form tr.dealer input.sl-eyes-in')
    assert dealer.get_attribute("name") == "eyes_0"  # Anna deals
    dealer.tap()
    expect(dealer).to_be_focused()
    page.keyboard.type("112", delay=30)
    expect(dealer).to_have_value("112")
    expect(page.locator("#eyes-left-n")).to_have_text("40")
    page.locator('#round-form tr[data-name="Bo"] input.sl-eyes-in').tap()
    page.keyboard.type("40", delay=30)
    page.locator('#round-form tr[data-name="Cia"] label.toggle').tap()  # Cia passed
    expect(page.locator("#eyes-left-n")).to_have_text("0")
    assert not layout_problems(page, SAVE)
    watched.shot("typed", full=False)
    page.locator(SAVE).tap()
    page.locator(".flash.ok").wait_for()
    assert [r[0] for r in stored(live_server.app, match["id"])] == [1]
    assert not watched.problems, watched.problems
