"""referee: the game-night ledger and rules referee (Flask app factory)."""

from __future__ import annotations

import logging
import mimetypes
import os
from pathlib import Path
from typing import Any

from flask import Flask, Response, g, request, session
from flask_babel import Babel
from flask_migrate import Migrate
from flask_wtf.csrf import CSRFProtect
from werkzeug.routing import IntegerConverter

from referee import bounds, config, errors, messages, proxies, read_gate
from referee.models import MAX_ID, db
from referee.static_files import IMMUTABLE, SECURITY_HEADERS, StaticFiles, static_version

ROOT = Path(__file__).resolve().parent.parent

class BoundedInt(IntegerConverter):
    """``<int:...>`` limited to what a database id can be (ids are 32-bit INTEGER columns)."""

    def __init__(self, map: Any, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max", MAX_ID)  # a larger id would overflow the column: a 404, not a 500
        super().__init__(map, *args, **kwargs)


csrf = CSRFProtect()
babel = Babel()
migrate = Migrate()


def select_locale() -> str:
    """An explicit ``?lang=``, else the language switch of the page, else the browser's language, else the
    language of the night a sheet is of (``g.night_language``, set by the sheets: a PDF app asks for none)."""
    for chosen in (request.args.get("lang"), session.get("lang")):
        if chosen in LANGUAGES:
            return str(chosen)
    asked = request.accept_languages.best_match(LANGUAGES)
    return asked or (g.night_language if g.get("night_language") in LANGUAGES else "en")


#: The app's languages (the catalogs of referee/translations and English).
LANGUAGES = ("en", "sv", "de")


def create_app(overrides: dict[str, Any] | None = None) -> Flask:
    """Build the app; ``overrides`` replace settings (tests)."""
    # The in-browser engine's module and WebAssembly files, whatever the machine's MIME table says
    # (a module with another type is refused under ``nosniff``; WebAssembly streams only as itself).
    mimetypes.add_type("text/javascript", ".mjs")
    mimetypes.add_type("application/wasm", ".wasm")
    app = Flask(__name__, template_folder=str(ROOT / "templates"), static_folder=str(ROOT / "static"),
                instance_path=str(config.INSTANCE))
    app.config.update(config.load(overrides))
    from referee.json_depth import JSONProvider

    app.json = JSONProvider(app)  # request JSON is checked for depth before it is parsed (issue 25.10)
    # Ids in URLs fit the database's id columns; a larger number is a 404, not an overflow.
    app.url_map.converters["int"] = BoundedInt

    from referee.ledger.ratelimit import FailureLimiter
    from referee.web.caller import CREATIONS, LIMITER

    app.extensions[LIMITER] = FailureLimiter(app.config["TOKEN_FAILURES"], app.config["TOKEN_WINDOW"])
    app.extensions[CREATIONS] = FailureLimiter(app.config["CREATIONS_PER_HOUR"], bounds.CREATION_WINDOW, kind="new")
    db.init_app(app)
    errors.register_session_end(app)  # after init_app: teardowns run in reverse, so this one runs first
    migrate.init_app(app, db, directory=str(ROOT / "migrations"))
    csrf.init_app(app)
    babel.init_app(app, locale_selector=select_locale,
                   default_translation_directories=str(ROOT / "referee" / "translations"))

    from referee import ledger

    with app.app_context():
        ledger.configure_engine(db.engine)
        ledger.configure(db.engine, ledger.Settings(max_match_events=app.config["MAX_MATCH_EVENTS"],
                                                    max_night_events=app.config["MAX_IMPORT_EVENTS"]))

    # The three blueprints, named one by one, imported here and not at the top: every ``import referee.x``
    # runs this file first, so a top-level import would load the whole web layer for an engine import and
    # make the loop referee -> referee.pages -> referee (tests/test_layers.py checks no import hides a loop).
    from referee.api import bp as api_bp
    from referee.pages import bp as pages_bp
    from referee.reports import bp as reports_bp

    csrf.exempt(api_bp)  # the API authenticates with bearer tokens, not cookies
    app.register_blueprint(api_bp)
    app.register_blueprint(pages_bp)
    app.register_blueprint(reports_bp)
    from referee.pages import hall, tournaments
    from referee.reports import tournament as tournament_sheets

    app.register_blueprint(tournaments.bp)  # issue 30: the organiser's page, the hall, the players' view, sheets
    app.register_blueprint(hall.bp)
    app.register_blueprint(tournament_sheets.bp)
    from referee import text_door
    from referee.pages import form_checks

    # The door, before every other before-request function (CSRFProtect's reads the form): the form of any
    # blueprint must be readable as sent (issue 8, 45.7), and no text of the request may be unstorable (45.5).
    form_checks.install(app)
    text_door.install(app)

    if os.environ.get("REFEREE_BENCH") == "1" or app.config.get("BENCH"):
        from referee import floor

        csrf.exempt(floor.bp)
        floor.register(app)

    errors.register(app)
    messages.register(app)
    read_gate.install(app)
    from referee import logs

    logs.learn_routes(app.url_map)  # every route that takes a token, so no log line carries one (issue 45.1)
    logs.install(app.logger)
    logs.install(logging.getLogger("werkzeug"))
    _register_headers(app)
    _register_cli(app)
    # Static files never reach Flask: compressed, and kept for a year under a versioned URL (issue 29).
    app.wsgi_app = StaticFiles(app.wsgi_app, Path(app.static_folder or ROOT / "static"))  # type: ignore[method-assign]
    # Outermost: the client's address behind a TLS proxy, for static files' access log lines too (issue 44).
    proxies.install(app)
    return app


def _register_headers(app: Flask) -> None:
    @app.url_defaults
    def _static_versions(endpoint: str, values: dict[str, Any]) -> None:
        """Every ``url_for('static', ...)`` names the file's version, so it may be cached for a year."""
        if endpoint == "static" and "filename" in values and "v" not in values and app.static_folder:
            if version := static_version(app.static_folder, values["filename"]):
                values["v"] = version

    @app.after_request
    def _headers(resp: Response) -> Response:
        for name, value in SECURITY_HEADERS.items():
            resp.headers.setdefault(name, value)
        if request.endpoint == "static":
            if request.args.get("v"):  # a versioned name (static_url): the content never changes under it
                resp.headers["Cache-Control"] = IMMUTABLE
        else:
            # Pages, sheets, exports and API answers show a night to whoever holds its token: never kept
            # by a shared cache or on disk (also the pages that hold no night: one rule, no list to forget).
            resp.headers["Cache-Control"] = "private, no-store"
        return resp


def _register_cli(app: Flask) -> None:
    import click

    @app.cli.command("backup")
    @click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
    def backup_cmd(path: Path) -> None:
        """A consistent backup of the database (SQLite online backup or pg_dump) to PATH."""
        from referee import backup

        backup.backup(app.config["SQLALCHEMY_DATABASE_URI"], path)
        print(f"backup written to {path}")

    @app.cli.command("restore")
    @click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
    def restore_cmd(path: Path) -> None:
        """Replace the database's contents with the backup at PATH."""
        from referee import backup

        db.engine.dispose()
        backup.restore(app.config["SQLALCHEMY_DATABASE_URI"], path)
        print(f"restored from {path}")

    @app.cli.command("round-facts")
    def round_facts_cmd() -> None:
        """Give the rounds of old logs their facts (dealer, svängare, who passed) by replay; idempotent (issue 42)."""
        from referee.ledger import round_facts

        matches, rounds = round_facts.backfill()
        print(f"round facts: {rounds} rounds of {matches} matches given theirs")

    @app.cli.command("init-db")
    def init_db() -> None:
        """Create the tables without migrations (tests, throw-away databases)."""
        db.create_all()
        print("database ready")
