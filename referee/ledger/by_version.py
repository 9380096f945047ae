"""What every reader of a night sees alike, worked out once per version of the night.

Why: at a club evening every player's phone follows the whole night (a
player's own view) and fetches itself after each change, and the hall
displays do the same; each fetch worked out the tournament's standings
and the night's settlement again, 40 tables' states and 200 players, the
same answer for every phone (``bench/tournament.py``). Here the first
reader of a version works it out and the others take its answer.

The key is the night's ``live_version``, which every write of a night
moves on in its own transaction (:func:`referee.ledger.live.note`; the
live stream and the guests' pages rely on it too), with the database, the
night and its creation time (ids repeat across databases and restored
backups). A reader that read the version and then, on PostgreSQL, a newer
row keeps a newer answer under an older version: never an older one under
a newer version. What is kept is read-only for its readers: plain
numbers, strings, tuples, frozen records and dicts nobody writes to.
Kept per process, the least recently used first to go; readers of the same
version at the same moment wait for the first one's answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from referee.lru import LRU, MiB
from referee.models import Night, db

T = TypeVar("T")

_KEPT: LRU[tuple[Any, ...], Any] = LRU(64, budget=8 * MiB)


def kept(night: Night, what: tuple[Any, ...], work: Callable[[], T], *, wait: float = 2.0) -> T:
    """``work()``'s answer for this version of ``night``; ``what`` tells apart the answers kept per version.

    A reader waits at most ``wait`` seconds for another's answer to the same question before it works it
    out itself (a sheet's render takes longer than a page's standings).
    """
    key = (str(db.engine.url), night.id, night.created_at, night.live_version, *what)
    found: T = _KEPT.once(key, work, wait=wait)  # (the phones of a room come together: the first works)
    return found


def clear() -> None:
    """Forget every kept answer (tests, benchmarks measuring the work itself)."""
    _KEPT.clear()
