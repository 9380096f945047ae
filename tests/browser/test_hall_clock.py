"""The hall's series clock, its pages of many tables, and its type under zoom (issues 43.3 and 50.5), in Swedish
and German, on a projector (1920×1080) and the organiser's phone (390×844).

- A series' time limit (``series_minutes``): the organiser sets it on the
  form; the hall counts down mm:ss each second from the view's ``ends_at``
  without asking the server, says it in its polite live region only at the
  moment the time is up (not every second), and then shows each table still
  playing as late, in words, also after a live update.
- A hall of 30 tables of 4 shows every player's numbers beside the name
  (above 16 tables it once showed names only), in two pages that take
  turns, each readable and with no scrolling.
- Browser zoom 200 % (the same 1920×1080 screen seen as 960×540 CSS pixels at
  2 device pixels each) and a doubled default text size grow the names on
  the screen (type in vh only stayed the same size), names wrap and are
  never cut, and nothing scrolls sideways.

Screenshots: ``test-artifacts/browser/hall-clock-*.png``.
"""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import LOCALES, PHONE, LiveServer, watch
from tests.browser.polish import assert_axe
from tests.browser.test_hall_play import LONG, PLAYERS, lose_a_life, play_out
from tests.browser.test_tournament import call, context

pytestmark = pytest.mark.browser

#: Each language's words: time is up (the clock), a late table, a finished one, the time-up sentence, pages.
WORDS = {
    "sv": ("Tiden är ute", "över tiden", "klar", "Tiden är ute: borden som spelar än är över tiden.",
           "Bord 1–15 av 30", "Bord 16–30 av 30", "Tidsgräns per serie, minuter (valfritt)"),
    "de": ("Die Zeit ist um", "über der Zeit", "fertig",
           "Die Zeit ist um: Die Tische, die noch spielen, sind über der Zeit.",
           "Tische 1–15 von 30", "Tische 16–30 von 30", "Zeitlimit pro Serie, Minuten (optional)"),
}
#: How long the clock runs in the test before the time is up.
SECONDS = 12


def open_hall(page: Any, base: str, made: dict[str, Any], code: str) -> None:
    page.goto(f"{base}/v/{made['view_token']}?next=/tournaments/{made['id']}/hall")
    page.wait_for_url(f"**/tournaments/{made['id']}/hall")
    page.goto(f"{base}/lang/{code}?next=/tournaments/{made['id']}/hall")
    page.wait_for_url(f"**/tournaments/{made['id']}/hall")
    assert page.locator("html").get_attribute("lang") == code


def hall_fetches(page: Any) -> int:
    return int(page.evaluate("""() => performance.getEntriesByType('resource')
        .filter(e => e.initiatorType === 'fetch' || e.initiatorType === 'xmlhttprequest').length"""))


