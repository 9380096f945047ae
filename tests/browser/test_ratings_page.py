"""The season page's ratings on a 390×844 phone in Swedish and German, in headless Chromium (issue 47.2).

The season of ``tests/browser/test_group_page.py`` (six nights of Kul and Svängknack) is entered through the
API; the phone opens the group link. Each game's table must list the players the API rates, in its order and
with its figures (in the page's language: a decimal comma), and the chart one line per player, inside the
screen; screenshots in ``test-artifacts/browser``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import PHONE, LiveServer, watch
from tests.browser.test_group_page import fits, season
from tests.ratings.test_ratings import ratings_of

pytestmark = pytest.mark.browser

HEADINGS = {"sv-SE": ("Spelstyrka", "Styrka"), "de-DE": ("Spielstärke", "Wertung")}


@pytest.mark.parametrize("locale", ["sv-SE", "de-DE"])
def test_ratings_table_and_chart_on_a_phone(live_server: LiveServer, browser: Any, artifacts: Path,
                                            locale: str) -> None:
    client = live_server.app.test_client()
    api, _match = season(client)
    token = api.night["group_token"]
    rated = ratings_of(client, token)
    assert set(rated) == {"kul", "svangknack"}
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True,
                                  locale=locale)
    try:
        phone = context.new_page()
        w = watch(phone, artifacts, f"ratings-{locale}-")
        phone.goto(f"{live_server.url}/groups/{token}")
        heading, column = HEADINGS[locale]
        phone.get_by_role("heading", name=heading, exact=True).wait_for()
        for game, rows in rated.items():
            table = phone.locator(f"#ratings-{game} table")
            assert table.locator("thead th").nth(1).inner_text() == column
            shown = [(r.locator("th").inner_text(), r.locator("td").first.inner_text())
                     for r in table.locator("tbody tr").all()]
            assert shown == [(r["player"], r["rating"].replace(".", ",")) for r in rows]
            assert phone.locator(f"#rating-chart-{game} polyline").count() == len(rows)
            fits(phone, f"#rating-chart-{game}")
            phone.locator(f"#ratings-{game}").screenshot(path=str(w.shots / f"ratings-{locale}-{game}.png"))
        w.shot("page")
        assert not w.problems, w.problems
    finally:
        context.close()
