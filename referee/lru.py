"""One bounded, thread-safe least-recently-used cache for the process-wide caches of the app.

The fold of the event log (:mod:`referee.ledger.fold`) keeps each match's fold
here; a dict with ``move_to_end``/``popitem`` written out in every module
that caches something was the same ten lines several times over, each with
its own lock (issue 27: "three hand-written LRU caches").

**Bounded in bytes (issue 45.8).** A bound on entries alone is no bound on
memory when an entry grows: a match's fold holds a point per round, so 256
folds of 1,500-round matches weigh a hundred times 256 folds of 15 rounds,
and the soak's workers grew with their matches' length. Each cache is given
a ``budget`` in bytes and a ``weigh`` function; the oldest entries go until
the weights of those kept add up to at most the budget, and a value heavier
than the whole budget is handed out but not kept. :func:`deep_size` is the
one estimate of what a value holds (``sys.getsizeof`` over its containers,
each object once); a cache whose values have a cheaper exact size (a page's
text) passes its own.

:meth:`LRU.once` makes a missing value once when several threads ask for it
at the same moment: the phones of a table hear a round's event together and
fetch together, and each of them used to miss the value the first one was
still making, and make it too.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

#: Bytes in a mebibyte, for the budgets of the settings.
MiB = 1 << 20

_ATOMS = (str, bytes, bytearray, int, float, complex, bool, type(None))


def deep_size(value: Any) -> int:
    """About the bytes ``value`` holds: ``sys.getsizeof`` of it and of everything it reaches, each object once.

    Follows tuples, lists, sets, mappings (keys and values), dataclasses
    (their fields, slotted or not) and other objects' ``__dict__``; strings,
    bytes and numbers are leaves. Shared objects (small ints, interned
    strings, a state's players in every row) are counted once per value.
    Costs about a microsecond per object: weigh a value once, when it is
    made, not on every read.
    """
    seen: set[int] = set()
    total = 0
    todo = [value]
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if isinstance(obj, _ATOMS):
            continue
        if isinstance(obj, Mapping):
            todo.extend(obj.keys())
            todo.extend(obj.values())
        elif isinstance(obj, (tuple, list, set, frozenset)):
            todo.extend(obj)
        elif dataclasses.is_dataclass(obj):
            todo.extend(getattr(obj, f.name) for f in dataclasses.fields(obj))
        elif hasattr(obj, "__dict__") and not isinstance(obj, type):
            todo.append(vars(obj))
    return total


class LRU(Generic[K, V]):
    """At most ``size`` entries weighing at most ``budget`` bytes together; reading one makes it the newest,
    adding one drops the oldest beyond either bound."""

    def __init__(self, size: int, *, budget: int, weigh: Callable[[V], int] = deep_size) -> None:
        self.size = size
        self.budget = budget
        self.weigh = weigh
        self.weight = 0  # the kept entries' weights added up (under _lock)
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()
        self._making: dict[K, threading.Event] = {}  # keys a thread is making now (under _lock)

    def get(self, key: K) -> V | None:
        with self._lock:
            kept = self._items.get(key)
            if kept is None:
                return None
            self._items.move_to_end(key)
            return kept[0]

    def put(self, key: K, value: V, *, size: int | None = None, weight: int | None = None) -> None:
        """Keep ``value`` (``weight``: its bytes when the caller knows them; else ``weigh`` says);
        ``size`` bounds the cache from now on where it is a setting read per request."""
        bytes_ = self.weigh(value) if weight is None else weight
        with self._lock:
            if size is not None:
                self.size = size
            old = self._items.pop(key, None)
            if old is not None:
                self.weight -= old[1]
            if bytes_ > self.budget:
                return  # heavier than the whole cache: handed out, not kept
            self._items[key] = (value, bytes_)
            self.weight += bytes_
            while len(self._items) > self.size or self.weight > self.budget:
                _, (_, dropped) = self._items.popitem(last=False)
                self.weight -= dropped

    def once(self, key: K, make: Callable[[], V], *, keep: Callable[[V], bool] = lambda _: True,
             size: int | None = None, wait: float = 2.0) -> V:
        """The value kept under ``key``, else ``make()``'s, kept when ``keep`` says so.

        One thread makes a missing key's value; the others asking for it
        meanwhile wait for it (at most ``wait`` seconds) and take it. When
        it is not kept (``keep`` said no, ``make`` raised, too heavy) or
        comes too late, each of them makes its own.
        """
        with self._lock:
            kept = self._items.get(key)
            if kept is not None:
                self._items.move_to_end(key)
                return kept[0]
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
            old = self._items.pop(key, None)
            if old is not None:
                self.weight -= old[1]

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.weight = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