@pytest.mark.parametrize("code", ["sv", "de"])
def test_the_hall_counts_down_and_shows_late_tables_in_words(served: LiveServer, browser: Any, artifacts: Path,
                                                            code: str) -> None:
    base = served.url
    up, late, done, sentence = WORDS[code][:4]
    status, made = call(base, "POST", "/api/tournaments", {
        "name": "Simkväll", "currency": "SEK", "game": "schwimmen", "players": PLAYERS[1:], "table_size": 3,
        "series": 2, "seed": "hall-clock", "series_minutes": 5})
    assert status == 201, made
    assert len(made["tables"]) == 3
    first, second, third = made["tables"]
    play_out(base, first, made["edit_token"])
    from referee.models import Tournament, db
    from referee.models import now as utc_now

    with served.app.app_context():  # the series was drawn almost five minutes ago: a few seconds are left
        tourn = db.session.get(Tournament, made["id"])
        assert tourn is not None and tourn.series_minutes == 5
        tourn.series_started_at = utc_now() - timedelta(minutes=5) + timedelta(seconds=SECONDS)
        db.session.commit()
    hall = watch(context(browser, {"width": 1920, "height": 1080}, mobile=False), artifacts, f"hall-clock-{code}-")
    page = hall.page
    open_hall(page, base, made, code)
    page.evaluate("""() => { window.said = [];
        new MutationObserver(() => said.push(document.getElementById('announce').textContent))
            .observe(document.getElementById('announce'), {childList: true, characterData: true, subtree: true}); }""")
    clock = page.locator(".hall-clock .hall-left")
    shown = clock.inner_text().strip()
    assert len(shown) == 5 and shown[:3] == "00:" and 0 < int(shown[3:]) <= SECONDS, shown
    page.wait_for_function("t => document.querySelector('.hall-clock .hall-left').textContent.trim() !== t",
                           arg=shown, timeout=3000)  # it counts each second by itself
    hall.shot("counting", full=False)
    asked = hall_fetches(page)
    page.wait_for_function("t => document.querySelector('.hall-clock .hall-left').textContent.trim() === t",
                           arg=up, timeout=(SECONDS + 5) * 1000)
    assert hall_fetches(page) == asked  # no server poll for the clock
    words = {n: page.locator(f'.hall-table[data-table="{n}"] h3 span').inner_text().strip() for n in (1, 2, 3)}
    assert words == {first["table"]: done, second["table"]: late, third["table"]: late}, words
    page.wait_for_function("s => window.said.includes(s)", arg=sentence, timeout=3000)
    time.sleep(2.5)  # the ticks after the time is up say nothing more
    assert page.evaluate("() => window.said.filter(t => t)") == [sentence]
    assert_axe(page, f"hall, time up ({code})")
    hall.shot("late", full=False)
    # a live update (a round at a late table) keeps the word: the server too renders a table past the time late
    loser = lose_a_life(base, second, made["edit_token"])
    row = f'.hall-table[data-table="{second["table"]}"] li[data-player="{loser}"] .hall-count'
    page.wait_for_function("sel => /[0-9]/.test(document.querySelector(sel).textContent) && "
                           "document.querySelector(sel).textContent.trim().startsWith('2')", arg=row, timeout=6000)
    assert page.locator(f'.hall-table[data-table="{second["table"]}"] h3 span').inner_text().strip() == late
    assert page.locator(".hall-clock .hall-left").inner_text().strip() == up
    assert not hall.problems, hall.problems


def test_five_minutes_left_is_said_once_when_the_hall_sees_it_pass(live_server: LiveServer, browser: Any,
                                                                  artifacts: Path) -> None:
    base = live_server.url
    said = {"sv": "5 minuter kvar", "de": "noch 5 Minuten"}
    for code in ("sv", "de"):
        status, made = call(base, "POST", "/api/tournaments", {
            "name": "Simkväll", "currency": "SEK", "game": "schwimmen", "players": PLAYERS[1:], "table_size": 3,
            "seed": "five", "series_minutes": 30})
        assert status == 201, made
        from referee.models import Tournament, db
        from referee.models import now as utc_now

        with live_server.app.app_context():  # 5 minutes and 12 seconds are left (opening the hall takes a few)
            tourn = db.session.get(Tournament, made["id"])
            assert tourn is not None
            tourn.series_started_at = utc_now() - timedelta(minutes=25) + timedelta(seconds=12)
            db.session.commit()
        hall = watch(context(browser, {"width": 1920, "height": 1080}, mobile=False), artifacts,
                     f"hall-clock-five-{code}-")
        page = hall.page
        open_hall(page, base, made, code)
        page.evaluate("""() => { window.said = [];
            new MutationObserver(() => said.push(document.getElementById('announce').textContent))
                .observe(document.getElementById('announce'), {childList: true, characterData: true,
                                                               subtree: true}); }""")
        shown = page.locator(".hall-clock .hall-left").inner_text().strip()
        assert "05:00" < shown <= "05:12", shown
        page.wait_for_function("() => document.querySelector('.hall-clock .hall-left').textContent.trim() "
                               "=== '04:57'", timeout=20_000)
        assert page.evaluate("() => window.said.filter(t => t)") == [said[code]]
        assert page.locator(".hall-table.late").count() == 0
        assert not hall.problems, hall.problems
        page.context.close()


