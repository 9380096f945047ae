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

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import LiveServer, Watched, watch
from tests.browser.polish import assert_axe
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


@pytest.mark.parametrize(("players", "lang", "engine"), [(3, "sv", False), (5, "sv", True), (8, "de", True),
                                                         (16, "de", False)])
def test_nothing_covers_save_and_the_page_never_widens(live_server: LiveServer, phone: Any, artifacts: Path,
                                                       players: int, lang: str, engine: bool) -> None:
    base, page = live_server.url, phone
    page.context.set_default_timeout(60_000)  # a busy machine: the worker installs slowly
    watched = watch(page, artifacts, f"table-{players}-{lang}-")
    seats = NAMES[:players]
    night_json = api(base, "/api/nights", {"name": "Stugan", "currency": "SEK", "players": seats})
    match = api(base, f"/api/nights/{night_json['id']}/matches",
                {"game": "svangknack", "players": seats, "dealer": "Anna", "stake": "3.00"},
                night_json["edit_token"])
    page.goto(f"{base}/e/{night_json['edit_token']}")
    page.evaluate("() => navigator.serviceWorker.ready.then(() => true)")
    page.goto(f"{base}/lang/{lang}?next=/matches/{match['id']}")  # a page load: the ready worker controls it
    page.wait_for_function("() => navigator.serviceWorker.controller !== null && window.RefereeQueue !== undefined")
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

    page.context.set_offline(False)
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    expect(page.locator("#offline-queue")).to_be_hidden(timeout=30_000)
    assert [r[0] for r in stored(live_server.app, match["id"])] == list(range(1, 4 + waiting))
    night.check("back online")
    assert not offline_noise(watched.problems)
