"""``bench/tournament.py --quick`` on a tiny club evening (2 tables) prints its figures.

Not a timed test: the goals are the bench's business (PASS/MISS on a loaded machine says little here). What
must hold is that the bench runs end to end over HTTP (tournament, table tokens, streams, hall reads) and that
each figure comes out of measurements: rounds entered in both conditions, every phone's event and every
hall update accounted for, memory read, a verdict for each goal.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_quick_bench_on_two_tables_prints_every_figure() -> None:
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "tournament.py"), "--quick", "--tables", "2",
                          "--backend", "sqlite"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    out = run.stdout
    assert run.returncode == 0, f"{out}\n{run.stderr[-3000:]}"

    for condition in ("without viewers", "with viewers"):
        row = re.search(rf"round entry {condition} +([\d.]+) rounds/s +p50 ([\d.]+) ms +p99 ([\d.]+) ms +n=(\d+)"
                        r"(, failed .*)?  \(blocks: ([\d., ]+)\)", out)
        assert row, f"no round entry figures {condition}:\n{out}"
        assert float(row[1]) > 0 and int(row[4]) > 0 and row[5] is None, row[0]
        assert float(row[2]) <= float(row[3]), row[0]
        assert len(row[6].split(", ")) == 2, f"two blocks of each condition in --quick: {row[0]}"

    events = re.search(r"phone's event after the 201: +p50 ([\d.]+) ms +p99 ([\d.]+) ms .* events=(\d+) "
                       r"missing=(\d+)", out)
    assert events, out
    # 10 phones (2 tables of 5) each hear every round of their own table entered while they watch.
    assert int(events[3]) >= 10 and int(events[4]) == 0, events[0]
    hall = re.search(r"hall display updated after: +p50 ([\d.]+) ms +p99 ([\d.]+) ms .* rounds=(\d+) "
                     r"missing=(\d+) +\(reads (\d+)\)", out)
    assert hall, out
    assert int(hall[3]) > 0 and int(hall[4]) == 0 and int(hall[5]) > 0, hall[0]
    assert float(hall[1]) >= float(events[1]) * 0.5, "a hall update comes after the event it reacts to"
    memory = re.search(r"server memory \(RSS, master \+ workers\): idle (\d+) MiB, streams open (\d+) MiB, "
                       r"end (\d+) MiB", out)
    assert memory and all(int(m) > 20 for m in memory.groups()), out

    goals = out.split("\ngoals (", 1)[-1]
    verdicts = re.findall(r"^  sqlite +(PASS|MISS|SPREAD) ", goals, re.M)
    assert len(verdicts) == 4, f"a verdict for each of the four goals:\n{goals}"
    assert re.search(r"round entry with viewers / without, per pair of blocks", goals)