def test_thirty_tables_of_four_show_their_numbers_readably_on_two_pages(live_server: LiveServer, browser: Any,
                                                                        artifacts: Path) -> None:
    base = live_server.url
    players = [f"Spelare {n:03d}" for n in range(1, 121)]
    status, made = call(base, "POST", "/api/tournaments", {
        "name": "Storkväll", "currency": "SEK", "game": "schwimmen", "players": players, "table_size": 4,
        "series": 2, "seed": "thirty"})
    assert status == 201, made
    assert len(made["tables"]) == 30
    lose_a_life(base, made["tables"][20], made["edit_token"])  # a table on the second page has numbers to show
    hall = watch(context(browser, {"width": 1920, "height": 1080}, mobile=False), artifacts, "hall-clock-thirty-")
    page = hall.page
    for code in ("sv", "de"):
        open_hall(page, base, made, code)
        first_page, second_page = WORDS[code][4:6]
        for label in (first_page, second_page):  # each page in its turn (static/js/hall.js), about 12 s
            page.locator(".hall-pages", has_text=label).wait_for(timeout=20_000)
            seen = page.evaluate("""() => {
                const doc = document.documentElement;
                const cards = [...document.querySelectorAll('.hall-table')].filter(e => e.offsetParent);
                const lis = cards.flatMap(c => [...c.querySelectorAll('li')]);
                const px = e => parseFloat(getComputedStyle(e).fontSize);
                return {wide: doc.scrollWidth, high: doc.scrollHeight, tables: cards.map(c => +c.dataset.table),
                        names: Math.min(...lis.map(li => px(li.querySelector('.hall-name')))),
                        numbers: Math.min(...lis.map(li => px(li.querySelector('.hall-count')))),
                        counts: lis.filter(li => li.querySelector('.hall-count').textContent.trim()).length,
                        cut: lis.filter(li => { const n = li.querySelector('.hall-name'), c = li.closest('.hall-table');
                            const r = n.getBoundingClientRect();
                            const k = li.querySelector('.hall-count').getBoundingClientRect();
                            return n.scrollWidth > n.clientWidth + 1 || k.right > c.getBoundingClientRect().right + 1
                                || r.bottom > innerHeight || k.bottom > innerHeight; }).length};
            }""")
            hall.shot(f"{code}-{label.split()[1]}", full=True)
            assert seen["wide"] <= 1920 and seen["high"] <= 1080, (code, label, seen)  # no scrolling at all
            assert len(seen["tables"]) == 15 and seen["counts"] == 60, (code, label, seen)
            assert seen["cut"] == 0, (code, label, seen)
            assert seen["names"] >= 24 and seen["numbers"] >= 19, (code, label, seen)  # read across the room
            hall.shot(f"{code}-{label.split()[1]}", full=False)
            if code == "sv" and label == second_page:  # a round on the page shown: it stays shown after the swap
                loser = lose_a_life(base, made["tables"][20], made["edit_token"])
                row = f'.hall-table[data-table="{made["tables"][20]["table"]}"] li[data-player="{loser}"] .hall-count'
                page.wait_for_function("sel => document.querySelector(sel).textContent.trim() === '1 liv'", arg=row,
                                       timeout=6000)
                assert page.locator(".hall-pages").inner_text().strip() == second_page
                assert page.locator(f'.hall-table[data-table="{made["tables"][20]["table"]}"]').is_visible()
        if code == "sv":
            assert_axe(page, "hall of 30 tables")
    lives = page.locator(f'.hall-table[data-table="{made["tables"][20]["table"]}"] .hall-count').all_inner_texts()
    assert sorted(t.strip() for t in lives) == ["1 Leben", "3 Leben", "3 Leben", "3 Leben"], lives
    assert not hall.problems, hall.problems


