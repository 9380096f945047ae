"""Shared fixtures: the app on SQLite and on a real PostgreSQL server."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from tests.components import PostgresServer, chromium, log_leaks, missing, unchecked_log_leaks

# Property tests check what the code answers, not how fast: Hypothesis's 200 ms deadline per example failed a
# Schwimmen property on a loaded 2-core machine ("Test took 262 ms"). Speed is measured in bench/.
settings.register_profile("referee", deadline=None)
settings.load_profile("referee")

# The suite creates hundreds of nights from one address (in-process apps, and the servers it starts, which
# inherit this environment); the per-address limit (referee/bounds.py) is tested with its own low setting.
os.environ.setdefault("CREATIONS_PER_HOUR", "1000000")

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
#: The database that the ``app`` fixture's PostgreSQL databases are copied from (made once per run).
SCHEMA_TEMPLATE = "referee_schema"


def _schema_template(postgres: PostgresServer) -> str:
    """A database with the app's tables (``db.metadata.create_all``), made once per server.

    ``CREATE DATABASE ... TEMPLATE`` copies it at the cost of an empty database, so a test's
    ``make_app`` finds every table there and its ``db.create_all()`` only checks (the same
    schema, made by the same call, once instead of once per test).
    """
    if postgres.templates.get(SCHEMA_TEMPLATE):
        return SCHEMA_TEMPLATE
    import sqlalchemy as sa

    from referee.models import db

    engine = sa.create_engine(postgres.create_database(SCHEMA_TEMPLATE))
    try:
        db.metadata.create_all(engine)
    finally:
        engine.dispose()  # no session may stay on a template while it is copied
    postgres.templates[SCHEMA_TEMPLATE] = True
    return SCHEMA_TEMPLATE


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
    # A test on the ``app`` fixture gets the tables already made (its create_all finds them); a test
    # that takes only ``backend`` (migrations, imports, backups) gets an empty database as before.
    template = _schema_template(postgres) if "app" in request.fixturenames else None
    return postgres.create_database(f"t{next(_pg_db_counter)}", template=template)


def served_app(url: str, tmp_path: Path, **extra: Any) -> Iterator[Any]:
    """:func:`make_app` for a fixture to yield, its database's connections let go at the end."""
    application = make_app(url, tmp_path, **extra)
    yield application
    from referee.models import db

    with application.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def app(backend: str, tmp_path: Path) -> Iterator[Any]:
    yield from served_app(backend, tmp_path)


@pytest.fixture
def live_app(backend: str, tmp_path: Path) -> Iterator[Any]:
    """An app whose live streams last long enough to read (tests/live, tests/tournament)."""
    yield from served_app(backend, tmp_path, LIVE_LIFETIME=20, LIVE_PING=0.5)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Debian Chromium for the session (tests/browser, tests/deploy): one Playwright per process,
    other Chromiums launched by it (``tests.components.another_chromium``)."""
    with chromium() as launched:
        yield launched


@pytest.fixture
def client(app: Any) -> Any:
    return app.test_client()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


# --- no token and no traceback in any real server's log (issue 45.1) ------------------------------------------

#: The loggers of the servers that run in the test's own process (werkzeug's threaded servers of the browser
#: tests: their access log; the app's log), as a deployment's would be written.
SERVER_LOGGERS = ("werkzeug", "referee")


class _Lines(logging.Handler):
    """What the in-process servers' loggers write during a test, as written (after the app's redacting filter)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))  # the traceback of exc_info too


@pytest.fixture(autouse=True)
def server_logs_are_clean() -> Iterator[None]:
    """After every test: the logs of the real servers it ran (gunicorn's files, ``components.watch_log``; the
    in-process servers' loggers) hold no token and no traceback, else the test fails."""
    lines = _Lines()
    loggers = [logging.getLogger(name) for name in SERVER_LOGGERS]
    for logger in loggers:
        logger.addHandler(lines)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeHandler(lines)
    leaks = unchecked_log_leaks() + [f"in-process log: {line}" for line in log_leaks("\n".join(lines.lines))]
    if leaks:
        pytest.fail("a token or a traceback in a server's log:\n" + "\n".join(leaks[:20]), pytrace=False)


# --- the fault figures, and where a test runs under pytest-xdist -----------------------------------

#: The ``user_properties`` name of a fault test's summary line (``tests/faults/conftest.py``).
FIGURE = "fault figure"
_figure_lines: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Gather the fault figures from the reports (in the worker-less run or in xdist's controller)."""
    if report.when == "call":
        lines = [str(value) for name, value in report.user_properties if name == FIGURE]
        if lines:
            _figure_lines.extend(lines)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int,
                            config: pytest.Config) -> None:
    if _figure_lines:
        terminalreporter.section("fault figures")
        for line in _figure_lines:
            terminalreporter.write_line(line)


#: Test directories whose tests run one after the other on a single xdist worker: each fault test
#: drives real gunicorn servers, PostgreSQL restarts and client threads with timeouts, so two of them
#: at once on a 2-core machine would be each other's load.
SERIAL_DIRS = ("faults",)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook turns the marks into the groups of the node ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``-n N --dist loadgroup``: a test module's tests stay on one worker, the fault tests on one.

    One module on one worker keeps module-scoped fixtures (the stream caps' servers, the Schemathesis
    world, the hostile forms' apps) made once per module, as without xdist. Only in an xdist worker
    (``config.workerinput``); a run without ``-n`` is left as it was.
    """
    if not hasattr(config, "workerinput"):
        return
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        parts = path.split("/")
        group = parts[1] if len(parts) > 2 and parts[1] in SERIAL_DIRS else path
        item.add_marker(pytest.mark.xdist_group(group))
