"""A bare endpoint for ``bench/load.py``: one insert, nothing else.

It measures the floor a round entry is compared with (same app, same
server, same database). Registered only when ``REFEREE_BENCH=1``.
"""

from __future__ import annotations

from flask import Blueprint, Flask, jsonify
from sqlalchemy import text

from referee.ledger import writing
from referee.models import db

bp = Blueprint("floor", __name__)


@bp.post("/bench/floor")
def floor() -> object:
    with writing():
        db.session.execute(text("INSERT INTO bench_floor (note) VALUES ('x')"))
    return jsonify({"ok": True}), 201


def register(app: Flask) -> None:
    """Add the endpoint and its table (created once, outside the measured path)."""
    app.register_blueprint(bp)
    with app.app_context(), writing():
        key = "SERIAL" if db.engine.dialect.name == "postgresql" else "INTEGER"  # an id that numbers itself
        db.session.execute(text(f"CREATE TABLE IF NOT EXISTS bench_floor (id {key} PRIMARY KEY, note TEXT)"))
