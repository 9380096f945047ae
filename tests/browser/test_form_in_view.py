"""After a save the next round's form is in view (issue 42.3) on a 390×844 phone, in Swedish and German.

After every save of every game's match page (Svängknack with 3 to 8 players, Kul, Schloapfer, Schwimmen,
Knaker, and a tournament table's Svängknack under its table banner): the box of every player row of the form
and of the Save button lie inside the viewport, and no row lies under the fixed Save bar (measured in the page,
``getBoundingClientRect``). Screenshots of the first screen after each save go to
``test-artifacts/browser/form-in-view-*.png``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import LiveServer, Watched, watch
from tests.browser.test_offline_queue import api
from tests.browser.test_tournament import tournament

pytestmark = pytest.mark.browser

NAMES = ["Anna", "Göran", "Örjan", "Märta", "Åsa", "Fia", "Gustav", "Hanna"]

#: Every player row of the form and its Save button: inside the viewport, no row under the Save bar. Rows are
#: counted from the form's own rows (one per player, whatever the game draws them as).
_IN_VIEW = """([rows, save]) => {
  const out = [], vh = innerHeight;
  const b = document.querySelector(save);
  if (!b) return ['no save button ' + save];
  const r = b.getBoundingClientRect();
  if (r.top < 0 || r.bottom > vh + 0.5 || r.height === 0) out.push(`save button at ${r.top}-${r.bottom}`);
  const bar = b.closest('.savebar');
  const barTop = bar ? bar.getBoundingClientRect().top : vh;
  const found = document.querySelectorAll(rows);
  if (!found.length) out.push('no rows ' + rows);
  found.forEach((row, i) => {
    const e = row.getBoundingClientRect();
    if (!e.height) { out.push(`row ${i + 1} not shown`); return; }
    if (e.top < -0.5) out.push(`row ${i + 1} above the viewport (${Math.round(e.top)})`);
    else if (e.bottom > barTop + 0.5) out.push(`row ${i + 1} at ${Math.round(e.top)}-${Math.round(e.bottom)}, ` +
                                              `under the bar or below (bar from ${Math.round(barTop)})`);
  });
  return out;
}"""


def form_in_view(page: Any, rows: str, save: str) -> list[str]:
    """What keeps the form's rows or its Save button out of view (empty: all is in view)."""
    page.wait_for_load_state("load")
    page.wait_for_timeout(150)  # a scroll after load (smooth scrolling is off in tests: reduced motion is not)
    return list(page.evaluate(_IN_VIEW, [rows, save]))


def leader_on(page: Any, base: str, token: str, match_id: int, lang: str) -> None:
    page.goto(f"{base}/e/{token}")
    page.goto(f"{base}/lang/{lang}?next=/matches/{match_id}")


def night_match(base: str, game: str, seats: list[str], **extra: Any) -> tuple[str, int]:
    night = api(base, "/api/nights", {"name": "Stugan", "currency": "SEK", "players": seats})
    match = api(base, f"/api/nights/{night['id']}/matches",
                {"game": game, "players": seats, "dealer": seats[0], "stake": "3.00"} | extra, night["edit_token"])
    return str(night["edit_token"]), int(match["id"])


def save(page: Any, button: Any) -> None:
    """Tap a save button and wait for the match page the save redirects to (its flash says it)."""
    with page.expect_navigation():
        button.tap()
    page.locator("main .flash.ok").first.wait_for()


def check(w: Watched, name: str, rows: str, save: str, after: str) -> None:
    problems = form_in_view(w.page, rows, save)
    n = int(after.rsplit("-", 1)[1])  # the note says what was saved: the round's line of the history (issue 50.3)
    line = w.page.locator(f"#round-{n} .what").inner_text().strip()
    note = w.page.locator("main .flash.ok").first.inner_text()
    if line not in note:
        problems.append(f"the note {note!r} does not say what was saved ({line!r})")
    w.shot(f"{name}-{after}", full=False)
    assert not problems, f"{name} after {after}: {problems}"


