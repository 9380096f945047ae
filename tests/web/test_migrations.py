"""The Alembic migrations build exactly the schema the models describe."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask_migrate import upgrade
from sqlalchemy import inspect

from referee import create_app
from referee.models import db


def test_upgrade_matches_models(backend: str, tmp_path: Path) -> None:
    app = create_app({"SQLALCHEMY_DATABASE_URI": backend, "TESTING": True, "SECRET_KEY": "t",
                      "INSTANCE_PATH": str(tmp_path)})
    with app.app_context():
        upgrade()
        tables = set(inspect(db.engine).get_table_names())
        assert {"groups", "nights", "players", "matches", "rounds", "snapshots"} <= tables
        with db.engine.connect() as conn:
            diff: list[Any] = compare_metadata(MigrationContext.configure(conn), db.metadata)
        assert diff == [], f"models and migrations differ: {diff}"
        upgrade()  # running it again (a second `make run`) changes nothing
        db.engine.dispose()
