"""How many live streams one app process keeps open: never the threads that round entry needs.

Why: gunicorn's gthread worker serves each connection on a thread of its
own, and a live stream holds its thread for as long as it is open (up to
``LIVE_LIFETIME``). Without a bound, one view token opening a few hundred
streams took every thread of every worker, and round entry on another night
waited (10 s timeouts). Here each process keeps at most ``LIVE_STREAMS``
streams open, fewer than its threads (``make run``: 400 threads, 340
streams, so 60 threads are always left for pages and round entry), and at
most ``LIVE_NIGHT_STREAMS`` of them for one night and ``LIVE_TOKEN_STREAMS``
for one credential, so one night (or one leaked link) cannot take every
stream of the others. A stream over a cap is a ``429`` with ``Retry-After``;
the pages work without it (they only stop updating by themselves).

The caps are per credential and per night, never per address: a club's 200
phones share one address behind its router (and one view token). They are
counted in the process (a stream is a thread of this process, and the
threads are what the caps protect); an app with more workers or servers has
as many more streams.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

#: Seconds a refused phone is told to wait: about what a stream lasts when phones come and go.
RETRY_AFTER = 30


@dataclass(frozen=True)
class Full(Exception):
    """No stream for this request: which cap it met, and the message for the client."""

    message: str
    retry_after: int = RETRY_AFTER


class Slots:
    """The open streams of this process, counted in all, per night and per credential."""

    def __init__(self, total: int, per_night: int, per_token: int) -> None:
        self.total, self.per_night, self.per_token = total, per_night, per_token
        self.lock = threading.Lock()
        self.open = 0
        self.nights: Counter[int] = Counter()
        self.tokens: Counter[str] = Counter()

    def take(self, night_id: int, credential: str) -> Ticket:
        """A slot for a stream of ``night_id`` opened with ``credential`` (a token's hash), or :class:`Full`."""
        with self.lock:
            if self.open >= self.total:
                raise Full(f"This server has {self.total} live streams open, as many as it keeps; "
                           f"try again in {RETRY_AFTER} seconds (the pages work without the live updates).")
            if self.nights[night_id] >= self.per_night:
                raise Full(f"This night has {self.per_night} live streams open on this server, as many as one "
                           f"night may; try again in {RETRY_AFTER} seconds.")
            if self.tokens[credential] >= self.per_token:
                raise Full(f"This link has {self.per_token} live streams open on this server, as many as one "
                           f"link may; try again in {RETRY_AFTER} seconds.")
            self.open += 1
            self.nights[night_id] += 1
            self.tokens[credential] += 1
        return Ticket(self, night_id, credential)

    def _give_back(self, night_id: int, credential: str) -> None:
        with self.lock:
            self.open -= 1
            self.nights[night_id] -= 1
            if self.nights[night_id] <= 0:
                del self.nights[night_id]
            self.tokens[credential] -= 1
            if self.tokens[credential] <= 0:
                del self.tokens[credential]


class Ticket:
    """One taken slot; given back once, however often :meth:`release` is called."""

    def __init__(self, slots: Slots, night_id: int, credential: str) -> None:
        self._slots, self._night, self._credential = slots, night_id, credential
        self._held = True
        self._lock = threading.Lock()

    def release(self) -> None:
        with self._lock:
            held, self._held = self._held, False
        if held:
            self._slots._give_back(self._night, self._credential)


class Held:
    """A stream's body that gives its slot back when the server closes the response.

    Why not ``try/finally`` in the generator: a response closed before its
    first chunk (the client gone at once) never runs a generator's body, so
    its ``finally`` would never give the slot back.
    """

    def __init__(self, body: Iterator[str], ticket: Ticket) -> None:
        self.body = body
        self.ticket = ticket

    def __iter__(self) -> Iterator[str]:
        return self.body

    def close(self) -> None:
        try:
            close: Any = getattr(self.body, "close", None)
            if close is not None:
                close()
        finally:
            self.ticket.release()


def slots_for(config: dict[str, Any], store: dict[str, Any]) -> Slots:
    """The app's :class:`Slots` (one per app, so one per process), made from its config on first use."""
    found = store.get("referee_live_slots")
    if found is None:
        found = store.setdefault("referee_live_slots", Slots(
            int(config["LIVE_STREAMS"]), int(config["LIVE_NIGHT_STREAMS"]), int(config["LIVE_TOKEN_STREAMS"])))
    return found  # type: ignore[no-any-return]

