"""A stream wakes only for what it shows (bench/tournament.py's MISS: every stream woke on every change).

The live hub of one process, driven by :meth:`Hub.publish` as its listener
would: a match page's wait ends for a change of its match or a night-wide
one, not for another table's round; a whole night's wait (the hall, a
player's own view) ends for every change. Whatever ends a wait, all the
changes after the caller's version come back, so it moves past the ones it
does not show and still sees a gap.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from referee.ledger import live

NIGHT = 424_242  # a night no test writes to: only the changes published here reach its waiters


def _change(version: int, match: int | None, what: str = "round") -> live.Change:
    return live.event_data(NIGHT, match, what, 1 if match else None, version)


class Waiter(threading.Thread):
    """One stream's wait in a thread: what it got and when."""

    def __init__(self, hub: live.Hub, after: int, match: int | None, timeout: float = 20.0) -> None:
        super().__init__(daemon=True)
        self.hub, self.after, self.match, self.timeout = hub, after, match, timeout
        self.got: list[live.Change] | None = None
        self.at = 0.0

    def run(self) -> None:
        self.got = self.hub.wait(NIGHT, self.after, self.timeout, self.match)
        self.at = time.monotonic()


def test_a_match_stream_sleeps_through_other_tables_rounds(app: Any) -> None:
    from referee.models import db

    with app.app_context():
        hub = live.hub(db.engine)
    mine, whole, other_waiter = Waiter(hub, 0, match=7), Waiter(hub, 0, match=None), Waiter(hub, 0, match=8)
    for w in (mine, whole, other_waiter):
        w.start()
    time.sleep(0.3)  # all three are waiting
    hub.publish(_change(1, match=8))  # another table's round
    whole.join(5)
    other_waiter.join(5)
    assert not whole.is_alive() and whole.got == [_change(1, 8)]  # the hall wakes
    assert not other_waiter.is_alive()  # that table's page wakes
    time.sleep(0.5)
    assert mine.is_alive()  # table 7's page still sleeps
    hub.publish(_change(2, match=7))
    mine.join(5)
    assert not mine.is_alive()
    assert mine.got == [_change(1, 8), _change(2, 7)]  # every change after its version: no gap

    night_wide = Waiter(hub, 2, match=7)
    night_wide.start()
    time.sleep(0.3)
    hub.publish(_change(3, match=None, what="rights"))  # a revoke: every stream must look
    night_wide.join(5)
    assert not night_wide.is_alive() and night_wide.got == [_change(3, None, "rights")]


def test_a_match_stream_whose_wait_times_out_still_gets_the_other_changes(app: Any) -> None:
    from referee.models import db

    with app.app_context():
        hub = live.hub(db.engine)
    hub.publish(_change(11, match=9))
    # version 10 was never seen here: a gap the caller reads from the database
    assert hub.wait(NIGHT, 9, 0.2, 5) is None
    got = hub.wait(NIGHT, 10, 0.2, 5)  # nothing of match 5: the wait runs out, the other change comes back
    assert got == [_change(11, 9)]
