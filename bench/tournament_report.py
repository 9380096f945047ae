"""The big evening's report (``bench/tournament.py``): its figures, the goals' PASS/MISS and the speed ratio's spread.

Why a module of its own: what is printed and judged is apart from how it was measured. The figures come from
``bench/tournament_figures.py``; the printing helpers and ``verdict`` are the HTTP benches' shared ones
(``bench/serve.py``) and the ratio with phones / without, one per series, is judged on its spread by
``bench/spread.py``, as the other benches judge theirs.
"""

from __future__ import annotations

import argparse

from serve import ms, percentile, verdict
from spread import describe
from tournament_figures import Figures
from tournament_tables import SEATS

GOAL_ROUND_P99 = 0.300
GOAL_EVENT_P99 = 1.0
GOAL_HALL_P99 = 2.0
GOAL_NEXT = 2.0
GOAL_RATIO = 0.8


def _p(values: list[float]) -> str:
    top = max(values, default=float("nan"))
    return f"p50 {ms(percentile(values, 50))}  p99 {ms(percentile(values, 99))}  max {ms(top)}"


def report(f: Figures, args: argparse.Namespace) -> list[str]:
    """The backend's figures and its verdict lines (returned for the summary)."""
    print(f"\n=== {f.backend}: {args.tables} tables of {SEATS} ({args.tables * SEATS} phones + {args.halls} hall "
          f"displays), {args.series} series of {args.block:g} s each way and a burst; load at each series and at "
          f"the end: {' | '.join(x.split('average ')[-1] for x in f.loads)} ===")
    for name, t in f.rounds.items():
        failed = f", failed {dict(t.failed)}" if t.failed else ""
        print(f"round entry {name:<8} {_p(t.ok)}  n={len(t.ok)}{failed}")
    print(f"close (burst)        {_p(f.closes.ok)}  n={len(f.closes.ok)}"
          f"{f', failed {dict(f.closes.failed)}' if f.closes.failed else ''}")
    print(f"next ({args.tables * SEATS} players)   {', '.join(ms(x) for x in f.nexts)}"
          f"{f', failed {f.next_failed}' if f.next_failed else ''}")
    print(f"phone's event after the round's 201:  {_p(f.events)}  events={len(f.events)}")
    print(f"phone's event after the close's 200:  {_p(f.close_events)}  events={len(f.close_events)}")
    print(f"guest's page showed the round:        {_p(f.pages)}  (state event or fetch; fetches {len(f.page_reads)}, "
          f"each {_p(f.page_reads)})")
    print(f"guest's whole page after the round:   {_p(f.wholes)}  (its first fetch after the event)")
    print(f"hall display updated after the 201:   {_p(f.halls)}  rounds={len(f.halls)}  (fetches {len(f.hall_reads)}, "
          f"each {_p(f.hall_reads)})")
    lost = sum(f.lost.values()) + len(f.failed) + len(f.broken) + sum(t.failed.total() for t in f.rounds.values())
    print(f"lost: {f.lost}, failed fetches {f.failed[:5]} ({len(f.failed)}), broken streams {f.broken[:3]} "
          f"({len(f.broken)}); streams opened again: at their lifetime {f.reconnects}, after a broken connection "
          f"{f.dropped}")
    print(f"this bench's loop woke late by: {_p(f.lag)}  (its share of every delay above)")
    print(f"phones opening their pages and streams (not timed): {', '.join(f'{x:.1f} s' for x in f.opening)}")
    cpu = {k: f.cpu[k] / f.rounds_n[k] * 1000 if f.rounds_n[k] else float("nan") for k in f.cpu}
    own = {k: f.own[k] / f.rounds_n[k] * 1000 if f.rounds_n[k] else float("nan") for k in f.own}
    print(f"servers' CPU per round: without phones {cpu['without']:.1f} ms, with {cpu['with']:.1f} ms; this bench's "
          f"{own['without']:.1f} / {own['with']:.1f} ms (on the same cores)")
    mem = f.memory
    memory = (f"idle {mem['idle'] / 1024:.0f} MiB, phones following {mem['phones'] / 1024:.0f} MiB, "
              f"after the bursts {mem['burst'] / 1024:.0f} MiB, end {mem['end'] / 1024:.0f} MiB")
    print(f"server memory (RSS, {'both servers' if f.backend == 'postgres' else 'master + workers'}): {memory}")
    followed = f.rounds["with"].ok + f.rounds["burst"].ok
    p99, ev99, hall99 = percentile(followed, 99), percentile(f.events, 99), percentile(f.halls, 99)
    return [
        f"{verdict(p99 < GOAL_ROUND_P99)}  round entry p99 < {GOAL_ROUND_P99 * 1000:g} ms (with phones, burst "
        f"included): {ms(p99)}",
        f"{verdict(ev99 < GOAL_EVENT_P99)}  phone's event p99 < {GOAL_EVENT_P99:g} s: {ev99:.3f} s",
        f"{verdict(hall99 < GOAL_HALL_P99)}  hall update p99 < {GOAL_HALL_P99:g} s: {hall99:.3f} s" if args.halls
        else "----  hall update: no hall displays (--halls 0)",
        f"{verdict(bool(f.nexts) and max(f.nexts) < GOAL_NEXT)}  next for {args.tables * SEATS} players < "
        f"{GOAL_NEXT:g} s: {', '.join(f'{x:.2f} s' for x in f.nexts)}",
        f"{verdict(lost == 0)}  nothing lost (every round and close at every phone, every round at the halls, no "
        f"failed request or broken stream): {lost} lost",
        f"{describe(f.ratios, GOAL_RATIO, at_most=False)}  round entry speed with phones / without (p50 without / "
        f"with), per series" if f.ratios else "MISS  no ratio",
        f"----  server memory (RSS): {memory}",
    ]
