"""The largest night the bounds allow (issue 45.6): every sheet of it under 3 s, the worker under 400 MB after.

Run from the repository root: ``.venv/bin/python bench/night_bounds.py``
(about five minutes on the shared 2-core machine, most of it building the
night; ``--quick`` plays a tenth of the rounds, to try a change).

It starts gunicorn as ``make run`` serves (one gthread worker, 8 threads,
read gate on) on a throw-away SQLite database, then builds in this process,
through the ledger as the pages and the API would, the largest night of
:mod:`referee.bounds`: a Svängknack tournament of ``NIGHT_PLAYERS`` (480)
players at tables of 4 over 8 series (960 tables; every table plays 19
rounds and is closed, then the next series is drawn; after the last the
prizes), and 40 more matches of 5 players with 19 rounds and a close each:
``NIGHT_MATCHES`` (1,000) matches and ``NIGHT_EVENTS`` (20,000) events.
Every player has a Swish number, so every transfer of the settlement gets a
payment QR code.

Then over HTTP, as a phone asks: each sheet once (the first print) and
again (a sheet is kept per version of the night, so this is the kept copy),
then, after a write that changes the night (a player's new Swish number: no
copy of the new version yet), three at once (the time until the last of the
three is done; the first renders, the others wait for it):
the settlement sheet, the tournament's final sheet, the table cards (the last
series' 120 tables, each with its QR code) and the protocol of one table.
The first print's CPU time is the server's (user and system, from
``/proc``): what the render costs whatever else shares the machine. The
worker's resident memory (``VmRSS``) is read before the first sheet, after
all of them, and again after 10 s of quiet.

Goals (PASS/MISS, issue 45.6): every sheet, one at a time and three at
once, under 3 s; the worker's memory after the sheets under 400 MB. A
benchmark, not a test: it always exits 0.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from serve import Client, Server, machine, verdict  # noqa: E402

GOAL_SECONDS = 3.0
GOAL_RSS_MB = 400.0
TABLE_SIZE = 4
ROUNDS = 19  # and a close: 20 events a match
EXTRA_SEATS = 5
QUIET = 10.0


def build(quick: bool) -> dict[str, Any]:
    """The night at the bounds, through the ledger; what the sheets' URLs need."""
    from referee import bounds, ledger
    from referee.ledger import paying
    from referee.ledger import tournaments as tourneys
    from referee.models import Round, db

    rounds = 2 if quick else ROUNDS
    players = [f"Spelare {k:03d}" for k in range(bounds.NIGHT_PLAYERS)]
    series = bounds.NIGHT_MATCHES // (bounds.NIGHT_PLAYERS // TABLE_SIZE)
    plan = tourneys.check({"name": "Klubbkväll", "currency": "SEK", "game": "svangknack", "players": players,
                           "table_size": TABLE_SIZE, "series": series, "stake": "3.00", "seed": "bench"})
    tourn = tourneys.create(plan)
    night = tourn.night
    for k, name in enumerate(players):
        paying.set_payment_details(night, name, swish=f"070{k:07d}")

    def play(match_id: int) -> None:
        match = ledger.get_match(match_id)
        seats = list(match.seats)
        n = len(seats)
        state = ledger.state_of(match)
        for k in range(rounds):
            sv = seats[(state.dealer + 1) % n]
            other = seats[(state.dealer + 2 + k % (n - 2)) % n]
            if k % 3 == 0:
                payload: dict[str, Any] = {"participants": [sv]}  # alone, takes the pot
            else:  # both paid, or the other goes bet
                payload = {"participants": [sv, other], "tricks": {sv: 1 + k % 3, other: 2 - k % 3}}
            _rnd, state = ledger.add_round(match_id, payload)
        ledger.close_match(match_id, "split")

    start = time.perf_counter()
    for s in range(series):
        for table in tourneys.current_tables(tourneys.get(tourn.id)):
            play(table.match_id)
        tourneys.next_series(tourn.id)  # after the last series: the prizes
        db.session.remove()
        print(f"  series {s + 1} of {series} played ({time.perf_counter() - start:.0f} s)", flush=True)
    night = ledger.get_night(night.id)
    for k in range(bounds.NIGHT_MATCHES - len(night.matches)):
        seats = [players[(k * EXTRA_SEATS + j) % len(players)] for j in range(EXTRA_SEATS)]
        play(ledger.create_match(night, "svangknack", seats, seats[0], "6.00").id)
    night = ledger.get_night(night.id)
    events = db.session.query(Round).join(Round.match).filter_by(night_id=night.id).count()
    protocol = night.matches[0].id
    print(f"  built in {time.perf_counter() - start:.0f} s: {len(night.player_names)} players, "
          f"{len(night.matches)} matches, {events} events")
    return {"night": night.id, "view": night.view_token, "edit": night.edit_token, "tournament": tourn.id,
            "protocol": protocol, "players": len(night.player_names), "matches": len(night.matches),
            "events": events}


