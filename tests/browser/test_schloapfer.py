"""A three-player Schloapfer match played to its end on a phone, in headless Chromium.

The issue: "a browser test that plays a 3-player match to its end on a phone
viewport and keeps a screenshot of the X protocol". Everything goes through
the pages a game leader taps (real forms, CSRF on), including the eye
counter carried into the deal form, a rejected deal and a voided one.

Worked out by hand from ``shared/rules/schloapfer.md``. Seats Anna (0), Bo
(1), Cia (2), clockwise; Anna deals first; stake 2.00 SEK, ``loser_pays``.
Three players: 1 stroke at stake (SL-5), and still 1 with two left. Each
state is (points, uncancelled rings, rings in total) per player.

 seq dealer  entered (forehand first)         what happens
  1  Anna    Bo 55 (counted), Cia 12, Anna 85  Anna top -> stroke A=1; Cia <21 -> ring C r1
  2  Bo      Cia 70, Anna passed, Bo 40        Cia top -> stroke cancels Cia's ring (C r0, total 1)
  3  Cia     Anna passed, Bo passed, Cia ""    dealer wins without play (SL-4): C=1
  4  Anna    Bo 10, Cia 15, Anna 20            nobody 21: no stroke, a ring each (SL-7)
  5  Bo      Cia 50, Anna 50, Bo 52            Bo top -> cancels Bo's ring
  -  Cia     Anna 100, Bo 60, Cia 10           170 > 152: rejected (SL-13), nothing stored
  6  Cia     Anna 80, Bo 60, Cia 10            Anna cancels her ring; Cia ring (r2, total 3)
  7  Anna    Bo 60, Cia 60, Anna 30            tie: Bo sits nearest the dealer's left (SL-6): B=1
  8  Bo      Cia 26, Anna 100, Bo 26           A=2
  9  Cia     Anna 100, Bo 26, Cia 26           A=3
 10  Anna    Bo 26, Cia 100, Anna 26           (a slip: Cia would cancel a ring) -> voided
 11  Anna    Bo 100, Cia 26, Anna 26           B=2
 12  Bo      Cia 26, Anna 100, Bo 26           A=4
 13  Cia     Anna 100, Bo 26, Cia 26           A=5: Anna has finished (SL-9); Bo deals next
 14  Bo      Cia passed, Bo ""                 Bo wins without play: B=3
 15  Cia     Bo 90, Cia 62                     B=4
 16  Bo      Cia 40, Bo 112                    B=5: Bo finished; Cia is the last left and has lost
 Money (SL-9): Cia pays 2.00 to each of the two others: Anna +2.00, Bo +2.00, Cia -4.00.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import LiveServer, new_night, watch

pytestmark = pytest.mark.browser

SEATS = ["Anna", "Bo", "Cia"]
PASS = "pass"

# (seq, {name: eyes | PASS | ""}, the next dealer, {name: (points, rings, rings_total)})
DEALS: list[tuple[int, dict[str, Any], str, dict[str, tuple[int, int, int]]]] = [
    (1, {"Bo": 55, "Cia": 12, "Anna": 85}, "Bo", {"Anna": (1, 0, 0), "Bo": (0, 0, 0), "Cia": (0, 1, 1)}),
    (2, {"Cia": 70, "Anna": PASS, "Bo": 40}, "Cia", {"Anna": (1, 0, 0), "Bo": (0, 0, 0), "Cia": (0, 0, 1)}),
    (3, {"Anna": PASS, "Bo": PASS, "Cia": ""}, "Anna", {"Anna": (1, 0, 0), "Bo": (0, 0, 0), "Cia": (1, 0, 1)}),
    (4, {"Bo": 10, "Cia": 15, "Anna": 20}, "Bo", {"Anna": (1, 1, 1), "Bo": (0, 1, 1), "Cia": (1, 1, 2)}),
    (5, {"Cia": 50, "Anna": 50, "Bo": 52}, "Cia", {"Anna": (1, 1, 1), "Bo": (0, 0, 1), "Cia": (1, 1, 2)}),
    (6, {"Anna": 80, "Bo": 60, "Cia": 10}, "Anna", {"Anna": (1, 0, 1), "Bo": (0, 0, 1), "Cia": (1, 2, 3)}),
    (7, {"Bo": 60, "Cia": 60, "Anna": 30}, "Bo", {"Anna": (1, 0, 1), "Bo": (1, 0, 1), "Cia": (1, 2, 3)}),
    (8, {"Cia": 26, "Anna": 100, "Bo": 26}, "Cia", {"Anna": (2, 0, 1), "Bo": (1, 0, 1), "Cia": (1, 2, 3)}),
    (9, {"Anna": 100, "Bo": 26, "Cia": 26}, "Anna", {"Anna": (3, 0, 1), "Bo": (1, 0, 1), "Cia": (1, 2, 3)}),
    (10, {"Bo": 26, "Cia": 100, "Anna": 26}, "Bo", {"Anna": (3, 0, 1), "Bo": (1, 0, 1), "Cia": (1, 1, 3)}),
    (11, {"Bo": 100, "Cia": 26, "Anna": 26}, "Bo", {"Anna": (3, 0, 1), "Bo": (2, 0, 1), "Cia": (1, 2, 3)}),
    (12, {"Cia": 26, "Anna": 100, "Bo": 26}, "Cia", {"Anna": (4, 0, 1), "Bo": (2, 0, 1), "Cia": (1, 2, 3)}),
    (13, {"Anna": 100, "Bo": 26, "Cia": 26}, "Bo", {"Anna": (5, 0, 1), "Bo": (2, 0, 1), "Cia": (1, 2, 3)}),
    (14, {"Cia": PASS, "Bo": ""}, "Cia", {"Anna": (5, 0, 1), "Bo": (3, 0, 1), "Cia": (1, 2, 3)}),
    (15, {"Bo": 90, "Cia": 62}, "Bo", {"Anna": (5, 0, 1), "Bo": (4, 0, 1), "Cia": (1, 2, 3)}),
    (16, {"Cia": 40, "Bo": 112}, "", {"Anna": (5, 0, 1), "Bo": (5, 0, 1), "Cia": (1, 2, 3)}),
]
# After voiding seq 10 the state is the one after seq 9 again.
FINAL_BALANCES = {"Anna": 200, "Bo": 200, "Cia": -400}


def minor(text: str) -> int:
    """A displayed amount ("-SEK 4.00", "SEK 2.00") in öre, parsed independently of the app."""
    cleaned = text.replace("\u2212", "-").replace("\xa0", " ").strip()
    value = int(Decimal(re.sub(r"[^0-9.]", "", cleaned)) * 100)
    return -value if "-" in cleaned else value


def shown_balances(page: Any) -> dict[str, int]:
    rows = page.locator("table.balances tr")
    return {rows.nth(i).locator("th").inner_text().strip(): minor(rows.nth(i).locator("td").inner_text())
            for i in range(rows.count())}


def shown_x(page: Any) -> dict[str, tuple[int, int, int]]:
    """Each player's X as drawn: struck arms (+ struck centre), rings left, all rings."""
    out = {}
    for seat, name in enumerate(SEATS):
        svg = page.locator(f"#x-{seat} svg")
        arms = svg.locator("line.arm.struck").count()
        centre = svg.locator("circle.centre.struck").count()
        rings = svg.locator("circle.ring").count()
        cancelled = svg.locator("circle.ring.cancelled").count()
        assert centre in (0, 1) and (centre == 0 or arms == 4), (name, arms, centre)
        out[name] = (arms + centre, rings - cancelled, rings)
    return out


