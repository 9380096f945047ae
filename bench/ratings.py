"""Ratings benchmark (issue 47.4): a group's ratings recomputed from the log on every read.

Run from the repository root: ``.venv/bin/python bench/ratings.py`` (``--runs N`` timed runs, default 7).

One process, ``create_app`` on a SQLite database in a temporary directory.
The season is built through the service layer: 52 weekly nights of the same
6 players, 300 finished matches in all (6 a night for 40 nights, 5 for the
last 12), Kul played to its win, Schwimmen to its end (its ranking reads the
match's whole log: who went out when) and Svängknack closed after 6 rounds,
each at a table of 3 to 6 of the players. Then ``GET
/api/groups/<token>/ratings`` through the test client, as medians after a
warm-up: from the log (every kept fold, ranking and rating forgotten before
each run: the first read after a restart, every match ranked again and
Schwimmen's logs folded again); kept, with nothing new; and kept, after one
more Kul finished in the season's last night (untimed), the read that
rates that one match (:mod:`referee.ledger.ratings`).

Goal (PASS/MISS): each read within 50 ms (the kept reads are what the app serves; the first figure says
why they are kept). A benchmark, not a test: it always exits 0.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from spread import Runs  # noqa: E402

GOAL_MS = 50.0
PLAYERS = ["Anna", "Bo", "Cia", "Dan", "Eva", "Filip"]
GAMES = ["kul", "schwimmen", "svangknack", "kul", "schwimmen", "kul"]


def build_season(nights: int) -> tuple[str, int]:
    """The season through the service layer; returns (group token, matches)."""
    from referee import ledger

    token: str | None = None
    matches = 0
    first = date(2026, 1, 2)
    for k in range(nights):
        night = ledger.create_night(f"Fredag {k + 1}", "SEK", PLAYERS, date=first + timedelta(days=7 * k),
                                    group="Fredagsgänget" if token is None else None, group_token=token)
        token = token or night.group.token
        for j, game in enumerate(GAMES[:6 if k < 40 else 5]):
            size = 3 + (k + j) % 4
            table = [PLAYERS[(k + j + s) % 6] for s in range(size)]
            match = ledger.create_match(night, game, table, table[0], "3.00" if game == "svangknack" else "1.00")
            step = 0
            if game == "svangknack":
                for _ in range(6):
                    sv = table[(ledger.state_of(ledger.get_match(match.id)).dealer + 1) % size]
                    ledger.add_round(match.id, {"participants": [sv]})
                ledger.close_match(match.id, "split")
            while game != "svangknack" and not (st := ledger.state_of(ledger.get_match(match.id))).finished:
                if game == "kul":
                    ledger.add_round(match.id, {"last_trick": table[(k * 7 + j + step) % size]})
                else:
                    alive = [p for p, out in zip(st.players, st.out, strict=True) if not out]
                    ledger.add_round(match.id, {"ended_by": "knock", "by": alive[0],
                                                "losers": [alive[(k + j + step) % len(alive)]]})
                step += 1
            matches += 1
    assert token is not None
    return token, matches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="timed runs per figure (median)")
    args = parser.parse_args()
    runs = max(1, args.runs)

    from referee import create_app, ledger
    from referee.ledger import fold, ratings
    from referee.models import Night, db

    with tempfile.TemporaryDirectory(prefix="referee-bench-ratings-") as tmp:
        app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{Path(tmp) / 'bench.sqlite3'}",
                          "SECRET_KEY": "bench", "INSTANCE_PATH": tmp})
        with app.app_context():
            db.create_all()
            start = time.perf_counter()
            token, matches = build_season(52)
            built = time.perf_counter() - start
            db.session.remove()
        client = app.test_client()

        def read() -> None:
            resp = client.get(f"/api/groups/{token}/ratings")
            assert resp.status_code == 200, resp.status_code
            body = resp.get_json()
            assert sum(r["matches"] for rows in body.values() for r in rows) > matches, body

        print(f"Ratings benchmark: median of {runs} runs after a warm-up; {os.cpu_count()} CPUs, "
              f"load {os.getloadavg()[0]:.2f}")
        print(f"season: 52 nights, {len(PLAYERS)} players, {matches} finished matches "
              f"(built through services in {built:.1f} s)")
        def forget() -> None:
            fold.clear()
            ratings.clear()

        def one_more() -> None:
            with app.app_context():
                night = db.session.scalars(db.select(Night).order_by(Night.id.desc())).first()
                match = ledger.create_match(night, "kul", PLAYERS[:3], PLAYERS[0], "1.00")
                for _ in range(3):
                    ledger.add_round(match.id, {"last_trick": PLAYERS[1]})
                db.session.remove()

        for label, before in (("from the log (nothing kept)", forget),
                              ("kept, nothing new", None),
                              ("kept, one more finished match", one_more)):
            read()
            timed = Runs()
            for _ in range(runs):
                if before:
                    before()
                timed.time(read)
            wall, cpu = statistics.median(timed.wall) * 1000, statistics.median(timed.cpu) * 1000
            print(f"{label:38s} wall {wall:7.2f} ms {'PASS' if wall <= GOAL_MS else 'MISS'}, "
                  f"CPU {cpu:7.2f} ms {'PASS' if cpu <= GOAL_MS else 'MISS'}  (goal <= {GOAL_MS:g} ms)")


if __name__ == "__main__":
    main()
