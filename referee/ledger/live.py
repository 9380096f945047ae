"""The live table: every write to a night is told to every phone that follows it.

Part of the service layer. :func:`note` runs inside each write transaction:
it moves the night's ``live_version`` on by one, logs the change in
``night_changes`` and, on PostgreSQL, sends ``NOTIFY referee_live`` with the
change (delivered at commit, to every app server listening; all three in one
statement there). Nothing lives
only in one process: the database is the bus.

Each app process has one :class:`Hub` (started by the first stream it
serves): a thread that hears the changes, by ``LISTEN`` on PostgreSQL or, on
SQLite (one host), by a cheap poll of ``night_changes`` by primary key, and
wakes the streams of that night. A stream never holds a database connection
while it waits, so hundreds of open streams cost threads, not connections.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import bindparam, insert, select, text, update
from sqlalchemy.engine import Engine

from referee.models import Night, NightChange, db, now

CHANNEL = "referee_live"
#: How often an SQLite server looks for new changes (seconds).
POLL = 0.3
#: Changes kept in memory per night for the streams to pick up.
RECENT = 256
#: Changes within this many seconds go out to a stream in one write (bench/live.py: 0.1 s gave
#: 0.77-0.86x round entry with 200 viewers, 0.25 s 0.93x, events still well under a second).
GATHER = 0.25
#: PostgreSQL: after a change, how long the hub listens for more before it reads their states and wakes the
#: streams (seconds; the streams gather for :data:`GATHER` after that). Only while a change of a match some stream
#: follows came without its state: else the hub wakes the streams at once.
HEAR = 0.05
#: PostgreSQL: a match's state goes with its change's notification up to this size (UTF-8 bytes of its JSON);
#: a larger one the hubs read (NOTIFY takes at most 8,000 bytes).
TOLD_MAX = 7000
#: More missed changes than this and a reconnecting phone gets one event with the state instead.
REPLAY_MAX = 200
#: How often a quiet stream asks whether its phone is still there (seconds): a phone gone gives back its
#: stream slot (referee/live_slots.py) within this, not at the next ping.
LOOK = 2.0

log = logging.getLogger(__name__)
Change = dict[str, Any]
#: Reads matches' states for ``state`` events: each match's night and the API's ``state`` of it, in one go
#: (:func:`referee.ledger.rounds.stored_states_json`, handed in by the API: the ledger's live table is below it).
News = Callable[[Engine, Sequence[int]], dict[int, tuple[int, dict[str, Any]]]]


_nights = Night.__table__
#: The two statements of every write, built once (building them per write cost more CPU than running them).
_NEXT_VERSION = (update(_nights).where(_nights.c.id == bindparam("night"))
                 .values(live_version=_nights.c.live_version + 1).returning(_nights.c.live_version))
_LOG_CHANGE = insert(NightChange.__table__)
#: PostgreSQL: the same two and the NOTIFY in one statement, one round trip instead of three (a round entry made
#: 16; bench/profile_round.py --postgres). The payload is :func:`event_data`'s, built by the database, then
#: ``:told``: empty, or a newline and the match's new state's JSON (:func:`note`).
_NOTE_PG = text(f"""
WITH v AS (UPDATE nights SET live_version = live_version + 1 WHERE id = CAST(:night AS INTEGER)
           RETURNING live_version),
     c AS (INSERT INTO night_changes (night_id, version, match_id, what, round_no, created_at)
           SELECT CAST(:night AS INTEGER), live_version, CAST(:match AS INTEGER), CAST(:what AS VARCHAR),
                  CAST(:round_no AS INTEGER), CAST(:created_at AS TIMESTAMP) FROM v
           RETURNING version)
SELECT version, pg_notify('{CHANNEL}', json_build_object(
    'night', CAST(:night AS INTEGER), 'match', CAST(:match AS INTEGER), 'what', CAST(:what AS VARCHAR),
    'round_no', CAST(:round_no AS INTEGER), 'version', version)::text || CAST(:told AS TEXT)) FROM c
