"""Real components for the tests: a private PostgreSQL server and Chromium.

Tests that need a component skip when it is missing on a developer's
machine, but with ``REFEREE_REQUIRE_ALL=1`` (set by ``.ci/run``) a missing
component is a failure: CI must never pass by skipping a suite.
"""

from __future__ import annotations

import glob
import os
import random
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REQUIRE_ALL = os.environ.get("REFEREE_REQUIRE_ALL") == "1"
#: The team's shared folder, beside the project (``../shared``: rules, seeds, API contract), as CI lays it.
SHARED = Path(__file__).resolve().parents[2] / "shared"


def missing(component: str) -> None:
    """Skip (developer machine) or fail (CI) for a missing component."""
    message = f"missing component: {component}"
    if REQUIRE_ALL:
        pytest.fail(message + " (REFEREE_REQUIRE_ALL=1)")
    pytest.skip(message)


def shared_rules() -> Path:
    """``../shared/rules/``, the rule digests; a missing folder is a missing component (skip, or fail in CI)."""
    rules = SHARED / "rules"
    if not rules.is_dir():
        missing(f"the rule digests in {rules}")
    return rules


@contextmanager
def chromium(*args: str) -> Iterator[Any]:
    """Debian's headless Chromium through Playwright (``CHROMIUM_ARGS`` and ``args``), closed at the end; a missing
    Chromium or Playwright is a missing component.

    An expectation waits up to 20 s, not Playwright's 5 s: a phone's first round with no network is checked by
    the engine in the page (Pyodide booting from the phone's cache, up to its own 15 s limit, then kept
    unchecked). On a loaded 2-core CI machine that boot alone took over 5 s (stop 25's one failure).
    """
    path = chromium_path()
    if path is None:
        missing("chromium (Debian package chromium)")
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        missing("playwright (Python package, extra [test])")
    expect.set_options(timeout=20_000)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=path, args=[*CHROMIUM_ARGS, *args], headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def another_chromium(browser: Any, *args: str) -> Iterator[Any]:
    """Another Chromium with more arguments (a host mapped, a CA accepted), launched by the session's Playwright:
    a second sync Playwright in one process is refused ("Sync API inside the asyncio loop") once the session's
    ``browser`` has started one on that xdist worker."""
    launched = browser.browser_type.launch(executable_path=chromium_path(), args=[*CHROMIUM_ARGS, *args],
                                           headless=True)
    try:
        yield launched
    finally:
        launched.close()


def chromium_path() -> str | None:
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


CHROMIUM_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]


#: Ports :func:`free_port` has handed out in this process.
_GIVEN: set[int] = set()
#: The lowest port a server of the tests takes: below the kernel's ephemeral range, which is the clients'.
_LOWEST = 10_000
#: Ports in that range Chromium refuses to load from (its "unsafe ports": amanda).
_UNSAFE = frozenset({10_080})


def _server_ports() -> range:
    """This process's share of the ports below the ephemeral range (each xdist worker its own slice).

    Why not ``bind(0)``: that hands out a port *of* the ephemeral range, which the run's thousands of client
    connections take their source ports from; between the test's ``free_port()`` and its server's bind, a
    connection took one and Caddy exited with "address already in use" (a CI error). The kernel's ephemeral
    range is read from ``/proc`` (32768–60999 by default).
    """
    try:
        first = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        first = 32_768
    count = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1))
    worker = int(re.sub(r"\D", "", os.environ.get("PYTEST_XDIST_WORKER", "")) or 0) % count
    size = max(1, (first - _LOWEST) // count)
    return range(_LOWEST + worker * size, _LOWEST + (worker + 1) * size)


def free_port() -> int:
    """A port nobody listens on, below the clients' ephemeral ports, never one this process was given before.

    Two flakes taught this: ``bind(0)`` once handed the same port to two calls in a row (Caddy got it as its HTTP
    and its HTTPS port and served no certificate), and once a port that a client connection took before Caddy
    bound it (:func:`_server_ports`). The port is tried on every interface, as Caddy listens; each xdist worker
    draws from its own slice, so two workers never pick the same one.
    """
    ports = _server_ports()
    draw = random.SystemRandom()
    while True:
        port = draw.randrange(ports.start, ports.stop)
        if port in _GIVEN or port in _UNSAFE:
            continue
        try:
            with socket.socket() as s:
                s.bind(("", port))
        except OSError:
            continue
        _GIVEN.add(port)
        return port


def _pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


class PostgresServer:
    """A throw-away PostgreSQL cluster on a loopback port, stopped at the end.

    As root (CI), the server runs as the ``postgres`` system user, which the
    Debian package creates; ``initdb`` refuses to run as root.
    """

    def __init__(self) -> None:
        bindir = _pg_bin()
        if bindir is None:
            raise FileNotFoundError("PostgreSQL server binaries (/usr/lib/postgresql/*/bin)")
        self.bindir = bindir
        self.dir = Path(tempfile.mkdtemp(prefix="referee-pg-"))
        self.data = self.dir / "data"
        self.port = free_port()
        self.as_user: list[str] = []
        #: Template databases made on this server (``tests/conftest.py``), by name.
        self.templates: dict[str, bool] = {}
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
            self.as_user = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        subprocess.run([*self.as_user, *args], check=True, capture_output=True, cwd=self.dir)

    def start(self) -> str:
        self._run(str(self.bindir / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "referee",
                  "-E", "UTF8", "--no-locale")
        self.start_server()
        return f"postgresql+psycopg://referee@127.0.0.1:{self.port}/postgres"

    def start_server(self) -> None:
        """Start the server on its port and data directory (again, after ``stop_server``)."""
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.dir / "log"), "-w",
                  "-o", f"-h 127.0.0.1 -p {self.port} -k {self.dir} -F", "start")
        self.wait(f"postgresql+psycopg://referee@127.0.0.1:{self.port}/postgres")

    def stop_server(self, mode: str = "fast") -> None:
        """Stop the server but keep its data (``fast``: sessions are ended; ``immediate``: a crash)."""
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def wait(self, url: str, timeout: float = 30) -> None:
        import sqlalchemy as sa

        deadline = time.time() + timeout
        while True:
            try:
                sa.create_engine(url).connect().close()
                return
            except Exception:
                if time.time() > deadline:
                    raise
                time.sleep(0.3)

    def create_database(self, name: str, template: str | None = None) -> str:
        """A new database ``name`` (dropped first if it exists), empty or a copy of ``template``."""
        import sqlalchemy as sa

        admin = sa.create_engine(f"postgresql+psycopg://referee@127.0.0.1:{self.port}/postgres",
                                 isolation_level="AUTOCOMMIT")
        copy = f' TEMPLATE "{template}"' if template else ""
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"{copy}')
        admin.dispose()
        return f"postgresql+psycopg://referee@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        try:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.dir, ignore_errors=True)


