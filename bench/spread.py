"""Ratios a benchmark can stand behind (issue 29): the floor and the subject timed in the same loop, and a spread.

A ratio whose floor is timed in one block and its subject in another moves
with the machine's load between the blocks: ``bench/pdf.py`` once printed
PASS for 1.9x where renders interleaved the same minute gave 5.6x. Here
every round times the floor and each subject one after the other (CPU time
of the process: one thread's work), so each round gives its own ratio; the
figure is the median of those ratios and the spread is their lowest and
highest. The verdict is PASS only when the whole spread is within the goal,
MISS when the whole spread is beyond it, and says so when the spread
crosses the goal (``SPREAD``: run again on a quieter machine).

Every timed run starts right after a full garbage collection, untimed. A
collection of the oldest generation walks the process's whole heap (in
``bench/season.py``, a 52-night season and a 2,000-round match: 115-130 ms)
and falls on whichever run happens to cross the collector's threshold. In 5
to 7 rounds one such run made a round of 9.7x out of a page that is 2x in
every other round, and so turned PASS into SPREAD by chance. Collecting
before each run charges every run only the garbage it makes itself, floor
and subject alike; the same reason ``timeit`` switches the collector off
while it times. The collections a run's own garbage sets off are still
counted.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Runs:
    """CPU and wall-clock seconds of every timed run of one figure, and its last result."""

    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)
    result: Any = None

    def time(self, fn: Callable[[], Any]) -> float:
        """Run ``fn`` once after an untimed full collection; keep its CPU and wall seconds; return the CPU."""
        gc.collect()
        start, start_cpu = time.perf_counter(), time.process_time()
        self.result = fn()
        self.wall.append(time.perf_counter() - start)
        self.cpu.append(time.process_time() - start_cpu)
        return self.cpu[-1]


def interleaved(floor: Callable[[], Any], subjects: dict[str, Callable[[], Any]], rounds: int,
                floor_reps: int = 5, limits: dict[str, int] | None = None,
                prepare: dict[str, Callable[[], Any]] | None = None) -> tuple[Runs, dict[str, Runs],
                                                                              dict[str, list[float]]]:
    """Time ``floor`` and every subject in each of ``rounds`` rounds, one right after the other.

    A round's floor is the median of ``floor_reps`` runs (a short render wanders more than a long one), taken
    half before and half after the subjects. ``limits`` caps the rounds of a slow subject; ``prepare`` names an
    untimed step run right before a subject (another phone's round, a void: what makes the subject's case).
    Returns the floor's runs, each subject's runs and each subject's per-round ratios (subject CPU / that
    round's floor CPU).
    """
    limits = limits or {}
    floor_runs = Runs()
    runs = {name: Runs() for name in subjects}
    ratios: dict[str, list[float]] = {name: [] for name in subjects}
    for k in range(rounds):
        before = [floor_runs.time(floor) for _ in range((floor_reps + 1) // 2)]
        timed = {}
        for name, fn in subjects.items():
            if k < limits.get(name, rounds):
                (prepare or {}).get(name, _nothing)()
                timed[name] = runs[name].time(fn)
        after = [floor_runs.time(floor) for _ in range(floor_reps // 2)]
        this_floor = statistics.median(before + after)
        for name, cpu in timed.items():
            ratios[name].append(cpu / this_floor)
    return floor_runs, runs, ratios


def _nothing() -> None:
    """No preparation."""


def judge(ratios: list[float], goal: float, at_most: bool = True) -> str:
    """PASS / MISS / SPREAD for per-round ``ratios`` against ``goal`` (a ceiling, or a floor with ``at_most=False``)."""
    lo, hi = min(ratios), max(ratios)
    within, beyond = (hi <= goal, lo > goal) if at_most else (lo >= goal, hi < goal)
    if within:
        return "PASS"
    if beyond:
        return "MISS"
    return "SPREAD"


def describe(ratios: list[float], goal: float, at_most: bool = True) -> str:
    """``PASS  1.93x [1.80-2.10] (goal <= 3x)``; SPREAD says the spread crosses the goal, in words."""
    verdict = judge(ratios, goal, at_most)
    text = (f"{statistics.median(ratios):.2f}x [{min(ratios):.2f}-{max(ratios):.2f} over {len(ratios)} rounds] "
            f"(goal {'<=' if at_most else '>='} {goal:g}x)")
    if verdict == "SPREAD":
        return f"SPREAD {text}: the spread crosses the goal, neither PASS nor MISS (run on a quieter machine)"
    return f"{verdict}  {text}"