""")


def note(night_id: int, what: str, match_id: int | None = None, round_no: int | None = None,
         state: Callable[[], dict[str, Any]] | None = None) -> int:
    """Record a write to the night, in the caller's write transaction; returns the new version.

    ``state`` makes the match's new state as the API shows it. On
    PostgreSQL it goes with the notification, so that no app server's hub
    reads it again for its streams' ``state`` events: with two servers of
    two workers each, every round's state was read and made four times
    (``bench/tournament.py``, py-spy). The writer has the state at hand; it
    costs it about 10 µs. On SQLite (one host) the hub reads it.
    """
    conn = db.session.connection()
    if conn.dialect.name == "postgresql":
        told = "" if state is None else state_text(state())
        if len(told.encode()) > TOLD_MAX:
            told = ""
        return int(conn.execute(_NOTE_PG, {"night": night_id, "match": match_id, "what": what,
                                           "round_no": round_no, "created_at": now(),
                                           "told": told and "\n" + told}).scalar_one())
    version = int(conn.execute(_NEXT_VERSION, {"night": night_id}).scalar_one())
    conn.execute(_LOG_CHANGE, {"night_id": night_id, "version": version, "match_id": match_id,
                               "what": what, "round_no": round_no, "created_at": now()})
    return version


_changes = NightChange.__table__
_WIDE = (select(_changes.c.version).where(_changes.c.night_id == bindparam("night"), _changes.c.match_id.is_(None))
         .order_by(_changes.c.version.desc()).limit(1))


def wide_version(night_id: int) -> int:
    """The night's version as of its last write of no match (players, payments, carries, rights, a series); 0 if none.

    What a match's page shows is its match and these: a guest's copy of the page is kept per match version and
    this (``referee/pages/guest_pages.py``), since the night's ``live_version`` moves with every other table's
    round. One index seek (``ix_night_changes_wide``), on the caller's session.
    """
    return int(db.session.execute(_WIDE, {"night": night_id}).scalar() or 0)


def event_data(night_id: int, match_id: int | None, what: str, round_no: int | None, version: int) -> Change:
    """The ``data`` of a ``change`` event (API.md "Live"): ids and numbers only, nothing edit-only."""
    return {"night": night_id, "match": match_id, "what": what, "round_no": round_no, "version": version}


def current_version(engine: Engine, night_id: int) -> int:
    with engine.connect() as conn:
        value = conn.execute(select(Night.__table__.c.live_version)
                             .where(Night.__table__.c.id == night_id)).scalar()
    return int(value or 0)


def changes_since(engine: Engine, night_id: int, after: int, limit: int = REPLAY_MAX + 1) -> list[Change]:
    """The night's logged changes after version ``after``, oldest first (at most ``limit``)."""
    t = NightChange.__table__
    with engine.connect() as conn:
        rows = conn.execute(select(t.c.night_id, t.c.match_id, t.c.what, t.c.round_no, t.c.version)
                            .where(t.c.night_id == night_id, t.c.version > after)
                            .order_by(t.c.version).limit(limit)).all()
    return [event_data(*row) for row in rows]


