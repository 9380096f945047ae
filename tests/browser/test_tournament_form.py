"""The new-tournament form offers the game's options (issue 43.5), on the organiser's phone (390×844).

The form once sent no options, so every table played the defaults; and its
stake suggested 1.00, which Svängknack refuses (SK-2). Here the organiser
picks Schwimmen, sets 2 lives and turns Feuer off, and every table plays so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.browser.conftest import LiveServer, watch
from tests.browser.polish import assert_axe

PLAYERS = ["Anna", "Bo", "Cia", "Dan", "Eva", "Filip", "Greta", "Hugo", "Ida"]


def test_the_organiser_picks_schwimmen_with_two_lives_and_no_feuer(live_server: LiveServer, phone: Any,
                                                                  artifacts: Path) -> None:
    base = live_server.url
    org = watch(phone, artifacts, "tournament-form-")
    page = org.page
    page.goto(base + "/tournaments/new")
    page.get_by_label("Name of the tournament").fill("Simkväll")
    page.get_by_label("Players, one per line").fill("\n".join(PLAYERS))
    page.get_by_label("Most players at one table").fill("3")
    stake = page.get_by_label("Stake")
    assert stake.get_attribute("placeholder") == "3.00"  # Svängknack, the first game: a stake SK-2 takes
    page.get_by_label("Game").select_option("schwimmen")  # the form comes back with Schwimmen's options
    page.get_by_label("Lives").wait_for()
    assert page.get_by_label("Players, one per line").input_value() == "\n".join(PLAYERS)  # nothing typed lost
    assert page.get_by_label("Feuer").is_checked()  # the game's defaults
    page.get_by_label("Lives").fill("2")
    page.get_by_label("Feuer").uncheck()
    assert_axe(page, "new tournament, Schwimmen's options")
    org.shot("schwimmen")
    page.get_by_role("button", name="Draw the tables").tap()
    page.get_by_role("heading", name="Simkväll").wait_for()
    from referee.models import Tournament, db

    with live_server.app.app_context():
        tourn = db.session.query(Tournament).one()
        options = [dict(t.match.options) for t in tourn.tables]
    assert len(options) == 3
    assert all(o["lives"] == 2 and o["feuer"] is False for o in options), options
    assert not org.problems, org.problems
