"""``make run`` and ``make test`` check the registries they still fetch from, first and in one line (issue 44.6).

The real Makefile and ``referee/registries.py`` run in a bare copy of the project (the Makefile, pyproject.toml
and that one script): with no step done yet, ``make run`` with PyPI and the npm registry pointed at a closed
loopback port (configured as pip and npm read it: the environment, or their configuration files) stops before
anything else with one line naming both; with every fetching step's stamp in place, a registry that counts
its connections is never contacted.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.components import free_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A checkout with nothing installed: the Makefile, pyproject.toml and the registries' check."""
    where = tmp_path / "project"
    (where / "referee").mkdir(parents=True)
    for name in ("Makefile", "pyproject.toml", "referee/registries.py"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, where / name)
    return where


class Listener:
    """A TCP port on loopback that accepts and counts connections (a registry that must not be asked)."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.connections = 0
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.socket.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self.socket.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    counting = Listener()
    yield counting
    counting.close()


def _env(project: Path, pypi: str, npm: str, configured_by: str) -> dict[str, str]:
    """The environment with pip's index and npm's registry set either in the environment or in their files."""
    env = {key: value for key, value in os.environ.items()
           if not key.upper().startswith(("PIP_INDEX", "NPM_CONFIG_", "MAKEFLAGS"))}
    if configured_by == "environment":
        env.update(PIP_INDEX_URL=pypi, npm_config_registry=npm)
    else:
        (project / "pip.conf").write_text(f"[global]\nindex-url = {pypi}\n")
        (project / "npmrc").write_text(f"registry={npm}\n")
        env.update(PIP_CONFIG_FILE=str(project / "pip.conf"), npm_config_userconfig=str(project / "npmrc"))
    return env


def _make(project: Path, env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``make`` in the copy; on a timeout its whole process group is stopped and the test fails."""
    process = subprocess.Popen(["make", "--no-print-directory", *args], cwd=project, env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        pytest.fail(f"make {' '.join(args)} still running after {timeout} s (it went on to fetch):\n{out}\n{err}")
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def _stamps(project: Path, *names: str) -> list[str]:
    """The Makefile's own lists of the fetching steps' stamps (``PYPI_RUN`` ...), as paths in the copy."""
    (project / "print.mk").write_text("print:\n\t@echo " + " ".join(f"$({name})" for name in names) + "\n")
    out = subprocess.run(["make", "--no-print-directory", "-s", "-f", "Makefile", "-f", "print.mk", "print"],
                         cwd=project, capture_output=True, text=True, check=True, timeout=60).stdout
    return out.split()


def _put_in_place(project: Path, stamps: list[str]) -> None:
    """Each stamp as its step leaves it: there, and newer than pyproject.toml."""
    newer = (project / "pyproject.toml").stat().st_mtime + 10
    for stamp in stamps:
        path = project / stamp
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
        os.utime(path, (newer, newer))


@pytest.mark.parametrize("configured_by", ["environment", "files"])
def test_unreachable_registries_stop_make_run_first_in_one_line(project: Path, configured_by: str) -> None:
    closed = free_port()
    pypi, npm = f"http://127.0.0.1:{closed}/simple", f"http://127.0.0.1:{closed}/"
    done = _make(project, _env(project, pypi, npm, configured_by), "run", timeout=90)
    assert done.returncode != 0
    # make's own closing line is "make: ***", or "make[1]: ***" when the tests run under `make test`
    ours = [line for line in done.stderr.splitlines() if not re.match(r"make(\[\d+\])?: \*\*\*", line)]
    assert len(ours) == 1, done.stderr
    assert ours[0].startswith(f"cannot reach PyPI ({pypi}: connection refused), needed for the Python packages; "
                              f"nor the npm registry ({npm}: connection refused)"), ours[0]
    assert done.stdout == ""  # nothing else ran: no virtualenv made, nothing fetched
    assert not (project / ".venv").exists() and not (project / "static").exists()


def test_only_the_registries_still_needed_are_asked(project: Path, listener: Listener) -> None:
    """Pyodide and Swagger UI in place, the Python packages not: only PyPI is checked."""
    _put_in_place(project, _stamps(project, "NPM_RUN"))
    closed = free_port()
    env = _env(project, f"http://127.0.0.1:{closed}/simple", f"http://127.0.0.1:{listener.port}/", "environment")
    done = _make(project, env, "registries-run")
    assert done.returncode != 0
    assert done.stderr.startswith(f"cannot reach PyPI (http://127.0.0.1:{closed}/simple: connection refused), "
                                  "needed for the Python packages. "), done.stderr
    assert "npm" not in done.stderr.splitlines()[0].split(". ")[0]
    assert listener.connections == 0


@pytest.mark.parametrize(("check", "stamps"), [("registries-run", ("PYPI_RUN", "NPM_RUN")),
                                               ("registries-test", ("PYPI_TEST", "NPM_TEST"))])
def test_everything_in_place_asks_no_registry(project: Path, listener: Listener, check: str,
                                              stamps: tuple[str, ...]) -> None:
    """A machine with every step done starts offline: the check contacts nothing and passes.

    The same check with nothing in place does contact that registry (so it is the one configured).
    """
    registry = f"http://127.0.0.1:{listener.port}/"
    env = _env(project, registry + "simple", registry, "environment")
    _make(project, env, check)
    assert listener.connections >= 2  # PyPI and npm, both sent to the counting port
    _put_in_place(project, _stamps(project, *stamps))
    listener.connections = 0
    done = _make(project, env, check)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert listener.connections == 0
