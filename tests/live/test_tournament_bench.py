"""``bench/tournament.py`` on a tiny, fast club evening (2 tables, a round a second) prints its figures.

Not a timed test: the goals are the bench's business (PASS/MISS on a loaded machine says little here). What
must hold is that the bench runs end to end over HTTP (tournament, table tokens, streams, page and hall reads,
the burst's closes and the organiser's ``next``) and that each figure comes out of measurements: rounds entered
in both conditions and in the burst, every phone's event and every hall update accounted for, memory read, a
verdict for each goal.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_tiny_bench_prints_every_figure() -> None:
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "tournament.py"), "--tables", "2", "--series", "1",
                          "--block", "5", "--pace", "1", "--burst", "2", "--backend", "sqlite"],
                         cwd=ROOT, capture_output=True, text=True, timeout=150)
    out = run.stdout
    assert run.returncode == 0, f"{out}\n{run.stderr[-3000:]}"

    for condition in ("without", "with", "burst"):
        row = re.search(rf"round entry {condition} +p50 ([\d.]+) ms +p99 ([\d.]+) ms +max [\d.]+ ms +n=(\d+)$", out,
                        re.M)
        assert row, f"no round entry figures {condition}:\n{out}"
        assert int(row[3]) >= 2 and float(row[1]) <= float(row[2]), row[0]
    assert re.search(r"^close \(burst\) +p50 [\d.]+ ms .* n=2$", out, re.M), out
    assert re.search(r"^next \(8 players\) +[\d.]+ ms$", out, re.M), out

    events = re.search(r"phone's event after the round's 201: +p50 ([\d.]+) ms .* events=(\d+)$", out, re.M)
    assert events, out
    # 8 phones (2 tables of 4), each hears every round of its own table entered while it follows: 5 s at a round
    # a second, then the burst's last round.
    assert int(events[2]) >= 8 * 3, events[0]
    assert re.search(r"phone's event after the close's 200: +p50 [\d.]+ ms .* events=8$", out, re.M), out
    hall = re.search(r"hall display updated after the 201: +p50 ([\d.]+) ms .* rounds=(\d+) +\(fetches (\d+)", out)
    assert hall, out
    assert int(hall[2]) >= 2 * 3 * 2 and int(hall[3]) > 0, hall[0]
    assert float(hall[1]) >= float(events[1]) * 0.5, "a hall update comes after the event it reacts to"
    memory = re.search(r"server memory \(RSS, master \+ workers\): idle (\d+) MiB, phones following (\d+) MiB, "
                       r"after the bursts (\d+) MiB, end (\d+) MiB", out)
    assert memory and all(int(m) > 20 for m in memory.groups()), out

    goals = out.split("\ngoals (", 1)[-1]
    verdicts = re.findall(r"^  sqlite +(PASS|MISS|SPREAD|----) ", goals, re.M)
    assert len(verdicts) == 7, f"a verdict for each of the six goals and the memory:\n{goals}"
    assert re.search(r"PASS  nothing lost .*: 0 lost", goals), goals
    assert re.search(r"round entry speed with phones / without .* per series", goals)