def names_on_screen(page: Any) -> dict[str, Any]:
    """The names' type in device pixels (CSS pixels × devicePixelRatio), and whether any is cut or scrolls."""
    return dict(page.evaluate("""() => {
        const names = [...document.querySelectorAll('.hall-table .hall-name')];
        return {px: Math.min(...names.map(n => parseFloat(getComputedStyle(n).fontSize) * devicePixelRatio)),
                cut: names.filter(n => n.scrollWidth > n.clientWidth + 1 || n.getBoundingClientRect().right
                     > n.closest('.hall-table').getBoundingClientRect().right + 1).map(n => n.textContent.trim()),
                sideways: document.documentElement.scrollWidth > innerWidth};
    }"""))


def test_zoom_and_a_larger_default_text_grow_the_halls_names(live_server: LiveServer, browser: Any,
                                                             artifacts: Path) -> None:
    base = live_server.url
    status, made = call(base, "POST", "/api/tournaments", {
        "name": "Simkväll", "currency": "SEK", "game": "schwimmen", "players": PLAYERS, "table_size": 3,
        "series": 2, "seed": "hall-zoom"})
    assert status == 201, made
    for code in ("sv", "de"):
        plain = watch(context(browser, {"width": 1920, "height": 1080}, mobile=False), artifacts,
                      f"hall-clock-zoom-{code}-")
        open_hall(plain.page, base, made, code)
        at_100 = names_on_screen(plain.page)
        assert at_100["px"] >= 32 and not at_100["cut"] and not at_100["sideways"], at_100
        plain.shot("100")
        # browser zoom 200 %: the same screen, each CSS pixel two device pixels
        ctx = browser.new_context(viewport={"width": 960, "height": 540}, device_scale_factor=2,
                                  locale=LOCALES[code])
        zoomed = watch(ctx.new_page(), artifacts, f"hall-clock-zoom-{code}-")
        open_hall(zoomed.page, base, made, code)
        at_200 = names_on_screen(zoomed.page)
        assert at_200["px"] >= 1.3 * at_100["px"], (at_100, at_200)  # grows with the zoom
        assert not at_200["cut"] and not at_200["sideways"], at_200  # wraps, scrolls down only
        assert LONG in zoomed.page.locator(".hall-table .hall-name").all_inner_texts()
        zoomed.shot("200")
        # a doubled default text size (the browser's font settings), no zoom
        cdp = plain.page.context.new_cdp_session(plain.page)
        cdp.send("Page.setFontSizes", {"fontSizes": {"standard": 32, "fixed": 26}})
        plain.page.reload()
        large = names_on_screen(plain.page)
        assert large["px"] >= 1.3 * at_100["px"], (at_100, large)
        assert not large["cut"] and not large["sideways"], large
        plain.shot("large-text")
        for watched in (plain, zoomed):
            assert not watched.problems, watched.problems
            watched.page.context.close()


@pytest.mark.parametrize("code", ["sv", "de"])
def test_the_organiser_sets_a_series_time_limit_on_the_form(live_server: LiveServer, browser: Any,
                                                            artifacts: Path, code: str) -> None:
    base = live_server.url
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True,
                              locale=LOCALES[code])
    ctx.set_default_timeout(15_000)
    org = watch(ctx.new_page(), artifacts, f"hall-clock-form-{code}-")
    page = org.page
    page.goto(f"{base}/lang/{code}?next=/tournaments/new")
    page.wait_for_url("**/tournaments/new")
    page.locator("#game").select_option("schwimmen")  # the form comes back with Schwimmen's options
    page.locator("[name=opt_lives]").wait_for()
    page.locator("#name").fill("Klubbkväll")
    page.locator("#players").fill("\n".join(PLAYERS[1:]))
    page.locator("#table_size").fill("3")
    limit = page.get_by_label(WORDS[code][6])
    limit.fill("40")
    limit.scroll_into_view_if_needed()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    assert_axe(page, f"new tournament with a time limit ({code})")
    org.shot("limit")
    page.locator("#tournament-form button[type=submit]").last.tap()
    page.get_by_role("heading", name="Klubbkväll").wait_for()
    from referee.models import Tournament, db

    with live_server.app.app_context():
        tourn = db.session.query(Tournament).one()
        assert tourn.series_minutes == 40 and tourn.series_started_at is not None
    assert not org.problems, org.problems
    ctx.close()
