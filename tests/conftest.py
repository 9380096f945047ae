"""Shared fixtures: the app on SQLite and on a real PostgreSQL server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.components import PostgresServer, missing

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer | None]:
    """One PostgreSQL server for the whole run (None when it cannot start)."""
    try:
        server = PostgresServer()
        server.start()
    except Exception as exc:
        global PG_ERROR
        PG_ERROR = f"{type(exc).__name__}: {exc}"
        yield None
        return
    try:
        yield server
    finally:
        server.stop()


PG_ERROR = ""
_pg_db_counter = iter(range(1, 10**6))


def make_app(url: str, tmp_path: Path, **extra: Any) -> Any:
    from referee import create_app
    from referee.models import db

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "TESTING": True, "WTF_CSRF_ENABLED": False,
                      "SECRET_KEY": "test", "INSTANCE_PATH": str(tmp_path), **extra})
    with app.app_context():
        db.create_all()
    return app


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path, postgres: PostgresServer | None) -> str:
    """A fresh, empty database URL on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'test.sqlite3'}"
    if postgres is None:
        missing(f"PostgreSQL server (Debian package postgresql): {PG_ERROR}")
    assert postgres is not None
    return postgres.create_database(f"t{next(_pg_db_counter)}")


@pytest.fixture
def app(backend: str, tmp_path: Path) -> Iterator[Any]:
    application = make_app(backend, tmp_path)
    yield application
    from referee.models import db

    with application.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def client(app: Any) -> Any:
    return app.test_client()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
