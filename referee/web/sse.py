"""The live stream's Server-Sent Events: the text of each event and the generator a stream's response runs.

Why here and not in the ledger: the ledger keeps the live table (each
write's note, the change log, the process's :class:`~referee.ledger.live.Hub`
that hears the changes and reads the followed matches' states); how a
change is written for a browser (``id:``, ``event:``, ``data:``, the
``retry`` and the pings) and how long a response streams is HTTP, and the
API's (``GET /api/nights/<id>/live``, :mod:`referee.api.live`, its one caller; issue 48.1). In
``referee/web/`` beside the other HTTP pieces the ledger used to hold, and strictly typed as it was there.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable, Iterator

from sqlalchemy.engine import Engine

from referee.ledger import live
from referee.lru import LRU, MiB

log = logging.getLogger(__name__)

#: A match's ``state`` event after a change of it that the hub had not read (a reconnect's, the ping's), its text
#: made once per change and process by the first stream that sends it (:func:`state_event`).
_NEWS: LRU[tuple[str, int, int], tuple[int, str]] = LRU(256, budget=1 * MiB, weigh=lambda told: sys.getsizeof(told[1]))


def sse(data: live.Change | None = None, comment: str = "", retry: int = 0) -> str:
    """One Server-Sent Events message."""
    if comment:
        return f": {comment}\n\n"
    if retry:
        return f"retry: {retry}\n\n"
    assert data is not None
    return f"id: {data['version']}\nevent: change\ndata: {json.dumps(data)}\n\n"


def event_text(match_id: int, version: int, state: str) -> str:
    """A ``state`` event: the match's state (its JSON) after its change of night version ``version`` (no id: not a
    change). Made from the JSON text as it came, so that a state told in a notification is not parsed again."""
    return f'event: state\ndata: {{"match":{int(match_id)},"state":{state},"version":{int(version)}}}\n\n'


def state_event(ear: live.Hub, night_id: int, match_id: int, version: int, news: live.News) -> str:
    """The match's ``state`` event after its change ``version``, for a stream of night ``night_id``.

    Why: a phone following a match used to fetch the whole page (18 kB, 25 ms
    of a server's CPU) after every change of it, and at a club evening 160
    phones did so for every round (``bench/tournament.py``). With the state
    in the stream, a phone shows the new numbers at once and fetches the page
    (the history, the chart) less often (``static/js/live.js``). The hub
    has usually read it already (:meth:`~referee.ledger.live.Hub._read_states`); else the first
    stream of the change reads it and the others take its answer. Empty for
    a match of another night (its state is not this token's to read), and
    if it cannot be read: the phone then fetches the page.
    """
    engine = ear.engine
    kept = ear.state(match_id, version)
    if kept is not None:
        read_at, night, state = kept
        return event_text(match_id, read_at, state) if night == night_id else ""

    def make() -> tuple[int, str]:
        found = news(engine, [match_id]).get(match_id)
        return (0, "") if found is None else (found[0], event_text(match_id, version, live.state_text(found[1])))

    try:
        told = _NEWS.once((str(engine.url), match_id, version), make, keep=lambda made: bool(made[1]))
    except Exception:  # the stream goes on without it: the page is fetched as before
        log.exception("live: the state of match %s could not be read for its stream", match_id)
        return ""
    return told[1] if told[0] == night_id else ""


def stream(engine: Engine, night_id: int, last_id: int | None, *, match_id: int | None = None,
           ping: float = 15.0, lifetime: float = 300.0, gather: float = live.GATHER,
           opens: Callable[[], bool] | None = None, gone: Callable[[], bool] | None = None,
           news: live.News | None = None) -> Iterator[str]:
    """The night's live stream: the opening event, then every change; ends after ``lifetime``.

    With ``last_id`` (a reconnect's ``Last-Event-ID``) the opening is what was
    missed since, one event each, or one event with the state when that is
    too much or cannot be told. With ``match_id`` only that match's changes
    and the night-wide ones are sent (a match page, the table display).
    Changes that come within ``gather`` seconds of each other go out in one
    write: with hundreds of streams and a busy night, one wake-up and one
    send per stream per burst instead of one per change. The stream ends by
    itself after ``lifetime`` (the browser reconnects after ``retry``), so a
    server can stop gracefully. With ``opens`` (whether the token the stream
    was opened with still opens the night: the one rights check,
    :func:`referee.ledger.rights.still_opens`) the stream ends as soon as it
    no longer does, asked when the night's rights change (``rights``: a new
    edit token, a table's new token) and at every ping, so a stream opened
    with a revoked link does not hear the rounds after it; with ``gone`` (whether the
    phone closed its connection) at most :data:`~referee.ledger.live.LOOK` seconds after the
    phone went, instead of at the next write. With ``news`` and ``match_id``
    each send that holds a change of the match ends with a ``state`` event
    (:func:`state_event`).
    """
    def wanted(change: live.Change) -> bool:
        return match_id is None or change["match"] is None or change["match"] == match_id

    def told(sent: list[live.Change]) -> str:
        """The ``state`` event after the last of ``sent`` that is this match's (when asked for), else nothing."""
        if news is None or match_id is None:
            return ""
        mine = max((c["version"] for c in sent if c["match"] == match_id), default=0)
        return state_event(ear, night_id, match_id, mine, news) if mine else ""

    ear = live.hub(engine)
    if news is not None and match_id is not None:
        ear.follow(match_id, news)
    try:
        yield sse(retry=2000)
        known = live.current_version(engine, night_id)
        missed = live.changes_since(engine, night_id, last_id) if last_id is not None and last_id < known else []
        if (last_id is not None and last_id <= known and len(missed) <= live.REPLAY_MAX
                and [c["version"] for c in missed] == list(range(last_id + 1, known + 1))):
            yield "".join(sse(change) for change in missed if wanted(change))
        else:
            yield sse(live.event_data(night_id, None, "night", None, known))
        deadline = time.monotonic() + lifetime
        quiet_since = time.monotonic()
        while (left := deadline - time.monotonic()) > 0 and not ear.stopping.is_set():
            got = ear.wait(night_id, known, min(ping, left, live.LOOK if gone is not None else ping), match_id)
            if not got and gone is not None and gone():
                return
            if got and gather > 0 and any(wanted(c) for c in got):  # not for a timeout's other tables' changes
                time.sleep(gather)  # let a burst of changes gather: one send for all of them
                got = ear.wait(night_id, known, 0, match_id)
            if got is None:
                got = live.changes_since(engine, night_id, known)
            if opens is not None and any(c["what"] == "rights" for c in got) and not opens():
                return
            sent = []
            for change in got:
                if change["version"] > known:
                    known = change["version"]
                    if wanted(change):
                        sent.append(change)
            if sent:
                yield "".join(sse(change) for change in sent) + told(sent)
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since >= ping - 0.05:
                quiet_since = time.monotonic()
                if opens is not None and not opens():
                    return
                # A listener that lost its connection may have missed a change: the ping checks.
                late = live.changes_since(engine, night_id, known)
                for change in late:
                    known = max(known, change["version"])
                shown = [c for c in late if wanted(c)]
                yield "".join(sse(c) for c in shown) + told(shown) + sse(comment="ping")
    finally:
        if news is not None and match_id is not None:
            ear.follow(match_id, news, on=False)
