"""The deployment of docs/deploying.md for each backend: ``make run``'s gunicorn behind the shipped Caddyfile."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.deploy.caddy import Caddy, MakeRun, caddy_path
from tests.faults.server import database_url

#: Wrong tokens per address before a 429 in these servers (a few, to meet the limit quickly).
LIMIT = 4


@dataclass(frozen=True)
class Deployment:
    """Caddy in front of gunicorn, and the database they write to."""

    caddy: Caddy
    app: MakeRun
    url: str


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def deployment(request: pytest.FixtureRequest, tmp_path: Path, postgres: Any) -> Iterator[Deployment]:
    """A new database; the app started by ``make run`` with one proxy trusted; Caddy with its internal CA."""
    caddy_path()  # before anything starts: a missing caddy skips at once
    url = database_url(request.param, tmp_path, postgres, f"deploy{abs(hash(tmp_path)) % 10**8}")
    app = MakeRun(url, tmp_path, FORWARDED_PROXIES="1", TOKEN_FAILURES=str(LIMIT), TOKEN_WINDOW="300",
                  SESSION_COOKIE_SECURE="1")
    caddy = Caddy(tmp_path, app.port)
    try:
        app.start(timeout=120)  # make run migrates the new database first
        caddy.start()
        yield Deployment(caddy, app, url)
    finally:
        caddy.stop()
        app.stop()
    assert not app.failures(), "\n".join(app.failures()) + "\n" + app.tail()
