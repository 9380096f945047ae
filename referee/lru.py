"""One bounded, thread-safe least-recently-used cache for the process-wide caches of the app.

The fold of the event log (:mod:`referee.ledger.fold`) keeps each match's fold
here; a dict with ``move_to_end``/``popitem`` written out in every module
that caches something was the same ten lines several times over, each with
its own lock (issue 27: "three hand-written LRU caches").

:meth:`LRU.once` makes a missing value once when several threads ask for it
at the same moment: the phones of a table hear a round's event together and
fetch together, and each of them used to miss the value the first one was
still making, and make it too.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LRU(Generic[K, V]):
    """At most ``size`` entries; reading one makes it the newest, adding one drops the oldest beyond ``size``."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self._making: dict[K, threading.Event] = {}  # keys a thread is making now (under _lock)

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

    def once(self, key: K, make: Callable[[], V], *, keep: Callable[[V], bool] = lambda _: True,
             size: int | None = None, wait: float = 2.0) -> V:
        """The value kept under ``key``, else ``make()``'s, kept when ``keep`` says so.

        One thread makes a missing key's value; the others asking for it
        meanwhile wait for it (at most ``wait`` seconds) and take it. When
        it is not kept (``keep`` said no, ``make`` raised) or comes too late,
        each of them makes its own.
        """
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
                return value
            making = self._making.get(key)
            if making is None:
                mine = self._making[key] = threading.Event()
        if making is not None:
            if making.wait(wait) and (value := self.get(key)) is not None:
                return value
            return make()
        try:
            value = make()
            if keep(value):
                self.put(key, value, size=size)
            return value
        finally:
            with self._lock:
                del self._making[key]
            mine.set()

    def pop(self, key: K) -> None:
        with self._lock:
            self._items.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
