"""Where a round entry's CPU goes: in-process, no server, no sockets.

Run from the repository root: ``.venv/bin/python bench/profile_round.py``
(``--profile`` adds cProfile's top functions, ``-n`` the number of requests,
``--postgres`` runs it on a private PostgreSQL cluster instead of SQLite).

It creates the app on a temporary SQLite database (as the tests do), a night
and a Svängknack match through the JSON API, then times ``POST
/api/matches/<id>/rounds`` (Bearer token, Idempotency-Key, valid rounds as
``bench/load.py`` sends them) and ``POST /bench/floor`` (one insert) through
Flask's test client: CPU milliseconds per request (``time.process_time``),
and their ratio. The test client skips the HTTP server, so these figures are
the app's own cost; ``bench/load.py`` measures the whole path.
A diagnosis tool, not a benchmark with a goal: it prints figures only.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(1, str(Path(__file__).resolve().parent))

from serve import database

PLAYERS = ["Anna", "Bo", "Cia", "Dan", "Eva"]


def make_app(workdir: Path, url: str | None = None) -> Any:
    from referee import create_app
    from referee.models import db

    app = create_app({"SQLALCHEMY_DATABASE_URI": url or f"sqlite:///{workdir / 'bench.sqlite3'}",
                      "SECRET_KEY": "bench", "INSTANCE_PATH": str(workdir), "BENCH": True})
    with app.app_context():
        db.create_all()
    return app


class Player:
    """A night with one Svängknack match and valid rounds for it (as ``bench/load.py``'s ``Match``)."""

    def __init__(self, client: Any, rng: random.Random) -> None:
        self.client, self.rng = client, rng
        night = client.post("/api/nights", json={"name": "Bench", "currency": "SEK", "players": PLAYERS[:4]}).json
        self.token = night["edit_token"]
        match = client.post(f"/api/nights/{night['id']}/matches",
                            json={"game": "svangknack", "players": PLAYERS[:4], "dealer": PLAYERS[0],
                                  "stake": "3.00"}, headers=self.auth()).json
        self.id, self.svangare = match["id"], match["state"]["svangare"]

    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def next_round(self) -> dict[str, Any]:
        if self.rng.random() < 0.3:
            return {"participants": [self.svangare]}
        knocker = self.rng.choice([p for p in PLAYERS[:4] if p != self.svangare])
        mine = self.rng.choice([3, 2, 1, 0])
        return {"participants": [self.svangare, knocker], "tricks": {self.svangare: mine, knocker: 3 - mine}}

    def enter(self) -> None:
        resp = self.client.post(f"/api/matches/{self.id}/rounds", json=self.next_round(),
                                headers=self.auth() | {"Idempotency-Key": uuid.uuid4().hex})
        if resp.status_code != 201:
            raise RuntimeError(f"round refused: {resp.status_code} {resp.get_data(as_text=True)[:300]}")
        self.svangare = resp.json["state"]["svangare"]


def floor(client: Any) -> None:
    resp = client.post("/bench/floor")
    if resp.status_code != 201:
        raise RuntimeError(f"floor failed: {resp.status_code}")


def cpu_ms(action: Any, n: int, profile: bool) -> tuple[float, str]:
    """CPU ms per call of ``action`` over ``n`` calls (after 50 warm-up calls), and the profile's top."""
    for _ in range(50):
        action()
    prof = cProfile.Profile() if profile else None
    t0 = time.process_time()
    if prof:
        prof.enable()
    for _ in range(n):
        action()
    if prof:
        prof.disable()
    spent = (time.process_time() - t0) * 1000 / n
    text = ""
    if prof:
        out = io.StringIO()
        stats = pstats.Stats(prof, stream=out)
        stats.sort_stats("cumulative").print_stats(45)
        stats.sort_stats("tottime").print_stats(30)
        text = out.getvalue()
    return spent, text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=2000, help="requests per kind (2000)")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions (slower)")
    parser.add_argument("--postgres", action="store_true",
                        help="on a private PostgreSQL cluster (as the tests start theirs) instead of SQLite")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="referee-profile-") as tmp, \
            database(args.postgres, "profile_round") as url:
        app = make_app(Path(tmp), url)
        client = app.test_client()
        player = Player(client, random.Random(1))
        round_ms, round_prof = cpu_ms(player.enter, args.n, args.profile)
        floor_ms, floor_prof = cpu_ms(lambda: floor(client), args.n, args.profile)
    if args.profile:
        print("=== round entry ===\n" + round_prof)
        print("=== floor ===\n" + floor_prof)
    print(f"round entry {round_ms:.2f} ms CPU, floor {floor_ms:.2f} ms CPU per request "
          f"(in-process, {args.n} each); floor / round = {floor_ms / round_ms:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
