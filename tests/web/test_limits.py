"""Bounded work per request (issue 25, item 9): events per match and per import, from the config.

A match takes at most ``MAX_MATCH_EVENTS`` events (5,000 by default: a long
evening's match has a few hundred) by round entry, close or import; an import
brings at most ``MAX_IMPORT_EVENTS`` (10,000) in all. Set small here so the
tests stay quick; on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee import config
from referee.models import db
from tests.conftest import make_app
from tests.web.helpers import Api

LIMIT = 4
PLAYERS = ["Anna", "Bo", "Cia"]
ROUND = {"participants": ["Anna", "Bo", "Cia"], "tricks": {"Anna": 1, "Bo": 1, "Cia": 1}}


@pytest.fixture
def small(backend: str, tmp_path: Path) -> Iterator[Any]:
    """The app with a match limit of ``LIMIT`` events and an import limit of ``2 * LIMIT + 1``."""
    application = make_app(backend, tmp_path, MAX_MATCH_EVENTS=LIMIT, MAX_IMPORT_EVENTS=2 * LIMIT + 1)
    yield application
    with application.app_context():
        db.session.remove()
        db.engine.dispose()


def _svangknack(api: Api) -> int:
    api.new_night(PLAYERS)
    return int(api.new_match("svangknack", PLAYERS, stake="3.00", options={"forced_participation": "always"})["id"])


def test_a_full_match_takes_no_more_events(small: Any) -> None:
    api = Api(small.test_client())
    match = _svangknack(api)
    for _ in range(LIMIT):
        status, body = api.round(match, ROUND)
        assert status == 201, body
    status, body = api.round(match, ROUND)
    assert status == 400 and body["field"] == "round" and f"holds {LIMIT} entries" in body["error"], body
    status, body = api.call("POST", f"/api/matches/{match}/close", {"pot": "split"})
    assert status == 400 and body["field"] == "round", body
    assert len(api.match(match)["rounds"]) == LIMIT
    status, body = api.round(match, ROUND, headers={"Accept-Language": "sv"})
    assert status == 400 and "det största en match får ha" in body["error"], body


def _export(*logs: int) -> dict[str, Any]:
    return {"format": "referee-night", "version": 1, "currency": "SEK",
            "night": {"name": "Limits", "currency": "SEK"}, "players": [{"name": p} for p in PLAYERS],
            "matches": [{"game": "svangknack", "seats": PLAYERS, "first_dealer": "Anna", "stake_minor": 300,
                         "options": {"forced_participation": "always"},
                         "rounds": [{"seq": k + 1, "payload": ROUND} for k in range(n)]} for n in logs]}


@pytest.mark.parametrize(("logs", "field", "words"), [
    ((LIMIT + 1,), "matches[0].rounds", f"more than {LIMIT} entries"),
    ((LIMIT, LIMIT, 2), "matches[2].rounds", f"more than {2 * LIMIT + 1} events in all"),
])
def test_imports_over_the_limits_are_refused(small: Any, logs: tuple[int, ...], field: str, words: str) -> None:
    client = small.test_client()
    reply = client.post("/api/import", json=_export(*logs))
    assert reply.status_code == 400 and reply.get_json()["field"] == field and words in reply.get_json()["error"]
    assert client.post("/api/import", json=_export(LIMIT, LIMIT, 1)).status_code == 201  # at the limits: in


def test_an_imported_round_numbered_past_the_match_limit_is_refused(small: Any) -> None:
    data = _export(1)
    data["matches"][0]["rounds"][0]["seq"] = LIMIT + 1
    reply = small.test_client().post("/api/import", json=data)
    assert reply.status_code == 400 and reply.get_json()["field"] == "matches[0].rounds[0].seq"


def test_the_limits_are_configured_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert config.load({"INSTANCE_PATH": str(tmp_path)})["MAX_MATCH_EVENTS"] == 5000
    assert config.load({"INSTANCE_PATH": str(tmp_path)})["MAX_IMPORT_EVENTS"] == 20000  # referee/bounds.py
    monkeypatch.setenv("MAX_MATCH_EVENTS", "700")
    monkeypatch.setenv("MAX_IMPORT_EVENTS", "900")
    settings = config.load({"INSTANCE_PATH": str(tmp_path)})
    assert (settings["MAX_MATCH_EVENTS"], settings["MAX_IMPORT_EVENTS"]) == (700, 900)


def test_a_round_that_would_make_an_amount_too_large_is_refused_and_the_match_can_close(app: Any) -> None:
    """SK-9 lets a pot grow without end (each bet player pays the whole pot again): with five players forced to
    take part and one taking every trick, the pot grows fourfold a round. Past ``MAX_AMOUNT`` the round is refused
    with a clear error and nothing is written (before, the amounts went on growing until the match page failed
    with a 500 on a 39-digit pot); the match still shows, and closes."""
    from decimal import Decimal

    from referee.engine.money import MAX_AMOUNT

    client = app.test_client()
    api = Api(client)
    five = ["Anna", "Bo", "Cia", "Dan", "Eva"]
    api.new_night(five)
    match = int(api.new_match("svangknack", five, stake="3.00", options={"forced_participation": "always"})["id"])
    sweep = {"participants": five, "tricks": {"Anna": 3}}
    entered = 0
    while entered < 60:
        before = api.match(match)
        status, body = api.round(match, sweep)
        if status != 201:
            break
        entered += 1
    assert 10 < entered < 30 and status == 400, (entered, status, body)
    assert body["field"] == "round" and "larger than the referee keeps" in body["error"], body
    assert api.match(match) == before  # nothing written
    state = before["state"]
    amounts = [Decimal(state["pot"]), *(Decimal(v) for v in state["balances"].values())]
    assert MAX_AMOUNT // 4 < max(abs(a) for a in amounts) * 100 <= MAX_AMOUNT
    status, body = api.round(match, sweep, headers={"Accept-Language": "de"})
    assert status == 400 and "größer" in body["error"], body
    assert client.get(f"/e/{api.night['edit_token']}").status_code == 302
    assert client.get(f"/matches/{match}").status_code == 200
    status, body = api.call("POST", f"/api/matches/{match}/close", {"pot": "split"})
    assert status == 200 and body["state"]["finished"], body
    assert client.get(f"/matches/{match}").status_code == 200


def test_an_import_whose_log_makes_an_amount_too_large_is_refused(app: Any) -> None:
    five = ["Anna", "Bo", "Cia", "Dan", "Eva"]
    sweep = {"participants": five, "tricks": {"Anna": 3}}
    data = {"format": "referee-night", "version": 1, "currency": "SEK",
            "night": {"name": "Too large", "currency": "SEK"}, "players": [{"name": p} for p in five],
            "matches": [{"game": "svangknack", "seats": five, "first_dealer": "Anna", "stake_minor": 300,
                         "options": {"forced_participation": "always"},
                         "rounds": [{"seq": k + 1, "payload": sweep} for k in range(30)]}]}
    client = app.test_client()
    reply = client.post("/api/import", json=data)
    assert reply.status_code == 400 and "larger than the referee keeps" in reply.get_json()["error"], reply.get_json()
    data["matches"][0]["rounds"] = data["matches"][0]["rounds"][:10]  # the same log, shorter: taken
    assert client.post("/api/import", json=data).status_code == 201
