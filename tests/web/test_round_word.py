"""The phone's queue names a waiting entry as its game does (``templates/_offline.html``, from the game's spec).

A Schloapfer entry is a deal, a Schwimmen or Knaker entry a game, the others' a round;
the word comes from ``GameSpec.round_word`` (issue 27: no list of game names in the template).
"""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from referee.engine.spec import SPECS
from tests.web.test_pages import create_match, create_night

WORDS = {"round": "Round {n}", "deal": "Deal {n}", "game": "Game {n}"}


@pytest.mark.parametrize("game", list(SPECS))
def test_the_queue_names_an_entry_with_its_games_word(client: Any, game: str) -> None:
    night = create_night(client)
    match = create_match(client, night, game=game)
    page = client.get(f"/matches/{match}").get_data(as_text=True)
    found = re.search(r'data-t-round="([^"]*)"', page)
    assert found is not None
    assert html.unescape(found.group(1)) == WORDS[SPECS[game].round_word]
    assert {"schloapfer": "Deal {n}", "schwimmen": "Game {n}", "knaker": "Game {n}"}.get(game, "Round {n}") \
        == html.unescape(found.group(1))


def test_a_page_without_a_match_names_a_round(client: Any) -> None:
    night = create_night(client)
    found = re.search(r'data-t-round="([^"]*)"', client.get(f"/nights/{night}").get_data(as_text=True))
    assert found is not None and html.unescape(found.group(1)) == "Round {n}"
