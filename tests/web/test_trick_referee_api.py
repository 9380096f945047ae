"""POST /api/referee/tricks (API.md "Tricks") through the Flask test client.

The verdicts are the engine's (tests/engine/test_tricks.py); here: the shape of
the contract, the 400s with their field, and the reason in the request's language.
"""

from __future__ import annotations

from typing import Any

URL = "/api/referee/tricks"
EXAMPLE = {"game": "svangknack", "trump": "H", "players": ["Anna", "Bo", "Cia"], "leader": "Anna",
           "tricks": [["AS", "KS", "2S"], ["5H", "9H", "QH"], ["3D", "4C", "7D"]]}


def test_api_example(client: Any) -> None:
    r = client.post(URL, json=EXAMPLE)
    assert r.status_code == 200
    assert r.get_json() == {"legal": True, "winners": ["Anna", "Cia", "Bo"],
                            "tricks_won": {"Anna": 1, "Bo": 1, "Cia": 1},
                            "round": {"participants": ["Anna", "Bo", "Cia"],
                                      "tricks": {"Anna": 1, "Bo": 1, "Cia": 1}}}


def test_broken_rule_in_three_languages(client: Any) -> None:
    body = {**EXAMPLE, "tricks": [["9S", "5S", "2S"], ["3S", "KS", "4S"]]}
    en = client.post(URL, json=body, headers={"Accept-Language": "en"}).get_json()
    assert en == {"legal": False, "trick": 1, "position": 2, "player": "Bo", "card": "5S", "rule": "SK-15",
                  "reason": "Bo had to beat nine of spades with king of spades (forced overtaking, SK-15).",
                  "winners": [], "card_name": "five of spades"}
    sv = client.post(URL, json=body, headers={"Accept-Language": "sv"}).get_json()["reason"]
    de = client.post(URL, json=body, headers={"Accept-Language": "de"}).get_json()["reason"]
    assert len({en["reason"], sv, de}) == 3
    assert "spader kung" in sv and "spader nio" in sv and "Pik König" in de and all("SK-15" in t for t in (sv, de))


def test_schloapfer_eyes_and_ask(client: Any) -> None:
    body = {"game": "schloapfer", "trump": "H", "players": ["Anna", "Bo"], "leader": "Anna",
            "tricks": [["AS"]], "hands": {"Bo": ["6S", "7D", "7H"]}, "ask": {"player": "Bo", "card": "7D"}}
    out = client.post(URL, json=body).get_json()
    assert out["legal"] is False and out["rule"] == "SL-14" and sorted(out["playable"]) == ["6S", "7H"]
    assert "round" not in out  # the broken-rule shape of API.md
    body = {**body, "ask": {"player": "Bo", "card": "7H"}}
    out = client.post(URL, json=body).get_json()
    assert out["legal"] is True and out["round"] is None and out["eyes"] == {"Anna": 0, "Bo": 0}


def test_impossible_input_is_400_with_field(client: Any) -> None:
    for change, field in [({"tricks": [["AS", "AS", "2S"]]}, "tricks"),
                          ({"tricks": [["AS", "KS", "2S", "3S"]]}, "tricks"),
                          ({"game": "schloapfer", "tricks": [["2S", "KS", "AS"]]}, "tricks"),
                          ({"leader": "Dan"}, "leader"),
                          ({"game": "poker"}, "game")]:
        r = client.post(URL, json={**EXAMPLE, **change})
        assert r.status_code == 400, change
        assert r.get_json()["field"] == field


def test_import_errors_in_the_request_language(client: Any) -> None:
    """Import errors are templates too (issue 12: every referee text in sv/de/en)."""
    body = {"version": 99, "night": {"name": "x", "currency": "SEK"}, "players": []}
    texts = {}
    for lang in ("en", "sv", "de"):
        r = client.post("/api/import", json=body, headers={"Accept-Language": lang})
        assert r.status_code == 400 and r.get_json()["field"] == "version"
        texts[lang] = r.get_json()["error"]
    assert texts["en"] == "This app reads export version 1–3; the file has version 99."
    assert len(set(texts.values())) == 3 and all("99" in t for t in texts.values())
