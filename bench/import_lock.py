"""How long an import at the limits holds the database's writer (issue 25, item 9).

Run from the repository root: ``.venv/bin/python bench/import_lock.py``
(``--events`` per match, ``--matches``; about ten seconds).

In-process, on a temporary SQLite database (as ``bench/profile_round.py``):
one import of ``--matches`` Kul matches of ``--events`` voided rounds each
(the defaults: 2 x 5,000, the most ``MAX_IMPORT_EVENTS`` lets in). Measured:
the whole import, and the time inside its write transaction, where every
other write of the database waits (SQLite's writer lock). The import checks,
replays and builds everything before that and only inserts inside it.

Goal: the writer is held at most one second (PASS/MISS); before, the ORM
wrote 20,000 events in 16 s on the loaded 2-core machine. A benchmark, not a
test: always exits 0.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from profile_round import make_app

GOAL = 1.0
PLAYERS = ("Anna", "Bo", "Cia")


def export(matches: int, events: int) -> dict[str, Any]:
    return {"format": "referee-night", "version": 1, "currency": "SEK",
            "night": {"name": "Bench", "currency": "SEK"}, "players": [{"name": p} for p in PLAYERS],
            "matches": [{"game": "kul", "seats": list(PLAYERS), "first_dealer": "Anna", "stake_minor": 300,
                         "rounds": [{"seq": k + 1, "payload": {"last_trick": "Anna"}, "void": True,
                                     "void_reason": "bench", "created_at": "2026-01-01T20:00:00Z"}
                                    for k in range(events)]} for _ in range(matches)]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=2)
    parser.add_argument("--events", type=int, default=5000)
    args = parser.parse_args()
    from referee import exports, ledger

    held: list[float] = []
    plain = ledger.writing

    @contextmanager
    def timed(fresh: bool = True) -> Iterator[None]:
        with plain(fresh):
            start = time.perf_counter()
            try:
                yield
            finally:
                held.append(time.perf_counter() - start)

    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp))
        data = export(args.matches, args.events)
        exports.ledger.writing = timed  # type: ignore[attr-defined]
        try:
            with app.test_request_context("/"):
                start = time.perf_counter()
                exports.import_night(data)
                total = time.perf_counter() - start
        finally:
            exports.ledger.writing = plain  # type: ignore[attr-defined]
    verdict = "PASS" if held[-1] <= GOAL else "MISS"
    print(f"import of {args.matches} x {args.events} events: {total:.2f} s in all, "
          f"writer held {held[-1]:.2f} s (goal <= {GOAL:g} s) {verdict}")


if __name__ == "__main__":
    main()