class Hub:
    """This process's ear for changes, and the waiting room of its streams."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.lock = threading.Lock()
        #: Who waits for what: (night, match) for a match's streams, (night, None) for the whole night's.
        self.conditions: dict[tuple[int, int | None], threading.Condition] = {}
        self.recent: dict[int, deque[Change]] = {}
        #: The matches whose streams want ``state`` events (how many streams each), the reader, and the last
        #: state read of each: (its change's version, the match's night, the state's JSON).
        self.followed: dict[int, int] = {}
        self.news: News | None = None
        self.states: dict[int, tuple[int, int, str]] = {}
        self.ready = threading.Event()
        self.stopping = threading.Event()
        self.failing = False
        self.thread = threading.Thread(target=self._run, name="referee-live", daemon=True)
        self.thread.start()

    # --- the streams' side ---------------------------------------------------

    def _condition(self, key: tuple[int, int | None]) -> threading.Condition:
        cond = self.conditions.get(key)
        if cond is None:
            cond = self.conditions.setdefault(key, threading.Condition(self.lock))
        return cond

    def wait(self, night_id: int, after: int, timeout: float, match_id: int | None = None) -> list[Change] | None:
        """Changes of the night after version ``after``, waiting up to ``timeout`` for one it shows.

        With ``match_id`` (a match page's stream) the wait ends only for a
        change of that match or a night-wide one (``match`` null: a player, a
        payment, rights), not for every other table's round: at a club
        evening of 40 tables a round woke all 200 phones' streams, 199 of
        them for nothing (``bench/tournament.py``). Without it (the hall,
        a player's own view, the night page) every change ends it. Either way
        all the changes after ``after`` come back, so the caller's version
        moves past the ones it does not show and a gap is still seen.

        ``[]`` when nothing came; ``None`` when some were missed here (a
        listener reconnect) and must be read from the database.
        """
        with self.lock:
            cond = self._condition((night_id, match_id))

            def newer() -> bool:
                for change in reversed(self.recent.get(night_id, ())):
                    if change["version"] <= after:
                        return False
                    if match_id is None or change["match"] is None or change["match"] == match_id:
                        return True
                return False

            cond.wait_for(lambda: newer() or self.stopping.is_set(), timeout)
            found = [c for c in self.recent.get(night_id, ()) if c["version"] > after]
        if found and found[0]["version"] != after + 1:
            return None
        return found

    def follow(self, match_id: int, news: News, on: bool = True) -> None:
        """A stream wants (``on``) or no longer wants the ``state`` events of the match."""
        with self.lock:
            self.news = news
            count = self.followed.get(match_id, 0) + (1 if on else -1)
            if count > 0:
                self.followed[match_id] = count
            else:
                self.followed.pop(match_id, None)
                self.states.pop(match_id, None)

    def state(self, match_id: int, version: int) -> tuple[int, int, str] | None:
        """(the change's version it was read after, night, the state's JSON) of the match, as read after its change
        ``version`` or later; None if not. The stream makes its ``state`` event of it (:mod:`referee.web.sse`)."""
        with self.lock:
            kept = self.states.get(match_id)
        return kept if kept is not None and kept[0] >= version else None

    def _read_states(self, changes: list[Change], told: dict[int, tuple[int, str]] | None = None) -> None:
        """Read the states of the followed matches that ``changes`` changed, all in one statement, for their streams.

        Why here: after every round of a followed table each of its streams
        sent a state event, read once per change and process; at a club
        evening of 40 tables that was a connection and a query per round
        (``bench/tournament.py``). The hub reads every followed table that
        changed since its last look at once, before it wakes their streams.
        ``told``: the states that came with the changes (PostgreSQL, by
        match: its change's version and the state's JSON); a match whose
        last change here told its state is not read.
        """
        told = told or {}
        with self.lock:
            news = self.news
            last = {c["match"]: (int(c["night"]), c["version"]) for c in changes if c["match"] in self.followed}
        came = {match_id: _came(told, match_id, version) for match_id, (_night, version) in last.items()}
        read: dict[int, tuple[int, dict[str, Any]]] = {}
        unread = sorted(m for m, text in came.items() if text is None)
        if unread and news is not None:
            try:
                read = news(self.engine, unread)
            except Exception:  # the streams read it themselves (referee.web.sse), or the phone fetches its page
                log.exception("live: the states of %s matches could not be read", len(unread))
        made: dict[int, tuple[int, int, str]] = {}
        for match_id, (night_id, version) in last.items():
            text = came[match_id]
            if text is None and match_id in read:
                night_id, text = read[match_id][0], state_text(read[match_id][1])
            if text is not None:
                made[match_id] = (version, night_id, text)
        if made:
            with self.lock:
                self.states.update((m, v) for m, v in made.items() if m in self.followed)

    def publish(self, change: Change) -> None:
        """Keep the change and wake the streams that show it: the night's whole and, if any, its match's."""
        night_id = int(change["night"])
        match_id = change["match"]
        with self.lock:
            self.recent.setdefault(night_id, deque(maxlen=RECENT)).append(change)
            if match_id is None:  # night-wide: every stream of the night shows it
                for (night, _match), each in self.conditions.items():
                    if night == night_id:
                        each.notify_all()
                return
            self._condition((night_id, None)).notify_all()
            waiting = self.conditions.get((night_id, int(match_id)))
            if waiting is not None:
                waiting.notify_all()

    # --- the ear -------------------------------------------------------------

    def _run(self) -> None:
        while not self.stopping.is_set():
            try:
                if self.engine.dialect.name == "postgresql":
                    self._listen()
                else:
                    self._poll()
            except Exception as exc:  # the database went away: try again, the streams check on their own
                if not self.failing:  # once per outage, not once a second
                    log.warning("live: listener lost the database (%s); retrying every second", exc)
                self.failing = True
                self.stopping.wait(1.0)

    def _listen(self) -> None:
        import psycopg

        dsn = self.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f"LISTEN {CHANNEL}")
            self.ready.set()
            self.failing = False  # connected again: the next outage is logged again
            while not self.stopping.is_set():
                got: list[Change] = []
                told: dict[int, tuple[int, str]] = {}
                heard = _heard(conn.notifies(timeout=1.0, stop_after=1), got, told)
                if not heard:
                    continue
                if any(c["match"] in self.followed and _came(told, c["match"], c["version"]) is None
                       for c in got):  # a state to read: the changes of the next moment too, read in one go
                    _heard(conn.notifies(timeout=HEAR), got, told)
                self._read_states(got, told)
                for change in got:
                    self.publish(change)

    def _poll(self) -> None:
        t = NightChange.__table__
        with self.engine.connect() as conn:
            last = int(conn.execute(select(t.c.id).order_by(t.c.id.desc()).limit(1)).scalar() or 0)
        self.ready.set()
        self.failing = False
        while not self.stopping.wait(POLL):
            with self.engine.connect() as conn:
                rows = conn.execute(select(t.c.id, t.c.night_id, t.c.match_id, t.c.what, t.c.round_no, t.c.version)
                                    .where(t.c.id > last).order_by(t.c.id).limit(1000)).all()
            changes = [event_data(*row[1:]) for row in rows]
            if changes:
                last = rows[-1][0]
                self._read_states(changes)
            for change in changes:
                self.publish(change)


def _came(told: dict[int, tuple[int, str]], match_id: int, version: int) -> str | None:
    """The state's JSON that came with the match's change ``version`` (:func:`_heard`), or None."""
    kept = told.get(match_id)
    return kept[1] if kept is not None and kept[0] == version else None


def _heard(notifications: Any, changes: list[Change], told: dict[int, tuple[int, str]]) -> int:
    """Add the notifications' changes, and the states that came with them (:func:`note`); how many came."""
    count = 0
    for notification in notifications:
        head, _, state = notification.payload.partition("\n")
        change = json.loads(head)
        changes.append(change)
        if state and change["match"] is not None:
            told[int(change["match"])] = (change["version"], state)
        count += 1
    return count


_hubs: dict[tuple[int, str], Hub] = {}
_hubs_lock = threading.Lock()


def hub(engine: Engine) -> Hub:
    """This process's hub for the database (a new one after a fork: threads do not survive it)."""
    key = (os.getpid(), str(engine.url))
    with _hubs_lock:
        found = _hubs.get(key)
        if found is None:
            found = _hubs[key] = Hub(engine)
    found.ready.wait(10)
    return found


def state_text(state: dict[str, Any]) -> str:
    """A match's state as the ``state`` events and the notifications carry it: compact JSON."""
    return json.dumps(state, separators=(",", ":"))
