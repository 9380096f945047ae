"""Charts on the sheets (issue 14): the score protocol and the season sheet render them.

Read back twice: the chart's words (axis titles, tick labels, the players'
labels) from the PDF's text, and the chart itself from a rendered image:
each player's line colour must be on the page (the tables are black and
grey, so a coloured pixel can only come from the chart).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PIL import Image

from referee import charts
from tests.pdf_helpers import first_page_png, pdf_text
from tests.web.helpers import Api

PLAYERS = ["Anna", "Bo", "Cia", "Dan"]


def colour_pixels(png: Path, colour: str, tolerance: int = 40) -> int:
    """How many pixels of the image are close to ``colour`` (#rrggbb)."""
    want = tuple(int(colour[k:k + 2], 16) for k in (1, 3, 5))
    raw = Image.open(png).convert("RGB").tobytes()
    return sum(1 for k in range(0, len(raw), 3)
               if abs(raw[k] - want[0]) + abs(raw[k + 1] - want[1]) + abs(raw[k + 2] - want[2]) <= tolerance)


def play(api: Api) -> int:
    m = api.new_match("svangknack", PLAYERS, stake="3.00")["id"]
    api.round(m, {"participants": ["Bo", "Dan"], "tricks": {"Bo": 2, "Dan": 1}})
    api.round(m, {"participants": ["Cia", "Anna"], "tricks": {"Cia": 3}})
    api.round(m, {"participants": ["Dan"]})
    api.round(m, {"participants": ["Anna", "Bo"], "tricks": {"Anna": 1, "Bo": 2}})
    return int(m)


def test_protocol_renders_the_balance_chart(client: Any, artifacts: Path) -> None:
    api = Api(client)
    api.new_night(PLAYERS, group="Fredagsgänget")
    m = play(api)
    resp = client.get(f"/matches/{m}/protocol.pdf?view={api.night['view_token']}")
    assert resp.status_code == 200
    text = pdf_text(resp.data)
    assert "Balance of each player after each round" in text  # the chart's caption
    assert "round" in text and "Pot" in text                   # axis title and the band's label
    png = first_page_png(resp.data, artifacts / "pdf" / "protocol-chart.png")
    for k, _name in enumerate(PLAYERS):  # the group's first four players: the first four colours
        assert colour_pixels(png, charts.style(k).colour) > 30, charts.style(k).colour


def test_season_sheet_renders_the_season_chart(client: Any, artifacts: Path) -> None:
    api = Api(client)
    api.new_night(PLAYERS, group="Fredagsgänget", date="2026-10-02")
    play(api)
    later = Api(client)
    later.new_night(PLAYERS, group_token=api.night["group_token"], date="2026-10-09")
    play(later)
    resp = client.get(f"/groups/{api.night['group_token']}/season.pdf")
    assert resp.status_code == 200 and resp.mimetype == "application/pdf"
    text = pdf_text(resp.data)
    assert "Season: Fredagsgänget" in text and "Standings (SEK)" in text
    assert "Each player's total after each night" in text and "2 Oct" in text and "9 Oct" in text
    png = first_page_png(resp.data, artifacts / "pdf" / "season-sheet.png")
    for k in range(len(PLAYERS)):
        assert colour_pixels(png, charts.style(k).colour) > 30, charts.style(k).colour
