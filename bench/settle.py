"""Benchmark of referee.settle: exact plans by size, and the greedy fallback.

Run from the repository root: ``.venv/bin/python bench/settle.py``.

Balances are random and non-zero, with no equal-and-opposite pair (those are
paired before the search, so they would make the search smaller than the
player count). Two kinds of night: amounts in whole units (many subsets add
up to zero, the realistic case) and amounts in cents (almost none do).
Each figure is the median of several runs (wall clock, this machine).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.ledger.settle import EXACT_LIMIT, Plan, settle

RUNS = 7


def night(rng: random.Random, n: int, unit: int, spread: int) -> dict[str, int]:
    """``n`` non-zero balances summing to zero, none the opposite of another."""
    while True:
        values = [rng.randint(-spread, spread) * unit for _ in range(n - 1)]
        values.append(-sum(values))
        seen = set(values)
        if 0 not in seen and not any(-v in seen for v in seen):
            return {f"player{i:02d}": v for i, v in enumerate(values)}


def timed(balances: dict[str, int], limit: int) -> tuple[float, Plan]:
    start = time.perf_counter()
    plan = settle(balances, limit=limit)
    return time.perf_counter() - start, plan


def row(label: str, n: int, unit: int, spread: int, limit: int = EXACT_LIMIT) -> None:
    rng = random.Random(f"{n}-{unit}-{spread}")
    times, counts, exact = [], [], set()
    for _ in range(RUNS):
        seconds, plan = timed(night(rng, n, unit, spread), limit)
        times.append(seconds)
        counts.append(len(plan.transfers))
        exact.add(plan.exact)
    kind = "exact" if exact == {True} else "greedy" if exact == {False} else "mixed"
    print(f"{label:<12} n={n:>2}  {kind:<6}  median {statistics.median(times) * 1000:8.2f} ms"
          f"  max {max(times) * 1000:8.2f} ms  transfers {min(counts)}-{max(counts)}")


def main() -> None:
    print(f"referee.settle benchmark: median of {RUNS} runs; EXACT_LIMIT = {EXACT_LIMIT}")
    for label, unit, spread in (("whole units", 100, 30), ("cents", 1, 5000)):
        for n in (10, 15, 20, EXACT_LIMIT):
            row(label, n, unit, spread)
    print("beyond the limit (not used by settle(), for choosing EXACT_LIMIT):")
    row("whole units", EXACT_LIMIT + 1, 100, 30, limit=EXACT_LIMIT + 1)
    print("greedy fallback:")
    row("whole units", 40, 100, 30)
    row("cents", 40, 1, 5000)


if __name__ == "__main__":
    main()
