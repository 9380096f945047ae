"""Each game's form parser and its inverse (the correct page's prefill, issue 42.1): parse(fields(p)) == p.

Payloads in the shape the match page's forms send them, for every game of the registry; a game added to the
registry without cases here fails the first test.
"""

from __future__ import annotations

from typing import Any

import pytest

from referee.engine.spec import SPECS
from referee.offline import round_parse

PLAYERS = ["Anna", "Bo", "Cia", "Dan"]
SK = {"svangare": "Bo", "passed_svangare": "Cia"}
SL = {"in_match": ["Anna", "Bo", "Cia", "Dan"]}
SW = {"players": {"Anna": {"out": False}, "Bo": {"out": False}, "Cia": {"out": False}, "Dan": {"out": True}}}

#: game -> (state as JSON, payloads).
CASES: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {
    "svangknack": (SK, [
        {"svangare": "Bo", "participants": ["Bo"]},
        {"svangare": "Bo", "participants": ["Bo", "Anna", "Dan"], "tricks": {"Bo": 2, "Anna": 0, "Dan": 1}},
        {"svangare": "Cia", "participants": ["Cia", "Dan"], "tricks": {"Cia": 3, "Dan": 0}, "new_stake": "6.00"},
        {"svangare": "Bo", "participants": ["Bo", "Cia"], "tricks": {"Bo": 1, "Cia": 2}, "redeal": True},
    ]),
    "kul": ({}, [{"last_trick": "Cia"}, {"last_trick": "Anna"}]),
    "schloapfer": (SL, [
        {"eyes": {"Anna": 45, "Bo": 30, "Cia": 12, "Dan": 65}},
        {"eyes": {"Bo": 80, "Dan": 72}},
        {"eyes": {"Cia": 0}},
    ]),
    "schwimmen": (SW, [
        {"ended_by": "knock", "by": "Anna", "losers": ["Bo"]},
        {"ended_by": "31", "by": "Bo", "points": {"Anna": 30.5, "Bo": 31, "Cia": 17}},
        {"ended_by": "knock", "by": "Cia", "hands": {"Anna": ["AC", "KC", "9C"], "Bo": ["7D", "7H", "7S"],
                                                     "Cia": ["10S", "QS", "JS"]}},
        {"ended_by": "feuer", "by": "Cia"},
    ]),
    "knaker": ({}, [
        {"dot": {"player": "Bo", "offence": "late"}},
        {"dot": {"player": "Dan", "offence": "other", "dots": 3}},
        {"events": [{"out": ["Anna"]}, {"lost": ["Bo", "Dan"]}, {"out": ["Cia"]}]},
        {"events": [{"disqualified": ["Cia"]}, {"out": ["Bo"]}, {"lost": ["Anna"]}]},
    ]),
}


def test_every_registered_game_has_an_inverse_and_cases() -> None:
    assert sorted(CASES) == sorted(SPECS)
    assert all(callable(getattr(round_parse.module(game), "fields", None)) for game in SPECS)


@pytest.mark.parametrize(("game", "payload"), [(g, p) for g, (_s, ps) in CASES.items() for p in ps])
def test_parse_of_the_inverse_is_the_payload(game: str, payload: dict[str, Any]) -> None:
    module = round_parse.module(game)
    assert module is not None
    state = CASES[game][0]
    form = module.fields(payload, state, PLAYERS)
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in form.items())  # what a form sends
    assert module.parse(form, state, PLAYERS) == payload
