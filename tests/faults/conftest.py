"""Fixtures of the fault tests, and the figures they print at the end of the run.

The issue asks the fault tests to *print* what they checked (kills, acknowledged
writes, retries), so that ``make test`` output and the README can quote them.
pytest captures a passing test's output, so each test adds its lines to the
session's ``figures`` collector and ``pytest_terminal_summary`` prints them
after the results. A conftest module is a plugin of the run once it is
loaded, which happens when the run collects this directory; the hook then
runs like a root conftest's.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.faults.server import Launcher

FIGURES = pytest.StashKey[list[str]]()


@pytest.fixture(scope="session")
def figures(request: pytest.FixtureRequest) -> list[str]:
    """Lines for the end-of-run summary ("fault figures")."""
    return request.config.stash.setdefault(FIGURES, [])


@pytest.fixture(scope="session")
def launcher() -> Iterator[Launcher]:
    """One warm launcher for all gunicorn starts of the run (see ``server.py``)."""
    warm = Launcher()
    warm.start()
    try:
        yield warm
    finally:
        warm.close()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int,
                            config: pytest.Config) -> None:
    lines = config.stash.get(FIGURES, [])
    if lines:
        terminalreporter.section("fault figures")
        for line in lines:
            terminalreporter.write_line(line)
