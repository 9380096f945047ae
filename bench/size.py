"""Size benchmark: what the database holds per night, per round, after a long match and a season.

Run from the repository root: ``.venv/bin/python bench/size.py`` (about a
minute) or ``--quick`` (a 200-round match and a 4-night season).

Everything goes through the JSON API as phones send it (the app in this
process, Flask's test client; every write with an ``Idempotency-Key``), into
SQLite files in a temporary directory created by the migrations
(``flask db upgrade``). Two databases:

1. **Long match**: one night, 4 players, one Svängknack match of
   ``--rounds`` (2,000) rounds. Bytes per round are the growth of the file
   from the empty match to the full one, divided by the rounds; ``dbstat``
   tells which tables and indexes the bytes are in.
2. **Season**: ``--nights`` (52) game nights of one group of 8 players; each
   night 6 of them play a Svängknack match of 120 rounds, two Kul games (two
   marks each, then the last mark takes the pot), a Schwimmen match of 8
   games, and settle: every transfer of the plan is paid (``POST
   /api/nights/<id>/payments``). The rows of each table per night are the
   season's rows divided by the nights.

Sizes are the file as written (``page_count x page_size``) and after
``VACUUM``. A benchmark, not a test: it prints figures and always exits 0.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

NAMES = ["Anna", "Bo", "Cia", "Dan", "Eva", "Filip", "Greta", "Hugo"]
_keys = itertools.count()


class Phone:
    """The JSON API through Flask's test client, each write with a fresh Idempotency-Key."""

    def __init__(self, app: Any) -> None:
        self.client = app.test_client()
        self.token = ""

    def post(self, path: str, body: dict[str, Any], expect: int = 201) -> dict[str, Any]:
        headers = {"Idempotency-Key": f"k{next(_keys)}"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        resp = self.client.post(path, json=body, headers=headers)
        if resp.status_code != expect:
            raise RuntimeError(f"POST {path} answered {resp.status_code}: {resp.get_data(as_text=True)[:300]}")
        return dict(resp.get_json())

    def get(self, path: str) -> dict[str, Any]:
        resp = self.client.get(path, headers={"Authorization": f"Bearer {self.token}"})
        if resp.status_code != 200:
            raise RuntimeError(f"GET {path} answered {resp.status_code}")
        return dict(resp.get_json())


def svangknack_round(state: dict[str, Any], players: list[str], rng: random.Random) -> dict[str, Any]:
    """A valid round in any state (as ``bench/load.py``): svängare alone, or one knocker and 3 tricks."""
    sv = state["svangare"]
    if rng.random() < 0.3:
        return {"participants": [sv]}
    knocker = rng.choice([p for p in players if p != sv])
    mine = rng.choice([3, 2, 1, 0])
    return {"participants": [sv, knocker], "tricks": {sv: mine, knocker: 3 - mine}}


def svangknack(phone: Phone, night_id: int, players: list[str], rounds: int, rng: random.Random) -> None:
    match = phone.post(f"/api/nights/{night_id}/matches",
                       {"game": "svangknack", "players": players, "dealer": players[0], "stake": "3.00"})
    state = match["state"]
    for _ in range(rounds):
        state = phone.post(f"/api/matches/{match['id']}/rounds", svangknack_round(state, players, rng))["state"]


def night(phone: Phone, group_token: str | None, k: int, rng: random.Random, rounds: int) -> str:
    """One game night of the season; returns the group token."""
    players = rng.sample(NAMES, 6)
    body: dict[str, Any] = {"name": f"Night {k + 1}", "currency": "SEK", "players": players}
    body.update({"group_token": group_token} if group_token else {"group": "Klubben"})
    phone.token = ""
    created = phone.post("/api/nights", body)
    phone.token = created["edit_token"]
    night_id = created["id"]
    svangknack(phone, night_id, players, rounds, rng)
    for table in (players[:3], players[3:]):
        kul = phone.post(f"/api/nights/{night_id}/matches",
                         {"game": "kul", "players": table, "dealer": table[0], "stake": "2.00"})
        for name in table * 2 + table[-1:]:  # everyone to two marks, the last mark takes the pot
            phone.post(f"/api/matches/{kul['id']}/rounds", {"last_trick": name})
    swimmers = players[1:6]
    sw = phone.post(f"/api/nights/{night_id}/matches",
                    {"game": "schwimmen", "players": swimmers, "dealer": swimmers[0], "stake": "1.00"})
    for g in range(8):
        phone.post(f"/api/matches/{sw['id']}/rounds",
                   {"ended_by": "knock", "by": swimmers[g % 5], "losers": [swimmers[(g + 1) % 5]]})
    for t in phone.get(f"/api/nights/{night_id}/settlement")["transfers"]:
        phone.post(f"/api/nights/{night_id}/payments",
                   {k: t[k] for k in ("from", "to", "from_pot", "to_pot", "amount")})
    return str(created.get("group_token") or group_token)


def sizes(path: Path) -> tuple[int, int, dict[str, int], dict[str, int]]:
    """File size as written and after VACUUM, rows per table, bytes per table (with its indexes)."""
    con = sqlite3.connect(path)
    try:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # what a WAL still holds goes into the file first
        written = path.stat().st_size
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                             "AND name NOT LIKE 'sqlite_%' AND name != 'alembic_version'")]
        rows = {t: con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
        con.execute("VACUUM")
        owner = {name: tbl for name, tbl in con.execute("SELECT name, tbl_name FROM sqlite_master")}
        by_table: dict[str, int] = {}
        for name, size in con.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"):
            table = owner.get(name, name)
            by_table[table] = by_table.get(table, 0) + size
        vacuumed = path.stat().st_size
    finally:
        con.close()
    return written, vacuumed, rows, by_table


def make_app(path: Path) -> Any:
    import contextlib
    import io

    from flask_migrate import upgrade

    from referee import create_app

    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{path}", "SECRET_KEY": "bench",
                      "INSTANCE_PATH": str(path.parent)})
    with app.app_context(), contextlib.redirect_stderr(io.StringIO()):  # alembic's progress lines
        upgrade(directory=str(Path(__file__).resolve().parent.parent / "migrations"))
    return app


