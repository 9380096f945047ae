"""Real components for the tests: a private PostgreSQL server and Chromium.

Tests that need a component skip when it is missing on a developer's
machine, but with ``REFEREE_REQUIRE_ALL=1`` (set by ``.ci/run``) a missing
component is a failure: CI must never pass by skipping a suite.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