def form_order(page: Any) -> list[str]:
    return page.locator("#round-form tr.player-row").evaluate_all("rows => rows.map(r => r.dataset.name)")


def enter(page: Any, entries: dict[str, Any]) -> None:
    """Tap "passed" or type the eyes, row by row; check the live count of eyes left."""
    for name, value in entries.items():
        row = page.locator(f'#round-form tr[data-name="{name}"]')
        if value == PASS:
            row.locator("label.toggle").tap()
            assert row.locator("input.sl-eyes-in").is_disabled()
        else:
            row.locator("input.sl-eyes-in").fill(str(value))
    typed = sum(v for v in entries.values() if isinstance(v, int))
    assert page.locator("#eyes-left-n").inner_text() == str(152 - typed)


def save(page: Any, seq: int | None) -> None:
    page.locator("#save-round").tap()
    if seq is not None:
        page.locator(".flash.ok", has_text=f"Deal {seq} saved").wait_for()


def check(page: Any, next_dealer: str, expected: dict[str, tuple[int, int, int]]) -> None:
    assert shown_x(page) == expected
    if next_dealer:
        assert page.locator("#dealer").inner_text().strip() == next_dealer
        assert form_order(page)[-1] == next_dealer  # the dealer speaks last (SL-4)
        in_match = [n for n in SEATS if expected[n][0] < 5]
        start = (SEATS.index(next_dealer) + 1) % 3
        clockwise = [SEATS[(start + k) % 3] for k in range(3)]
        assert form_order(page) == [n for n in clockwise if n in in_match]  # finished players left out
        assert page.locator("#at-stake").inner_text().strip() == "1"


