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


def test_token_keys_are_filled_in_for_nights_made_before_them(backend: str, tmp_path: Path) -> None:
    """Nights stored before the token-key migration open with their old links afterwards."""
    from sqlalchemy import text

    from referee import ledger

    app = create_app({"SQLALCHEMY_DATABASE_URI": backend, "TESTING": True, "SECRET_KEY": "t",
                      "INSTANCE_PATH": str(tmp_path)})
    with app.app_context():
        upgrade(revision="2af8ee7af63e")
        with db.engine.begin() as conn:
            conn.execute(text("INSERT INTO groups (id, name, token, created_at) "
                              "VALUES (1, 'G', 'group-token-1', CURRENT_TIMESTAMP)"))
            conn.execute(text("INSERT INTO nights (id, group_id, name, place, currency, leader, edit_token, "
                              "view_token, created_at) VALUES (7, 1, 'Old night', '', 'SEK', '', 'edit-tok-7', "
                              "'view-tok-7', CURRENT_TIMESTAMP)"))
        upgrade()
        assert ledger.night_by_token("edit-tok-7") is not None
        night, can_write = ledger.night_by_token("edit-tok-7")  # type: ignore[misc]
        assert (night.id, can_write) == (7, True)
        assert ledger.night_by_token("view-tok-7") == (night, False)
        assert ledger.night_by_token("edit-tok-8") is None
        new = ledger.create_night("Next", "SEK", ["A"], group_token="group-token-1")
        assert new.group_id == 1 and ledger.night_by_token(new.view_token) == (new, False)
        db.session.remove()
        db.engine.dispose()
