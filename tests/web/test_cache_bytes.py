"""The process-wide caches are bounded in bytes, not only in entries (issue 45.8).

A bound on entries is no bound on memory when an entry grows with its match:
the soak's workers grew with their matches' length. These tests check that a
cache's weight never passes its budget, that a value heavier than the budget is
not kept, that :func:`referee.lru.deep_size` is a fair estimate of what a value
really holds (measured with ``tracemalloc``), and that the fold's weight, added
up round by round, stays the weight of what it keeps.
"""

from __future__ import annotations

import random
import tracemalloc
from typing import Any

import pytest

from referee import ledger
from referee.ledger import fold
from referee.lru import LRU, MiB, deep_size
from referee.pages import guest_pages
from referee.reports import charts
from referee.web import sse
from tests.web.test_fold import svangknack


def test_a_cache_drops_its_oldest_entries_to_stay_within_its_budget() -> None:
    cache: LRU[int, bytes] = LRU(1000, budget=10_000, weigh=len)
    for key in range(50):
        cache.put(key, bytes(1_500))
        assert cache.weight <= 10_000
    assert len(cache) == 6  # 6 × 1,500 bytes fit in 10,000; a 7th would not
    assert [cache.get(k) is not None for k in (43, 44, 49)] == [False, True, True]
    cache.put(49, bytes(9_000))  # a key kept again weighs its new value only
    assert cache.weight == 9_000 and len(cache) == 1
    cache.pop(49)
    assert cache.weight == 0


def test_a_value_heavier_than_the_whole_budget_is_handed_out_but_not_kept() -> None:
    cache: LRU[str, bytes] = LRU(10, budget=1_000, weigh=len)
    cache.put("small", bytes(100))
    assert cache.once("big", lambda: bytes(5_000)) == bytes(5_000)
    assert cache.get("big") is None and cache.get("small") is not None and cache.weight == 100


def _traced(make: Any, tries: int = 3) -> tuple[Any, int]:
    """``make()`` and the bytes it allocated that are still held: the least of a few tries, because tracemalloc
    also counts what the process's other threads allocate meanwhile (a live server of an earlier test in the
    same worker), which only ever adds (one CI run measured 674,088 bytes for a 450,080-byte history)."""
    value, least = None, None
    for _ in range(tries):
        value = None  # the last try's value freed before this one is traced
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            value = make()
            held = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        least = held if least is None else min(least, held)
    assert least is not None
    return value, least


@pytest.mark.parametrize("rows", [50, 1_500])
def test_deep_size_is_within_a_third_of_what_a_fold_really_holds(rows: int) -> None:
    rng = random.Random(rows)

    def make() -> fold.History:
        return fold.History(players=("Anna", "Bo", "Cia", "Dag", "Eva"), seqs=tuple(range(rows)),
                            balances=tuple(tuple(rng.randint(-50_000, 50_000) for _ in range(5))
                                           for _ in range(rows)),
                            pots=tuple(rng.randint(300, 90_000) for _ in range(rows)))

    history, held = _traced(make)
    assert 0.67 * held <= deep_size(history) <= 1.5 * held, (deep_size(history), held)


def test_a_page_text_weighs_its_bytes() -> None:
    text = "<main>" + "å" * 50_000 + "</main>"
    _page, held = _traced(lambda: ("".join(["<main>", "å" * 50_000, "</main>"]), 200))
    weigh = guest_pages._KEPT.weigh
    assert 0.9 * held <= weigh((text, 200)) <= 1.1 * held


def test_the_fold_weighed_round_by_round_stays_the_weight_of_what_it_keeps(app: Any) -> None:
    """The kept fold is weighed whole only when its rows have doubled (weighing all of it at every round would
    cost more than the round); after 300 rounds added one by one its weight must still be the weight of the
    whole, within a tenth."""
    with app.app_context():
        _weighed_round_by_round()


def _weighed_round_by_round() -> None:
    match_id, _view = svangknack(1)
    match = ledger.get_match(match_id)
    fold.history(match)  # a cold fold, weighed whole
    state = ledger.state_of(match)
    for _ in range(300):
        _rnd, state = ledger.add_round(match_id, {"participants": [str(state.players[(state.dealer + 1)
                                                                                      % len(state.players)])]})
        fold.history(ledger.get_match(match_id))  # the kept fold extended by one round
    kept = fold._CACHE.get(fold.identity(ledger.get_match(match_id)))
    assert kept is not None and len(kept.history.seqs) == 302
    whole = deep_size(kept.history) + deep_size(kept.state)
    assert 0.9 * whole <= kept.weight <= 1.1 * whole, (kept.weight, whole)


def test_the_folds_of_long_matches_stay_within_the_budget(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Eight 200-round matches folded in a process whose fold cache may hold 256 KiB: the oldest folds go, the
    cache never weighs more than its budget, and a fold that went is folded again from the checkpoints."""
    monkeypatch.setattr(fold._CACHE, "budget", MiB // 4)
    fold.clear()
    with app.app_context():
        _long_matches_within_the_budget()


def _long_matches_within_the_budget() -> None:
    ids = [svangknack(200)[0] for _ in range(8)]
    weights = []
    for match_id in ids:
        fold.history(ledger.get_match(match_id))
        weights.append(fold._CACHE.weight)
    assert max(weights) <= MiB // 4
    assert len(fold._CACHE) < len(ids)  # some went: 8 × 200 rounds do not fit in 256 KiB
    assert len(fold.history(ledger.get_match(ids[0])).seqs) == 201  # folded again, whole


def test_every_process_wide_cache_has_a_budget_in_bytes() -> None:
    """The six LRU caches of the app, each with a budget in bytes; together at most 24 MiB a process, so that a
    worker's memory levels off within the soak's hour (docs/reliability.md, "Soak")."""
    caches = [fold._CACHE, fold._STATES, guest_pages._KEPT, sse._NEWS, charts._DRAWN,
              ledger.by_version._KEPT]
    assert all(c.budget > 0 for c in caches)
    assert sum(c.budget for c in caches) <= 24 * MiB