def change(built: dict[str, Any]) -> str:
    """A write that moves the night to a new version and changes its settlement: a player's new Swish number."""
    from referee import ledger
    from referee.ledger import paying

    night = ledger.get_night(built["night"])
    built["changes"] = built.get("changes", 0) + 1
    name = night.player_names[built["changes"]]
    paying.set_payment_details(night, name, swish=f"0739{built['changes']:06d}")
    return f"{name}'s new Swish number"


def worker_rss_mb(server: Server) -> float:
    """The resident memory of the server's one worker (gunicorn's master left out)."""
    assert server.proc is not None
    children = Path(f"/proc/{server.proc.pid}/task/{server.proc.pid}/children").read_text().split()
    total = 0
    for pid in children:
        for row in Path(f"/proc/{pid}/status").read_text().splitlines():
            if row.startswith("VmRSS:"):
                total += int(row.split()[1])
    return total / 1024


def fetch(port: int, path: str, headers: dict[str, str]) -> tuple[float, int, int]:
    client = Client(port, headers)
    try:
        status, body, seconds = client.request("GET", path)
        return seconds, status, len(body)
    finally:
        client.close()


def at_once(port: int, path: str, headers: dict[str, str], n: int = 3) -> tuple[float, list[int]]:
    """``n`` requests released together: the time until the last answer, and their statuses."""
    barrier = threading.Barrier(n)
    out: list[tuple[float, int, int]] = []

    def one() -> None:
        barrier.wait()
        out.append(fetch(port, path, headers))

    began = time.perf_counter()
    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - began, [status for _t, status, _n in out]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the rounds (2 a table)")
    args = parser.parse_args()

    from referee import create_app

    with tempfile.TemporaryDirectory(prefix="referee-bench-bounds-") as tmp:
        server = Server(Path(tmp), workers=1, threads=8)
        server.start()
        try:
            app = create_app({"SQLALCHEMY_DATABASE_URI": server.database_url, "SECRET_KEY": "bench",
                              "INSTANCE_PATH": tmp})
            print(f"Largest night benchmark: {server.describe()}, SQLite; {machine()}")
            with app.test_request_context("/"):
                built = build(args.quick)
            view = {"Authorization": f"Bearer {built['view']}"}
            sheets = [
                ("settlement sheet", f"/nights/{built['night']}/settlement.pdf", view),
                ("tournament final sheet", f"/tournaments/{built['tournament']}/final.pdf", view),
                ("table cards (last series)", f"/tournaments/{built['tournament']}/tables.pdf",
                 {"Authorization": f"Bearer {built['edit']}"}),
                ("protocol of one table", f"/matches/{built['protocol']}/protocol.pdf", view),
            ]
            rss_before = worker_rss_mb(server)
            print(f"night: {built['players']} players, {built['matches']} matches, {built['events']} events; "
                  f"worker {rss_before:.0f} MB before the sheets")
            print()
            print(f"{'sheet':<28} {'first':>8} {'CPU':>6} {'again':>8} {'3 at once':>10}  size")
            worst = 0.0
            failed = []
            for label, path, headers in sheets:
                cpu = server.cpu_seconds()
                first, status, size = fetch(server.port, path, headers)
                cpu = server.cpu_seconds() - cpu  # the server's own work, whatever else shares the machine
                again, status2, _size = fetch(server.port, path, headers)
                with app.test_request_context("/"):
                    changed = change(built)  # a new version of the night: no sheet of it printed yet
                three, statuses = at_once(server.port, path, headers)
                if {status, status2, *statuses} != {200}:
                    failed.append(f"{label}: {status}, {status2}, {statuses}")
                worst = max(worst, first, again, three)
                print(f"{label:<28} {first:7.2f}s {cpu:5.2f}s {again:7.2f}s {three:9.2f}s  {size / 1024:.0f} KiB  "
                      f"(then: {changed})", flush=True)
            rss_after = worker_rss_mb(server)
            time.sleep(QUIET)
            rss_quiet = worker_rss_mb(server)
        finally:
            server.stop()
    print()
    print(f"worker memory: {rss_before:.0f} MB before the sheets, {rss_after:.0f} MB after, "
          f"{rss_quiet:.0f} MB after {QUIET:g} s of quiet")
    if failed:
        print("not every sheet answered 200: " + "; ".join(failed))
    print(f"{verdict(worst < GOAL_SECONDS and not failed)}  every sheet, one at a time and three at once, under "
          f"{GOAL_SECONDS:g} s (slowest {worst:.2f} s)")
    print(f"{verdict(rss_after < GOAL_RSS_MB)}  the worker's memory after the sheets under {GOAL_RSS_MB:g} MB "
          f"({rss_after:.0f} MB)")
    print(f"(load {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()
    sys.exit(0)