def test_schloapfer_match_to_the_end_on_a_phone(live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    page = phone
    watched = watch(page, artifacts, "schloapfer-")
    problems, shot, shots = watched.problems, watched.shot, watched.shots

    # --- night and match ------------------------------------------------------
    new_night(page, live_server.url, "Jasskväll", SEATS, currency="SEK")
    page.get_by_role("link", name="New match").tap()
    page.get_by_role("heading", name="New match").wait_for()
    game = page.locator('select[name="game"]')
    if game.input_value() != "schloapfer":
        with page.expect_navigation():
            game.select_option("schloapfer")
    assert page.get_by_text("Two strokes with three players").count() == 1
    page.get_by_label("First dealer").select_option("Anna")
    page.get_by_label("Stake").fill("2.00")
    page.get_by_role("button", name="Start the match").tap()
    page.locator("#round-form").wait_for()
    match_url = page.url
    match_id = int(re.search(r"/matches/(\d+)", match_url).group(1))  # type: ignore[union-attr]
    assert form_order(page) == ["Bo", "Cia", "Anna"]
    assert page.locator('#round-form tr[data-name="Anna"] input[type=checkbox]').count() == 0  # dealer plays
    assert page.locator("#eyes-left-n").inner_text() == "152"
    assert page.locator("input.sl-eyes-in").first.get_attribute("inputmode") == "numeric"
    shot("1-deal-form")

    # --- deal 1: Bo's pile counted on the eye counter and carried back ---------
    page.locator('#round-form tr[data-name="Bo"] a.sl-count').tap()
    page.get_by_role("heading", name="Eye counter").wait_for()
    page.locator(".sl-trump label.pick", has=page.locator('input[value="H"]')).tap()
    # J♥ 20 and 9♥ 14 in trumps, A♠ 11, 10♠ 10: 55 eyes (SL-2).
    for card in ("JH", "9H", "AS", "10S"):
        page.locator("label.sl-card", has=page.locator(f'input[value="{card}"]')).tap()
    page.locator("#eyes-total", has_text="55").wait_for()
    assert page.locator('small.sl-e[data-card="JH"]').inner_text() == "20"
    assert page.locator('small.sl-e[data-card="9H"]').inner_text() == "14"
    assert page.locator("a.carry.primary .carry-n").inner_text() == "55"
    shot("2-eye-counter")
    page.locator("a.carry.primary").tap()
    page.locator("#round-form").wait_for()
    assert page.locator('input[name="eyes_1"]').input_value() == "55"
    assert page.locator("#eyes-left-n").inner_text() == "97"
    seq, entries, dealer, expected = DEALS[0]
    enter(page, {k: v for k, v in entries.items() if k != "Bo"} | {"Bo": 55})
    save(page, seq)
    check(page, dealer, expected)
    assert "Anna a stroke" in page.locator("#last-deal").inner_text()

    for seq, entries, dealer, expected in DEALS[1:5]:
        enter(page, entries)
        save(page, seq)
        check(page, dealer, expected)
        if seq == 3:
            assert "Cia wins without play" in page.locator("#round-3 .what").inner_text()
        if seq == 4:
            assert "nobody took 21" in page.locator("#last-deal").inner_text()

    # --- a deal that does not add up: rejected, nothing stored, what was typed kept
    enter(page, {"Anna": 100, "Bo": 60, "Cia": 10})
    assert page.locator("#eyes-left-n").inner_text() == "-18"
    save(page, None)
    error = page.locator("#round-form p.error[role=alert]")
    error.wait_for()
    assert "SL-13" in error.inner_text() and "170" in error.inner_text()
    assert page.locator('input[name="eyes_0"]').input_value() == "100"
    assert page.locator('input[name="eyes_1"]').input_value() == "60"
    assert page.locator(".history li").count() == 5
    check(page, "Cia", DEALS[4][3])
    err_box, table_box = error.bounding_box(), page.locator("table.sl-eyes").bounding_box()
    assert 0 <= table_box["y"] - (err_box["y"] + err_box["height"]) < 80, (err_box, table_box)
    shot("3-error")
    page.locator('input[name="eyes_0"]').fill("80")
    save(page, 6)
    check(page, *DEALS[5][2:])

    for seq, entries, dealer, expected in DEALS[6:10]:
        enter(page, entries)
        save(page, seq)
        check(page, dealer, expected)

    # --- void the slip of deal 10 -----------------------------------------------
    page.locator("#round-10 a.void-link").tap()
    assert "Anna 26 · Bo 26 · Cia 100" in page.locator(".round-summary").inner_text()
    page.locator("input[name=reason]").fill("Cia's pile was Bo's")
    page.get_by_role("button", name="Void deal 10").tap()
    page.locator(".flash.ok", has_text="Deal 10 is void").wait_for()
    check(page, "Anna", DEALS[8][3])

    for seq, entries, dealer, expected in DEALS[10:]:
        enter(page, entries)
        save(page, seq - 1)  # the voided deal 10 never happened: the table counts this one as deal seq - 1
        if seq == 13:
            assert page.locator("#x-0 .sl-status").inner_text() == "finished"
        check(page, dealer, expected)

    # --- the end: Cia is the last player left and has lost ------------------------
    assert page.locator("#round-form").count() == 0
    assert "Cia is the last player left and has lost (SL-9)" in page.locator("#end").inner_text()
    assert shown_balances(page) == FINAL_BALANCES
    assert sum(FINAL_BALANCES.values()) == 0
    assert page.locator("#x-2 .sl-status").inner_text() == "lost"
    assert page.locator(".history li.void").count() == 1
    page.locator("section.sl-sheet").screenshot(path=str(shots / "schloapfer-x-protocol.png"))
    shot("4-end")

    # --- the protocol PDF link works for this phone ------------------------------
    resp = page.request.get(f"{live_server.url}/matches/{match_id}/protocol.pdf")
    assert resp.status == 200 and resp.body().startswith(b"%PDF-")

    # --- nothing wider than the phone -----------------------------------------------
    for url in (match_url, f"{live_server.url}/referee/schloapfer/eyes?match={match_id}&pos=1"):
        page.goto(url)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{url} is {width}px wide on a 390px phone"
    assert problems == []
