"""Creations sent at once from one address meet the hour's limit exactly, across workers and app servers.

A prankster's script (or a double-tapping phone on a bad connection) sends its nights and tournaments at the same
moment. The limit (``CREATIONS_PER_HOUR``) was checked before the write and counted after it, so every request
that arrived while the first ones were still writing passed the check: a burst of eight from one address created
four or five nights and tournaments on a limit of two (every burst, both backends, three runs of ten bursts). The
count is now taken inside the creation's own write transaction and checked there
(``referee/ledger/ratelimit.py``, :func:`creating` and :meth:`FailureLimiter.claim`): exactly ``LIMIT`` of each
burst are created, the rest answered 429 with ``Retry-After`` and nothing written.

SQLite: one gunicorn with 4 sync workers. PostgreSQL: two gunicorn servers with 2 workers each on one database,
the burst's requests alternating between them. Each round comes from a new address (``X-Forwarded-For`` from the
trusted local proxy), so each round is a fresh race.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.faults.server import Http, Launcher, Server, database_url, posts_at_once

LIMIT = 2
BURST = 8
ROUNDS = 10


def _bodies(k: int) -> tuple[str, dict[str, Any]]:
    """A night, or every third request a tournament (both are creations, counted in one limit)."""
    if k % 3 == 2:
        return "/api/tournaments", {"name": f"Cup {k}", "currency": "SEK", "game": "kul", "table_size": 3,
                                    "players": ["A", "B", "C"], "series": 1, "stake": "1.00"}
    return "/api/nights", {"name": f"Night {k}", "currency": "SEK", "players": ["Anna", "Bo", "Cia"]}


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_a_burst_of_creations_from_one_address_creates_exactly_the_limit(
        backend: str, tmp_path: Path, postgres: Any, launcher: Launcher, figures: list[str]) -> None:
    url = database_url(backend, tmp_path, postgres, f"faults_creations_{uuid.uuid4().hex[:8]}")
    servers: list[Server] = []
    for name in ("a", "b") if backend == "postgres" else ("a",):
        (tmp_path / name).mkdir()
        server = Server(url, tmp_path / name, launcher=launcher, workers=2 if backend == "postgres" else 4)
        server.env.update(CREATIONS_PER_HOUR=str(LIMIT), FORWARDED_PROXIES="1")
        servers.append(server)
    servers[0].upgrade()
    counts: list[int] = []
    try:
        for server in servers:
            server.start(timeout=180)  # a shared, busy machine boots workers slowly
        for rnd in range(ROUNDS):
            address = f"203.0.113.{10 + rnd}"
            posts = [(*_bodies(k), {"X-Forwarded-For": address}) for k in range(BURST)]
            replies = posts_at_once([s.port for s in servers], posts)
            assert all(r.status in (201, 429) for r in replies), [(r.status, r.body[:200]) for r in replies]
            assert all(int(r.headers["retry-after"]) > 0 for r in replies if r.status == 429)
            counts.append(sum(r.status == 201 for r in replies))
            # Stored, not only answered: the next creation from the address, on the other server, is refused too.
            one_more = Http(servers[-1].port).request("POST", *_bodies(0), {"X-Forwarded-For": address})
            assert one_more.status == 429, (rnd, one_more.status, one_more.body[:200])
    finally:
        for server in servers:
            server.stop()
    for server in servers:
        assert not server.failures(), "\n".join(server.failures()[:10])
    assert counts == [LIMIT] * ROUNDS, f"created per burst of {BURST}: {counts} (limit {LIMIT})"
    figures.append(f"creation limit ({backend}): {ROUNDS} bursts of {BURST} nights and tournaments at once from one "
                   f"address on {len(servers)} server(s), limit {LIMIT}: created {counts}, the rest 429")

