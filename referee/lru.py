"""One bounded, thread-safe least-recently-used cache for the process-wide caches of the app.

The fold of the event log (:mod:`referee.ledger.fold`) keeps each match's fold
here; a dict with ``move_to_end``/``popitem`` written out in every module
that caches something was the same ten lines several times over, each with
its own lock (issue 27: "three hand-written LRU caches").
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LRU(Generic[K, V]):
    """At most ``size`` entries; reading one makes it the newest, adding one drops the oldest beyond ``size``."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: K, value: V, *, size: int | None = None) -> None:
        """Keep ``value``; ``size`` bounds the cache from now on where it is a setting read per request."""
        with self._lock:
            if size is not None:
                self.size = size
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def pop(self, key: K) -> None:
        with self._lock:
            self._items.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
