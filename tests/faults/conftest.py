"""Fixtures of the fault tests, and the figures they print at the end of the run.

The issue asks the fault tests to *print* what they checked (kills, acknowledged
writes, retries), so that ``make test`` output and the README can quote them.
pytest captures a passing test's output, so each test adds its lines to its
``figures``, which puts them in the test's report (``user_properties``); the
root ``tests/conftest.py`` gathers them from the reports and prints them after
the results ("fault figures"). Through the reports, because under
``pytest -n 2`` (pytest-xdist, ``make test``) the tests run in worker
processes and only their reports reach the process that prints the summary.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import FIGURE
from tests.faults.server import Launcher


class FigureLines(list[str]):
    """A test's lines for the summary; each one appended goes into the test's report too."""

    def __init__(self, node: pytest.Item) -> None:
        super().__init__()
        self.node = node

    def append(self, line: str) -> None:
        super().append(line)
        self.node.user_properties.append((FIGURE, line))


@pytest.fixture
def figures(request: pytest.FixtureRequest) -> list[str]:
    """Lines for the end-of-run summary ("fault figures")."""
    return FigureLines(request.node)


@pytest.fixture(scope="session")
def launcher() -> Iterator[Launcher]:
    """One warm launcher for all gunicorn starts of the run (see ``server.py``)."""
    warm = Launcher()
    warm.start()
    try:
        yield warm
    finally:
        warm.close()