# --- the real servers' logs: no token, no traceback (issue 45.1) ---------------------------------------

#: Where a token must never stand in clear: after a token route's prefix, ``view=``, ``Bearer``.
_MARK = "[redacted]"
_FIXED_SPOTS = (r"[?&;]view=", r"(?i:Bearer)\s+")


@dataclass
class WatchedLog:
    """A real server's log file, read by ``tests/conftest.py`` after each test (from where it read last)."""

    path: Path
    database_url: str | None = None
    checked: int = 0


#: Every real server's log of this run (gunicorn's files); ``tests/conftest.py`` checks them after each test.
SERVER_LOGS: list[WatchedLog] = []


def watch_log(path: Path, database_url: str | None = None) -> None:
    """Check ``path`` after the test: no token (also the tokens in ``database_url``'s tables) and no traceback."""
    if not any(w.path == path for w in SERVER_LOGS):
        SERVER_LOGS.append(WatchedLog(path, database_url))


def _spots() -> list[re.Pattern[str]]:
    """Where a token would stand: every route of the app that takes one (its text before the token), and the
    query and header. Read from a built app's ``url_map``, so a new token route is checked without a list."""
    global _SPOTS
    if _SPOTS is None:
        from referee import create_app
        from referee.logs import TOKEN_ARGUMENT

        app = create_app({"SQLALCHEMY_DATABASE_URI": "sqlite://", "SECRET_KEY": "spots", "TESTING": True})
        prefixes = set()
        for rule in app.url_map.iter_rules():
            for arg in re.finditer(r"<(?:[^<>:]+:)?(\w+)>", rule.rule):
                if TOKEN_ARGUMENT.fullmatch(arg.group(1)):
                    before = re.sub(r"<[^<>]+>", "\x00", rule.rule[:arg.start()])
                    prefixes.add("[^/]+".join(re.escape(part) for part in before.split("\x00")))
                    break
        _SPOTS = [re.compile(f"(?:{p})(?!{re.escape(_MARK)})(?=[^/?#&\\s\"'])")
                  for p in (*sorted(prefixes), *_FIXED_SPOTS)]
    return _SPOTS


_SPOTS: list[re.Pattern[str]] | None = None


def database_tokens(database_url: str) -> set[str]:
    """Every token in a database the tests' server used: the nights', the groups' and the tables'."""
    import sqlalchemy as sa

    engine = sa.create_engine(database_url, connect_args={"connect_timeout": 5}
                              if database_url.startswith("postgresql") else {})
    found: set[str] = set()
    try:
        with engine.connect() as conn:
            for sql in ("SELECT edit_token, view_token FROM nights", "SELECT token FROM groups",
                        "SELECT token FROM tournament_tables"):
                try:
                    found.update(str(value) for row in conn.exec_driver_sql(sql) for value in row if value)
                except sa.exc.DBAPIError:
                    conn.rollback()  # a database without that table: nothing of it to look for
    except sa.exc.DBAPIError:
        pass  # the database is gone (a test's own server stopped): the places are still checked
    finally:
        engine.dispose()
    return found


def log_leaks(text: str, tokens: Collection[str] = ()) -> list[str]:
    """The lines of a server's log that show a token (one of ``tokens``, or anything standing after a token
    route's prefix, ``view=`` or ``Bearer`` but ``[redacted]``, also once percent-decoded) or a traceback."""
    from urllib.parse import unquote_plus

    leaks = []
    for line in text.splitlines():
        decoded = line
        for _layer in range(3):
            decoded = unquote_plus(decoded)
        if ("Traceback (most recent call last)" in line or any(t in line or t in decoded for t in tokens)
                or any(spot.search(line) or spot.search(decoded) for spot in _spots())):
            leaks.append(line)
    return leaks


def unchecked_log_leaks() -> list[str]:
    """The leaks of every watched log written since it was last checked (each read once, from where it was)."""
    found = []
    for watched in SERVER_LOGS:
        try:
            with watched.path.open("rb") as fh:
                fh.seek(watched.checked)
                data = fh.read()
        except OSError:
            continue
        data = data[:data.rfind(b"\n") + 1]  # whole lines only: a running server's last one is read next time
        if not data:
            continue
        watched.checked += len(data)
        tokens = database_tokens(watched.database_url) if watched.database_url else set()
        found += [f"{watched.path}: {line}" for line in log_leaks(data.decode(errors="replace"), tokens)]
    return found
