"""``ledger.writing``: one write transaction, whole or not at all, on both backends.

A write inside a write (a ledger function that writes, called inside another
write) is part of the outer one: it is committed with it, and rolled back
with it when the outer write fails after it. Before, the inner write
committed at its own end, so an outer write that failed afterwards left the
inner one's rows behind: a partial write.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select

from referee import ledger
from referee.models import Night, db


class Refused(Exception):
    """The outer write's own failure, after the inner write."""


def _nights(name: str) -> int:
    return int(db.session.scalar(select(func.count()).select_from(Night).where(Night.name == name)) or 0)


def test_a_write_inside_a_write_is_rolled_back_with_it(app: Any) -> None:
    with app.app_context():
        with pytest.raises(Refused), ledger.writing():
            ledger.create_night("Inner night", "SEK", ["Anna", "Bo", "Cia"])
            raise Refused
        db.session.rollback()
        assert _nights("Inner night") == 0


def test_a_write_inside_a_write_is_committed_with_it(app: Any) -> None:
    with app.app_context():
        with ledger.writing():
            ledger.create_night("Inner night", "SEK", ["Anna", "Bo", "Cia"])
            ledger.create_night("Second inner night", "SEK", ["Anna", "Bo", "Cia"])
        db.session.remove()
        assert _nights("Inner night") == 1 and _nights("Second inner night") == 1
