"""Season benchmark (issue 14): a 52-night season of 16 players; the group page and the season sheet.

Run from the repository root: ``.venv/bin/python bench/season.py`` (about a
minute; ``--runs N`` timed runs per figure, default 5; ``--nights N``).

Everything happens in one process: ``create_app`` on a SQLite database in a
temporary directory, the season built through the service layer as the
pages and the API would (52 Friday nights, 16 players of whom 8 to 12 sit at
each night; every night a Svängknack of 24 rounds, a Kul played to its win,
a Schwimmen to its end and a Knaker of 6 games with dots, so every brag of
the page has data), then timed through the test client, as medians after a
warm-up:

- the group page ``GET /groups/<token>`` warm (the processes' fold cache of
  :mod:`referee.history` filled, as on a server that has shown the page
  before) and cold (the cache emptied before each run: the first view after
  a restart);
- the season sheet ``GET /groups/<token>/season.pdf`` (warm);
- what the running-balance chart costs a match page: the page of a
  2,000-round Svängknack (its chart sampled to 160 points per line) warm,
  cold, the first view after another round was entered (the kept fold is
  extended by one step) and the first after a void of the last round (the
  kept fold cut back to its last checkpoint, issue 29), against the page of a 1-round match
  (``bench/load.py``'s goal: the long page within 1.5 times the short one), all timed interleaved in
  the same rounds with the short page (``bench/spread.py``; a case's preparation, the other phone's
  round or the void, untimed), judged on CPU with the spread of the rounds' ratios;
- issue 29's cold page: the 2,000-round page with nothing kept in memory (its fold read from the
  stored checkpoints) against the 1-round page, timed interleaved, goal <= 3x, with the spread of
  the rounds' ratios (``bench/spread.py``: PASS only when the whole spread is within the goal).

Goals (PASS/MISS): the group page under 200 ms (warm and cold are both
judged), the sheet under 2 s. A benchmark, not a test: it always exits 0.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from spread import Runs, describe, interleaved  # noqa: E402

from bench.pdf import PLAYERS, verdict  # noqa: E402  (the 16 players of the PDF benchmark)

GOAL_PAGE_MS = 200.0
GOAL_SHEET_S = 2.0
#: Issue 29: the page of a 2,000-round match cold (after a restart: nothing kept in memory, the fold read from
#: its stored checkpoints) at most this many times the page of a 1-round match.
GOAL_COLD_RATIO = 3.0


def median_time(fn: Callable[[], Any], runs: int, before: Callable[[], None] | None = None) -> tuple[float, float]:
    """Median wall-clock and median CPU seconds of ``fn`` (CPU: this process only; on a shared
    machine the wall time also counts waiting for a core), each run timed as ``bench/spread.py`` times
    its runs: after an untimed full collection (a collection of this process's whole heap, season
    included, fell on most runs of the cold group page by chance and doubled its median)."""
    fn()  # warm-up
    timed = Runs()
    for _ in range(runs):
        if before:
            before()
        timed.time(fn)
    return statistics.median(timed.wall), statistics.median(timed.cpu)


def build_season(nights: int) -> tuple[str, int]:
    """The season through the service layer; returns (group token, events)."""
    from referee import ledger

    token: str | None = None
    events = 0
    first = date(2026, 1, 2)
    for k in range(nights):
        size = 8 + k % 5
        table = [PLAYERS[(k * 3 + j) % len(PLAYERS)] for j in range(size)]
        night = ledger.create_night(f"Fredag {k + 1}", "SEK", table, date=first + timedelta(days=7 * k),
                                      group="Fredagsgänget" if token is None else None, group_token=token)
        token = token or night.group.token
        sk = ledger.create_match(night, "svangknack", table, table[0], "3.00")
        state = ledger.state_of(sk)
        n = len(table)
        for r in range(24):
            sv = table[(state.dealer + 1) % n]
            other = table[(state.dealer + 2 + r % (n - 2)) % n]
            payload: dict[str, Any] = [{"participants": [sv]},
                                       {"participants": [sv, other], "tricks": {sv: 2, other: 1}},
                                       {"participants": [sv, other], "tricks": {sv: 0, other: 3}}][(r + k) % 3]
            _rnd, state = ledger.add_round(sk.id, payload)
            events += 1
        ledger.close_match(sk.id, "split")
        kul = ledger.create_match(night, "kul", table[:5], table[0], "2.00")
        while not ledger.state_of(ledger.get_match(kul.id)).finished:
            ledger.add_round(kul.id, {"last_trick": table[(k + events) % 5]})
            events += 1
        sw_players = table[:4]
        sw = ledger.create_match(night, "schwimmen", sw_players, sw_players[0], "1.00")
        g = 0
        while not (st := ledger.state_of(ledger.get_match(sw.id))).finished:
            alive = [p for p, out in zip(st.players, st.out, strict=True) if not out]
            ledger.add_round(sw.id, {"ended_by": "knock", "by": alive[0], "losers": [alive[(g + k) % len(alive)]]})
            g += 1
            events += 1
        kn_players = table[-4:]
        kn = ledger.create_match(night, "knaker", kn_players, kn_players[0], "1.00", {"payout": "loser_pays"})
        for game in range(6):
            order = kn_players[game % 4:] + kn_players[:game % 4]
            ledger.add_round(kn.id, {"dot": {"player": order[3], "offence": "ordinary"}})
            ledger.add_round(kn.id, {"events": [{"out": [order[0]]}, {"out": [order[1]]}, {"lost": [order[3]]}]})
            events += 2
        ledger.close_match(kn.id)
        events += 3
    assert token is not None
    return token, events


def long_match(rounds: int) -> tuple[int, int, str]:
    """A night with a ``rounds``-round Svängknack and a 1-round one; returns (long id, short id, view token)."""
    from referee import ledger

    table = PLAYERS[:5]
    night = ledger.create_night("Long night", "SEK", table)
    ids = []
    for count in (rounds, 1):
        match = ledger.create_match(night, "svangknack", table, table[0], "3.00")
        for _ in range(count):
            state = ledger.state_of(ledger.get_match(match.id))
            ledger.add_round(match.id, {"participants": [table[(state.dealer + 1) % len(table)]]})
        ids.append(match.id)
    return ids[0], ids[1], night.view_token


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per figure (median)")
    parser.add_argument("--nights", type=int, default=52)
    args = parser.parse_args()
    runs = max(1, args.runs)

    from referee import create_app
    from referee.ledger import fold
    from referee.models import db

    with tempfile.TemporaryDirectory(prefix="referee-bench-season-") as tmp:
        app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{Path(tmp) / 'bench.sqlite3'}",
                          "SECRET_KEY": "bench", "INSTANCE_PATH": tmp})
        with app.app_context():
            db.create_all()
            start = time.perf_counter()
            token, events = build_season(args.nights)
            built = time.perf_counter() - start
            long_id, short_id, view = long_match(2000)
            db.session.remove()
        client = app.test_client()
        print(f"Season benchmark: median of {runs} runs after a warm-up; {os.cpu_count()} CPUs, "
              f"load {os.getloadavg()[0]:.2f}")
        print(f"season: {args.nights} nights, {len(PLAYERS)} players, {args.nights * 4} matches, {events} events "
              f"(built through services in {built:.1f} s)")

        def page() -> None:
            resp = client.get(f"/groups/{token}")
            assert resp.status_code == 200 and b"season-chart-SEK" in resp.data, resp.status_code

        def sheet() -> None:
            resp = client.get(f"/groups/{token}/season.pdf")
            assert resp.status_code == 200 and resp.data.startswith(b"%PDF"), resp.status_code

        size = len(client.get(f"/groups/{token}").data)
        warm = median_time(page, runs)
        cold = median_time(page, runs, before=fold.clear)
        pdf = median_time(sheet, runs)
        pdf_size = len(client.get(f"/groups/{token}/season.pdf").data)

        def line(label: str, figure: tuple[float, float], goal: float, unit: str, note: str = "") -> None:
            scale = 1000 if unit == "ms" else 1
            wall, cpu = figure[0] * scale, figure[1] * scale
            print(f"{label:38s} wall {wall:8.2f} {unit} {verdict(wall < goal)}, CPU {cpu:8.2f} {unit} "
                  f"{verdict(cpu < goal)}  (goal < {goal:g} {unit}){note}")

        line("group page, warm (folds kept)", warm, GOAL_PAGE_MS, "ms", f"  {size / 1024:.0f} kB HTML")
        line("group page, cold (folds forgotten)", cold, GOAL_PAGE_MS, "ms")
        line("season sheet (PDF)", pdf, GOAL_SHEET_S, "s", f"  {pdf_size / 1024:.0f} kB")

        assert client.get(f"/v/{view}").status_code == 302

        def match_page(match_id: int) -> Callable[[], None]:
            def get() -> None:
                resp = client.get(f"/matches/{match_id}")
                assert resp.status_code == 200 and b"balance-chart" in resp.data, resp.status_code
            return get

        def next_round() -> None:  # another phone enters a round: the page's kept fold is one round behind
            from referee import ledger

            with app.app_context():
                state = ledger.state_of(ledger.get_match(long_id))
                ledger.add_round(long_id, {"participants": [state.players[(state.dealer + 1) % 5]]})
                db.session.remove()

        def void_last() -> None:  # the leader voids the last round: the kept fold goes back to a checkpoint
            from referee import ledger

            with app.app_context():
                last = max(r.seq for r in ledger.get_match(long_id).rounds if not r.void)
                ledger.void_round(long_id, last, "bench")
                db.session.remove()

        # The 2,000-round page's cases against the 1-round page, interleaved in the same rounds (issue 29:
        # honest ratios); a case's preparation (another phone's round, a void, forgotten folds) is not timed.
        page_long = match_page(long_id)
        match_page(short_id)()
        page_long()
        floor, timed, ratios = interleaved(match_page(short_id), {
            "next": page_long, "warm": page_long, "void": page_long, "cold": page_long}, max(runs, 5),
            prepare={"next": next_round, "void": void_last, "cold": fold.clear})
        short_wall, short_cpu = statistics.median(floor.wall) * 1000, statistics.median(floor.cpu) * 1000
        print(f"match page with chart, 1 round         wall {short_wall:6.1f} ms, CPU {short_cpu:6.1f} ms "
              f"(the floor of the ratios below: CPU per round, judged with their spread; wall for information)")
        for label, key in (("2,000 rounds, warm", "warm"), ("2,000 rounds, first view after a round", "next"),
                           ("2,000 rounds, after a void (from a checkpoint)", "void"),
                           ("2,000 rounds, cold (from the stored checkpoints)", "cold")):
            wall = statistics.median(timed[key].wall) * 1000
            print(f"  {label:38s} wall {wall:6.1f} ms = {wall / short_wall:5.2f}x, "
                  f"CPU {statistics.median(timed[key].cpu) * 1000:6.1f} ms: "
                  f"{describe(ratios[key], 1.5)} (goal of bench/load.py)")
        cold_page(app, client, long_id, short_id, max(runs, 7))


def cold_page(app: Any, client: Any, long_id: int, short_id: int, rounds: int) -> None:
    """Issue 29's figure: the 2,000-round page cold against the 1-round page, interleaved (``bench/spread.py``).

    Cold is a restart's first view: the process's kept folds and drawn charts are forgotten before the long
    page, so its fold starts from the match's last stored checkpoint (folding fewer than
    ``fold.CHECKPOINT_EVERY`` events) and its chart is drawn again. The floor is the 1-round page as a
    phone sees it between two rounds. A round times the floor (median of 5), then the cold page.
    """
    from referee.ledger import fold
    from referee.models import FoldCheckpoint, db
    from referee.reports import charts as chart_globals

    with app.app_context():
        stored = db.session.query(FoldCheckpoint).filter_by(match_id=long_id).count()
        db.session.remove()

    def get(match_id: int) -> None:
        resp = client.get(f"/matches/{match_id}")
        assert resp.status_code == 200 and b"balance-chart" in resp.data, resp.status_code

    def cold() -> None:
        fold.clear()
        chart_globals._DRAWN.clear()
        get(long_id)

    get(short_id)
    cold()
    floor, timed, ratios = interleaved(lambda: get(short_id), {"cold": cold}, rounds)
    cpu_floor, cpu_cold = statistics.median(floor.cpu) * 1000, statistics.median(timed["cold"].cpu) * 1000
    wall_ratio = statistics.median(timed["cold"].wall) / statistics.median(floor.wall)
    print(f"cold page (issue 29): 2,000 rounds, nothing kept in memory, {stored} stored checkpoints "
          f"(one per {fold.CHECKPOINT_EVERY} rounds)")
    print(f"  CPU {cpu_cold:6.1f} ms vs 1-round page {cpu_floor:6.1f} ms: {describe(ratios['cold'], GOAL_COLD_RATIO)}"
          f"; wall {wall_ratio:.2f}x")


if __name__ == "__main__":
    main()
