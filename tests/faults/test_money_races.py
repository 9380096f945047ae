"""Concurrent carries and payments against a real gunicorn server: what is open is paid or carried once.

Issue 25, item 7: two phones carrying one night's debts at once carried them
twice (10.00 open became 20.00 carried, the source's balances flipped), and
six payments of 6.00 against 10.00 open paid up to 36.00. The check of what
is open must be made inside the write, under the lock that orders the
writes (SQLite's writer lock, PostgreSQL's row lock on the night).

Each race starts from a night with 10.00 open (Bo owes Anna; an import with
opening balances, so no match is needed), sends :data:`CLIENTS` requests at
once from threads released by one barrier to a gunicorn with
:data:`WORKERS` sync workers, and is repeated :data:`RUNS` times on fresh
nights: the code that checked before the write failed every run on both
backends (checked with ``git stash``).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.faults.server import Http, Launcher, Server, at_once, database_url, serving

WORKERS = 4
CLIENTS = 6
RUNS = 5


def _night_with_debt(http: Http, tag: str) -> dict[str, Any]:
    """A night (imported, in a new group) where Bo owes Anna 10.00, with its tokens."""
    export = {
        "format": "referee-night", "version": 1, "currency": "SEK", "minor_digits": 2,
        "night": {"name": f"Race {tag}", "currency": "SEK"},
        "players": [{"name": "Anna"}, {"name": "Bo"}],
        "payments": [{"kind": "opening", "payer": "Anna", "amount_minor": 1000, "carry_id": "c"},
                     {"kind": "opening", "payer": "Bo", "amount_minor": -1000, "carry_id": "c"}],
    }
    reply = http.request("POST", "/api/import", export)
    assert reply.status == 201, reply.body[:300]
    night: dict[str, Any] = reply.json()
    return night


def _settlement(http: Http, night: dict[str, Any]) -> dict[str, Any]:
    reply = http.request("GET", f"/api/nights/{night['id']}/settlement",
                         headers={"Authorization": f"Bearer {night['edit_token']}"})
    assert reply.status == 200, reply.body[:300]
    data: dict[str, Any] = reply.json()
    return data


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def server(request: pytest.FixtureRequest, tmp_path: Path, postgres: Any, launcher: Launcher) -> Any:
    """gunicorn with several sync workers (requests really run side by side) on a new database."""
    url = database_url(request.param, tmp_path, postgres, f"money_races_{uuid.uuid4().hex[:8]}")
    with serving(Server(url, tmp_path, launcher=launcher, workers=WORKERS)) as srv:
        yield srv


def test_concurrent_carries_carry_once(server: Server) -> None:
    http = Http(server.port)
    outcomes = []
    for run in range(RUNS):
        source = _night_with_debt(http, f"carry {run}")
        later = http.request("POST", "/api/nights", {"name": f"Later {run}", "currency": "SEK",
                                                     "players": ["Anna", "Bo"],
                                                     "group_token": source["group_token"]})
        assert later.status == 201, later.body[:300]
        target = later.json()
        replies = at_once(server.port, f"/api/nights/{source['id']}/carry", {"to_night": target["id"]},
                           {"Authorization": f"Bearer {source['edit_token']}"}, CLIENTS)
        statuses = sorted(r.status for r in replies)
        src, dst = _settlement(http, source), _settlement(http, target)
        outcomes.append((statuses, src["balances"], src["carried_out"], dst["opening"]))
    once = ([200] + [400] * (CLIENTS - 1), {"Anna": "0.00", "Bo": "0.00"}, {"Anna": "10.00", "Bo": "-10.00"},
            {"Anna": "10.00", "Bo": "-10.00"})
    bad = [o for o in outcomes if o != once]
    assert not bad, f"{len(bad)} of {RUNS} runs carried more than once: {bad}"


def test_concurrent_payments_never_pay_more_than_is_open(server: Server) -> None:
    http = Http(server.port)
    outcomes = []
    for run in range(RUNS):
        night = _night_with_debt(http, f"pay {run}")
        replies = at_once(server.port, f"/api/nights/{night['id']}/payments",
                           {"from": "Bo", "to": "Anna", "amount": "6.00"},
                           {"Authorization": f"Bearer {night['edit_token']}"}, CLIENTS)
        statuses = sorted(r.status for r in replies)
        outcomes.append((statuses, _settlement(http, night)["paid"]))
    once = ([201] + [400] * (CLIENTS - 1), {"Anna": "-6.00", "Bo": "6.00"})
    bad = [o for o in outcomes if o != once]
    assert not bad, f"{len(bad)} of {RUNS} runs paid more than is open: {bad}"


def test_concurrent_payments_with_one_key_pay_once(server: Server) -> None:
    """A double tap sent twice at once: every answer is the one payment (the key is looked up under the lock)."""
    http = Http(server.port)
    night = _night_with_debt(http, "one key")
    replies = at_once(server.port, f"/api/nights/{night['id']}/payments",
                       {"from": "Bo", "to": "Anna", "amount": "6.00"},
                       {"Authorization": f"Bearer {night['edit_token']}", "Idempotency-Key": "tap"}, CLIENTS)
    assert sorted(r.status for r in replies) == [201] * CLIENTS, [(r.status, r.body[:200]) for r in replies]
    assert len({r.json()["payment"]["id"] for r in replies}) == 1
    assert _settlement(http, night)["paid"] == {"Anna": "-6.00", "Bo": "6.00"}

