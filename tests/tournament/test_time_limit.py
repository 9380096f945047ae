"""A series' time limit (issue 43.3, API.md "Tournaments" ``series_minutes``), on SQLite and PostgreSQL.

``series_minutes`` is optional on ``POST /api/tournaments`` (a whole number
of minutes within bounds, 400 naming the field otherwise); the view's
``ends_at`` is the moment the current series was drawn plus the limit, in
ISO 8601 UTC, ``null`` without a limit and once finished; ``next`` starts a
new clock. It decides nothing: ``next`` still waits for every table.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from referee.ledger.tournaments import MAX_SERIES_MINUTES
from tests.tournament.helpers import bearer, create, play_schwimmen, view


def ends(got: dict[str, Any]) -> datetime:
    text = got["ends_at"]
    assert isinstance(text, str) and text.endswith("Z"), text
    return datetime.fromisoformat(text)


def test_ends_at_is_the_draw_plus_the_limit_and_next_restarts_it(client: Any, app: Any) -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    made = create(client, series_minutes=45)
    after = datetime.now(UTC)
    got = view(client, made["id"], made["tables"][0]["table_token"])  # every reader sees it, a table too
    assert got["series_minutes"] == 45
    assert before + timedelta(minutes=45) <= ends(got) <= after + timedelta(minutes=45), got["ends_at"]
    assert view(client, made["id"], made["edit_token"])["ends_at"] == got["ends_at"]
    # the time limit decides nothing: the tables still playing keep ``next`` waiting
    resp = client.post(f"/api/tournaments/{made['id']}/next", headers=bearer(made["edit_token"]))
    assert resp.status_code == 409 and resp.get_json()["tables"] == [1, 2, 3]
    # the next series is drawn: its own clock, from its draw
    from referee.models import Tournament, db

    with app.app_context():  # the first series was drawn an hour ago
        tourn = db.session.get(Tournament, made["id"])
        assert tourn is not None and tourn.series_started_at is not None
        tourn.series_started_at -= timedelta(hours=1)
        db.session.commit()
    for table in made["tables"]:
        play_schwimmen(client, table, table["table_token"])
    drawn = datetime.now(UTC).replace(microsecond=0)
    resp = client.post(f"/api/tournaments/{made['id']}/next", headers=bearer(made["edit_token"]))
    assert resp.status_code == 201, resp.get_json()
    second = view(client, made["id"], made["edit_token"])
    assert second["series"] == 2
    assert drawn + timedelta(minutes=45) <= ends(second) <= datetime.now(UTC) + timedelta(minutes=45)
    # after the last series: nothing counts down
    for table in second["tables"]:
        play_schwimmen(client, table, made["edit_token"])
    resp = client.post(f"/api/tournaments/{made['id']}/next", headers=bearer(made["edit_token"]))
    assert resp.status_code == 200 and resp.get_json()["finished"] is True
    assert view(client, made["id"], made["edit_token"])["ends_at"] is None


def test_without_a_limit_ends_at_is_null(client: Any) -> None:
    made = create(client)
    got = view(client, made["id"], made["edit_token"])
    assert got["series_minutes"] is None and got["ends_at"] is None


def test_a_bad_limit_is_a_400_naming_the_field_and_writes_nothing(client: Any, app: Any) -> None:
    body = {"name": "Klubbkväll", "currency": "SEK", "game": "schwimmen", "players": ["Anna", "Bo", "Cia"],
            "table_size": 3}
    for minutes in (0, -5, MAX_SERIES_MINUTES + 1, 2.5, "45", True, [45]):
        resp = client.post("/api/tournaments", json=body | {"series_minutes": minutes})
        assert resp.status_code == 400, (minutes, resp.get_json())
        assert "series_minutes must be a whole number from 1 to" in resp.get_json()["error"], resp.get_json()
    from referee.models import Tournament, db

    with app.app_context():
        assert db.session.query(Tournament).count() == 0
    for minutes in (1, MAX_SERIES_MINUTES, None):  # the bounds themselves are taken, and null is no limit
        resp = client.post("/api/tournaments", json=body | {"series_minutes": minutes})
        assert resp.status_code == 201, (minutes, resp.get_json())


def test_the_openapi_document_names_series_minutes_and_ends_at(client: Any) -> None:
    doc = client.get("/api/openapi.json").get_json()
    created = doc["components"]["schemas"]["TournamentIn"]["properties"]["series_minutes"]
    assert (created["minimum"], created["maximum"]) == (1, MAX_SERIES_MINUTES)
    assert "ends_at" in doc["components"]["schemas"]["Tournament"]["properties"]
