"""One step of a protocol: an event of the match's log and the states around it.

A module of its own so that the protocol's grids (:mod:`referee.reports.rounds`)
and the sheets' routes (:mod:`referee.reports`) both name it without importing
each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee.models import Round


@dataclass(frozen=True)
class Step:
    """One event of the log and the states around it (as the API shows them)."""

    round: Round
    before: dict[str, Any]
    after: dict[str, Any]
    before_state: Any
    after_state: Any
