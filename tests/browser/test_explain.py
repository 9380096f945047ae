"""A player's "why?" on a 390×844 phone, in Swedish and German (issue 46.1).

A tournament night with an entry fee and a prize: on the settlement page
Björn's total opens his lines (his stake, his table's round, his fee), and
in his own view of the tournament his balance opens the same lines. The
lines add up to the total shown, nothing runs past the screen's edge, and
screenshots go to ``test-artifacts/browser/explain-<lang>-*.png``.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import LOCALES, PHONE, LiveServer, watch
from tests.browser.test_live import post
from tests.tournament.helpers import schwimmen_to_the_end

pytestmark = pytest.mark.browser

PLAYERS = ["Anna", "Björn", "Cia", "Märta"]
FEE = {"sv": "anmälningsavgift, Klubbkväll", "de": "Startgeld, Klubbkväll"}
WHY = {"sv": "varför?", "de": "warum?"}
BALANCE = {"sv": "Ditt saldo", "de": "Dein Saldo"}


def send_to(base: str, token: str) -> Any:
    def send(method: str, path: str, body: Any) -> tuple[int, Any]:
        req = urllib.request.Request(base + path, method=method, headers={
            "Content-Type": "application/json", "Authorization": f"Bearer {token}"},
            data=None if body is None else json.dumps(body).encode())
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    return send


def tournament_night(base: str) -> dict[str, Any]:
    made = post(base, "/api/tournaments", {"name": "Klubbkväll", "currency": "SEK", "game": "schwimmen",
                                           "players": PLAYERS, "table_size": 2, "series": 1, "stake": "1.00",
                                           "seed": "46", "entry_fee": "50.00", "prizes": [100]})
    for table in made["tables"]:
        schwimmen_to_the_end(send_to(base, table["table_token"]), table)
    post(base, f"/api/tournaments/{made['id']}/next", {}, made["edit_token"])
    return dict(made)


def lines_add_up(page: Any, details: Any) -> int:
    """The minor units of the lines in ``details`` add up to its player's total; returns the total."""
    minors = [int(m) for m in details.locator("li.explain-line").evaluate_all(
        "els => els.map(e => e.dataset.minor)")]
    assert minors, "no lines"
    return sum(minors)


def no_overflow(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_why_on_the_settlement_page_and_in_the_players_view(live_server: LiveServer, browser: Any,
                                                            artifacts: Path, lang: str) -> None:
    base = live_server.url
    made = tournament_night(base)
    night, tid = made["night"], made["id"]
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True,
                                  locale=LOCALES[lang])
    context.set_default_timeout(10_000)
    try:
        phone = watch(context.new_page(), artifacts, f"explain-{lang}-")
        page = phone.page
        page.goto(f"{base}/v/{made['view_token']}")
        page.goto(f"{base}/lang/{lang}?next=/nights/{night}/settlement")
        details = page.locator('details.explain[data-player="Björn"]')
        assert not details.locator("li.explain-line").first.is_visible()  # closed until asked
        details.locator("summary", has_text=WHY[lang]).tap()
        fee = details.get_by_text(FEE[lang])
        fee.wait_for()
        assert fee.is_visible()
        total = int(page.locator('td.total[data-player="Björn"]').get_attribute("data-minor") or "x")
        assert lines_add_up(page, details) == total
        box = details.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        no_overflow(page)
        details.scroll_into_view_if_needed()
        phone.shot("settlement", full=False)

        page.goto(f"{base}/tournaments/{tid}/me")
        page.get_by_role("button", name="Björn").tap()
        balance = page.locator("p.me-balance")
        balance.wait_for()
        assert BALANCE[lang] in balance.inner_text()
        mine = page.locator("details.explain")
        mine.locator("summary", has_text=WHY[lang]).tap()
        mine.get_by_text(FEE[lang]).wait_for()
        assert lines_add_up(page, mine) == int(balance.get_attribute("data-minor") or "x") == total
        no_overflow(page)
        mine.scroll_into_view_if_needed()
        phone.shot("me", full=False)
        assert not phone.problems, phone.problems
    finally:
        context.close()
