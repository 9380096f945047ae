"""Failed token attempts per client address, and a 429 when there are too many.

Tokens are 192 random bits, so guessing is hopeless anyway; the limit keeps a
script from trying at all and keeps logs readable. Counts live in the
process (each gunicorn worker counts on its own), which is enough to stop a
loop without a shared store.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

from flask import current_app, request


class FailureLimiter:
    """At most ``limit`` failures per key within ``window`` seconds."""

    def __init__(self, limit: int, window: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[float]:
        times = self._failures.setdefault(key, deque())
        while times and now - times[0] > self.window:
            times.popleft()
        return times

    def retry_after(self, key: str) -> int:
        """Seconds until ``key`` may try again; 0 when it is not blocked."""
        with self._lock:
            now = self.clock()
            times = self._recent(key, now)
            if len(times) < self.limit:
                return 0
            return max(1, int(self.window - (now - times[0])) + 1)

    def failed(self, key: str) -> None:
        with self._lock:
            now = self.clock()
            self._recent(key, now).append(now)
            if len(self._failures) > 10_000:  # forget the oldest addresses rather than grow without end
                for stale in list(self._failures)[:1_000]:
                    del self._failures[stale]


def limiter() -> FailureLimiter:
    return current_app.extensions["referee.failures"]  # type: ignore[no-any-return]


def client_key() -> str:
    return request.remote_addr or "unknown"