def kib(n: float) -> str:
    return f"{n / 1024:,.0f} KiB" if n < 10 * 2**20 else f"{n / 2**20:,.1f} MiB"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2000, help="rounds of the long match (2000)")
    parser.add_argument("--nights", type=int, default=52, help="nights of the season (52)")
    parser.add_argument("--night-rounds", type=int, default=120, help="Svängknack rounds a night (120)")
    parser.add_argument("--quick", action="store_true", help="200 rounds, 4 nights")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.nights = 200, 4
    rng = random.Random("bench-size")
    with tempfile.TemporaryDirectory(prefix="referee-bench-size-") as tmp:
        long_db, season_db = Path(tmp) / "long.sqlite3", Path(tmp) / "season.sqlite3"

        t0 = time.monotonic()
        app = make_app(long_db)
        phone = Phone(app)
        players = NAMES[:4]
        created = phone.post("/api/nights", {"name": "Long night", "currency": "SEK", "players": players})
        phone.token = created["edit_token"]
        svangknack(phone, created["id"], players, 0, rng)
        empty, _, _, _ = sizes(long_db)  # the night and its match, no round yet
        match_id = phone.get(f"/api/nights/{created['id']}")["matches"][0]["id"]
        state = phone.get(f"/api/matches/{match_id}")["state"]
        for _ in range(args.rounds):
            state = phone.post(f"/api/matches/{match_id}/rounds", svangknack_round(state, players, rng))["state"]
        long_written, long_vacuumed, long_rows, long_bytes = sizes(long_db)
        long_s = time.monotonic() - t0

        t0 = time.monotonic()
        app = make_app(season_db)
        phone = Phone(app)
        group: str | None = None
        for k in range(args.nights):
            group = night(phone, group, k, rng, args.night_rounds)
        season_written, season_vacuumed, season_rows, season_bytes = sizes(season_db)
        season_s = time.monotonic() - t0

    print(f"Database sizes (SQLite {sqlite3.sqlite_version}, through the JSON API with Idempotency-Keys)")
    print()
    per_round = (long_written - empty) / args.rounds
    print(f"long match: one night, 4 players, one Svängknack match of {args.rounds} rounds (built in {long_s:.0f} s)")
    print(f"  file {kib(long_written)} as written, {kib(long_vacuumed)} after VACUUM; before the first round "
          f"{kib(empty)}")
    print(f"  {per_round:,.0f} bytes per round stored (growth of the file / rounds); the big tables after VACUUM:")
    for table, size in sorted(long_bytes.items(), key=lambda kv: -kv[1]):
        if long_rows.get(table, 0) >= 100:  # a smaller table fills a page or two, whatever its rows
            print(f"    {table:<20} {long_rows[table]:>7} rows  {kib(size):>10}  "
                  f"{size / max(long_rows[table], 1):7.0f} bytes a row (with its indexes)")
    print()
    events = season_rows.get("rounds", 0)
    print(f"season: {args.nights} nights of one group, each: 6 players, Svängknack {args.night_rounds} rounds, "
          f"2 Kul games, Schwimmen 8 games, settled (built in {season_s:.0f} s)")
    print(f"  file {kib(season_written)} as written, {kib(season_vacuumed)} after VACUUM; {events} events, "
          f"{season_vacuumed / max(events, 1):,.0f} bytes an event")
    print("  rows per night:")
    for table in sorted(season_rows, key=lambda t: -season_rows[t]):
        print(f"    {table:<20} {season_rows[table] / args.nights:8.1f}   ({season_rows[table]} in the season, "
              f"{kib(season_bytes.get(table, 0))})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
