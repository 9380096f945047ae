"""The one bounded cache (referee/lru.py): what it keeps, and a missing value made once for threads at once."""

from __future__ import annotations

import threading
import time

from referee.lru import LRU, MiB


def test_the_least_recently_used_goes_first() -> None:
    cache: LRU[str, int] = LRU(2, budget=MiB)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # read: now the newest
    cache.put("c", 3)
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (1, None, 3)


def _at_once(cache: LRU[str, int], make: object, n: int = 6, **kw: object) -> list[int]:
    start = threading.Barrier(n)
    got: list[int] = []

    def ask() -> None:
        start.wait()
        got.append(cache.once("k", make, **kw))  # type: ignore[arg-type]

    threads = [threading.Thread(target=ask) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    return got


def test_once_makes_a_missing_value_once_for_threads_asking_together() -> None:
    cache: LRU[str, int] = LRU(4, budget=MiB)
    made: list[int] = []

    def make() -> int:
        made.append(1)
        time.sleep(0.2)  # the other threads ask while it is being made
        return 42

    assert _at_once(cache, make) == [42] * 6 and len(made) == 1
    assert cache.once("k", make) == 42 and len(made) == 1  # kept


def test_a_value_not_kept_is_made_by_each_thread_that_waited() -> None:
    cache: LRU[str, int] = LRU(4, budget=MiB)
    made: list[int] = []

    def make() -> int:
        made.append(1)
        time.sleep(0.1)
        return len(made)

    got = _at_once(cache, make, keep=lambda _: False)
    assert len(got) == 6 and len(made) == 6 and cache.get("k") is None


def test_a_failed_make_leaves_nothing_behind() -> None:
    cache: LRU[str, int] = LRU(4, budget=MiB)

    def boom() -> int:
        raise RuntimeError("no")

    try:
        cache.once("k", boom)
    except RuntimeError:
        pass
    assert cache.once("k", lambda: 7) == 7  # not waiting for a make that ended


def test_a_slow_make_is_not_waited_for_longer_than_wait() -> None:
    cache: LRU[str, int] = LRU(4, budget=MiB)
    release = threading.Event()
    threading.Thread(target=lambda: cache.once("k", lambda: (release.wait(10), 1)[1]), daemon=True).start()
    time.sleep(0.1)
    began = time.monotonic()
    assert cache.once("k", lambda: 2, wait=0.2) == 2
    assert time.monotonic() - began < 5
    release.set()
