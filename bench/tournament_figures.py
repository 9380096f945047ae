"""What one backend's big evening measured (``bench/tournament.py``): one record for every part of the bench.

Why a module of its own: the tables' leaders (``bench/tournament_tables.py``), the phones
(``bench/tournament_phones.py``) and the driver (``bench/tournament.py``) each write their share of the figures into
it while the evening runs, and the report (``bench/tournament_report.py``) reads it at the end; here none of them
imports another for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from serve import Timings


@dataclass
class Figures:
    """What one backend's evening measured, over all its series."""

    backend: str
    rounds: dict[str, Timings] = field(
        default_factory=lambda: {"without": Timings(), "with": Timings(), "burst": Timings()})
    rounds_n: dict[str, int] = field(default_factory=lambda: {"without": 0, "with": 0, "burst": 0})
    closes: Timings = field(default_factory=Timings)
    nexts: list[float] = field(default_factory=list)
    next_failed: list[int] = field(default_factory=list)
    ratios: list[float] = field(default_factory=list)  # per series: round p50 without / with
    events: list[float] = field(default_factory=list)  # from a round's 201 to each phone's event
    close_events: list[float] = field(default_factory=list)  # from a close's 200 to each phone's event
    pages: list[float] = field(default_factory=list)  # ... to each guest's page showing the round
    wholes: list[float] = field(default_factory=list)  # ... to the guest's first whole fetch after it
    halls: list[float] = field(default_factory=list)  # ... to each hall's first fetch after its event
    lost: dict[str, int] = field(default_factory=lambda: {"events": 0, "closes": 0, "pages": 0, "halls": 0})
    page_reads: list[float] = field(default_factory=list)
    hall_reads: list[float] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)  # statuses of failed page and hall fetches
    broken: list[str] = field(default_factory=list)  # streams that broke
    reconnects: int = 0
    dropped: int = 0
    opening: list[float] = field(default_factory=list)  # seconds to open every phone's page and stream
    memory: dict[str, int] = field(default_factory=dict)  # KiB, all servers
    cpu: dict[str, float] = field(default_factory=lambda: {"without": 0.0, "with": 0.0})
    own: dict[str, float] = field(default_factory=lambda: {"without": 0.0, "with": 0.0})
    loads: list[str] = field(default_factory=list)
    lag: list[float] = field(default_factory=list)  # the bench's own loop: how late a 50 ms sleep woke (s)
    timing: bool = False  # a timed block or burst is under way (the probe counts only then)