@pytest.mark.parametrize("lang", ["sv", "de"])
@pytest.mark.parametrize("players", [3, 4, 5, 6, 7, 8])  # SK-1: at least 3 players
def test_svangknack_form_in_view_after_each_save(live_server: LiveServer, phone: Any, artifacts: Path,
                                                 lang: str, players: int) -> None:
    base, seats = live_server.url, NAMES[:players]
    token, match_id = night_match(base, "svangknack", seats)
    w = watch(phone, artifacts, "form-in-view-")
    leader_on(phone, base, token, match_id, lang)
    rows, name = "#round-form tr.player-row", f"svangknack-{players}-{lang}"
    for n in range(1, 4):
        save(phone, phone.locator("#save-round"))  # the svängare alone (a valid round)
        check(w, name, rows, "#save-round", f"save-{n}")
    assert not w.problems, w.problems


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_tournament_table_form_in_view_after_each_save(live_server: LiveServer, phone: Any, artifacts: Path,
                                                       lang: str) -> None:
    base = live_server.url
    made = tournament(base, NAMES, 4)
    table = made["tables"][0]
    w = watch(phone, artifacts, "form-in-view-")
    phone.goto(f"{base}/t/{table['table_token']}")
    phone.wait_for_url(f"**/matches/{table['match']}")
    phone.goto(f"{base}/lang/{lang}?next=/matches/{table['match']}")
    assert phone.locator("#table-where").is_visible()
    for n in range(1, 4):
        save(phone, phone.locator("#save-round"))
        check(w, f"table-{lang}", "#round-form tr.player-row", "#save-round", f"save-{n}")
    assert not w.problems, w.problems


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_kul_form_in_view_after_each_save(live_server: LiveServer, phone: Any, artifacts: Path, lang: str) -> None:
    base, seats = live_server.url, NAMES
    token, match_id = night_match(base, "kul", seats)
    w = watch(phone, artifacts, "form-in-view-")
    leader_on(phone, base, token, match_id, lang)
    rows = "form.kul-form button[name=last_trick]"
    for n, who in enumerate(["Göran", "Örjan", "Göran"], start=1):
        save(phone, phone.locator(f'form.kul-form button[value="{who}"]'))
        check(w, f"kul-{lang}", rows, rows, f"save-{n}")
    assert not w.problems, w.problems


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_schloapfer_form_in_view_after_each_save(live_server: LiveServer, phone: Any, artifacts: Path,
                                                 lang: str) -> None:
    base, seats = live_server.url, NAMES[:4]
    token, match_id = night_match(base, "schloapfer", seats)
    w = watch(phone, artifacts, "form-in-view-")
    leader_on(phone, base, token, match_id, lang)
    rows = "#round-form tr.player-row"
    for n in range(1, 4):  # everybody but the dealer passes: the dealer takes the deal
        for toggle in phone.locator("#round-form tr.player-row label.toggle").all():
            toggle.tap()
        save(phone, phone.locator("#save-round"))
        check(w, f"schloapfer-{lang}", rows, "#save-round", f"save-{n}")
    assert not w.problems, w.problems


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_schwimmen_form_in_view_after_each_save(live_server: LiveServer, phone: Any, artifacts: Path,
                                                lang: str) -> None:
    base, seats = live_server.url, NAMES[:4]
    token, match_id = night_match(base, "schwimmen", seats)
    w = watch(phone, artifacts, "form-in-view-")
    leader_on(phone, base, token, match_id, lang)
    rows = "#round-form .sw-panel-losers label.toggle"
    for n in range(1, 4):
        phone.locator('#round-form label.pick:has(input[name=by][value="Anna"])').tap()
        phone.locator("#round-form .sw-panel-losers label.toggle").nth(1).tap()
        save(phone, phone.locator("#save-round"))
        check(w, f"schwimmen-{lang}", rows, "#save-round", f"save-{n}")
    assert not w.problems, w.problems


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_knaker_form_in_view_after_each_save(live_server: LiveServer, phone: Any, artifacts: Path,
                                             lang: str) -> None:
    base, seats = live_server.url, NAMES[:4]
    token, match_id = night_match(base, "knaker", seats)
    w = watch(phone, artifacts, "form-in-view-")
    leader_on(phone, base, token, match_id, lang)
    rows = "#kn-form li.kn-player"
    for n in range(1, 3):
        for name in seats[:-1]:
            phone.locator(f'#kn-form li.kn-player[data-name="{name}"] button.kn-out').tap()
        save(phone, phone.locator("#kn-save"))
        check(w, f"knaker-{lang}", rows, "#kn-save", f"save-{n}")
    assert not w.problems, w.problems
