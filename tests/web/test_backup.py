"""Backups that stay consistent while rounds are entered, and restores with identical balances."""

from __future__ import annotations

import random
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from referee import ledger as services  # this file has a helper named ledger
from referee.backup import backup, restore
from referee.ledger import debts, payments
from referee.models import Match, db
from tests.conftest import make_app
from tests.web.helpers import Api


def ledger(app: Any) -> dict[int, tuple[tuple[int, ...], int, Any]]:
    """Each match's balances, pot and replay check, read from the app's database."""
    out = {}
    with app.app_context():
        for match in db.session.query(Match).order_by(Match.id):
            state = services.state_of(match)
            assert services.replay(match) == state, f"match {match.id}: replay differs from snapshot"
            assert sum(state.balances) + state.pot == getattr(state, "carried_in", 0)
            out[match.id] = (state.balances, state.pot, len(match.rounds))
        db.session.remove()
    return out


def test_backup_and_restore_give_identical_balances(app: Any, backend: str, tmp_path: Path, postgres: Any) -> None:
    api = Api(app.test_client())
    api.new_night(["Anna", "Bo", "Cia"])
    m = api.new_match("svangknack", ["Anna", "Bo", "Cia"], stake="3.00")
    for k in range(12):
        sv = api.match(m["id"])["state"]["svangare"]
        others = [p for p in ("Anna", "Bo", "Cia") if p != sv]
        payload = {"participants": [sv]} if k % 2 else {"participants": [sv, others[0]], "tricks": {sv: 3}}
        assert api.round(m["id"], payload)[0] == 201
    api.call("POST", f"/api/nights/{api.night['id']}/payments", {"from": "Bo", "to": "Anna", "amount": "0.03"})
    before = ledger(app)
    with app.app_context():
        settled_before = payments.settlement(services.get_night(api.night["id"])).open
    dump = tmp_path / "ledger.backup"
    backup(backend, dump)
    # a fresh, empty database of the same kind receives the backup
    target = (f"sqlite:///{tmp_path / 'restored.sqlite3'}" if backend.startswith("sqlite")
              else postgres.create_database("restored"))
    fresh = make_app(target, tmp_path / "fresh")
    restore(target, dump)
    assert ledger(fresh) == before
    with fresh.app_context():
        assert payments.settlement(services.get_night(api.night["id"])).open == settled_before


def test_sqlite_backup_is_consistent_while_rounds_are_entered(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'live.sqlite3'}"
    app = make_app(url, tmp_path)
    api = Api(app.test_client())
    api.new_night(["Anna", "Bo", "Cia"])
    m = api.new_match("kul", ["Anna", "Bo", "Cia"], stake="1.00", options={"marks_to_win": 3})
    stop = threading.Event()
    entered: list[int] = []

    def writer() -> None:
        client = app.test_client()
        names = ["Anna", "Bo", "Cia"]
        k = 0
        while not stop.is_set() and k < 400:
            match = client.post(f"/api/nights/{api.night['id']}/matches", json={
                "game": "kul", "players": names, "stake": "1.00"}, headers={"Authorization": f"Bearer {api.token}"})
            mid = match.get_json()["id"]
            for who in names:  # one deal each: never a winner, so the match stays open
                client.post(f"/api/matches/{mid}/rounds", json={"last_trick": who},
                            headers={"Authorization": f"Bearer {api.token}"})
            entered.append(mid)
            k += 1

    thread = threading.Thread(target=writer)
    thread.start()
    copies = []
    try:
        for n in range(3):
            while len(entered) < 3 * (n + 1) and thread.is_alive():
                stop.wait(0.01)
            copies.append(backup(url, tmp_path / f"copy-{n}.sqlite3"))
    finally:
        stop.set()
        thread.join()
    assert m["id"] and entered
    for n, copy in enumerate(copies):
        restored = make_app(f"sqlite:///{copy}", tmp_path / f"r{n}")
        matches = ledger(restored)  # replay equals snapshot in every match of the copy
        assert len(matches) >= 2
        for balances, pot, rounds in matches.values():
            assert sum(balances) + pot == 0 and rounds <= 3


def test_backup_and_restore_commands(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    app = make_app(url, tmp_path)
    api = Api(app.test_client())
    api.new_night(["Anna", "Bo"])
    m = api.new_match("kul", ["Anna", "Bo"], stake="2.00")
    api.round(m["id"], {"last_trick": "Bo"})
    before = ledger(app)
    runner = app.test_cli_runner()
    result = runner.invoke(args=["backup", str(tmp_path / "b.sqlite3")])
    assert result.exit_code == 0 and "backup written" in result.output
    api.round(m["id"], {"last_trick": "Bo"})  # a change after the backup ...
    assert ledger(app) != before
    result = runner.invoke(args=["restore", str(tmp_path / "b.sqlite3")])
    assert result.exit_code == 0, result.output
    assert ledger(app) == before  # ... is gone after the restore


# --- a club's year on PostgreSQL ---------------------------------------------------------------

CLUB = ["Anna", "Bo", "Cia", "Dan"]
NIGHTS = 52


def club_year(rng: random.Random) -> list[int]:
    """A group's 52 weekly nights through the service layer (in an app context): on each night a
    Svängknack match (4 rounds, now and then one voided, closed with the pot split) and a Kul match
    (3 deals, closed), a payment of part of what is open, and the rest carried to the next night."""
    from referee.models import Night

    first = services.create_night("Club night 1", "SEK", CLUB, group="Klubben", leader="Anna")
    nights = [first] + [services.create_night(f"Club night {n}", "SEK", CLUB, group_token=first.group.token,
                                              leader="Anna") for n in range(2, NIGHTS + 1)]
    ids = [night.id for night in nights]
    for i, night_id in enumerate(ids):
        night = db.session.get(Night, night_id)
        assert night is not None
        seats = [CLUB[(i + k) % 4] for k in range(3)]
        sk = services.create_match(night, "svangknack", seats, seats[0], "3.00",
                                   {"forced_participation": "always"})
        for _r in range(4):
            tricks = rng.choice([(1, 1, 1), (2, 1, 0), (0, 1, 2), (1, 0, 2)])
            services.add_round(sk.id, {"tricks": dict(zip(seats, tricks, strict=True))})
        if i % 5 == 0:
            services.void_round(sk.id, 4, "misdealt")
        services.close_match(sk.id, "split")
        kul = services.create_match(night, "kul", CLUB, CLUB[i % 4], "1.00", {"marks_to_win": 3})
        for who in rng.sample(CLUB, 3):
            services.add_round(kul.id, {"last_trick": who})
        services.close_match(kul.id)
        transfers = payments.settlement(night).plan.transfers
        if transfers:
            payments.record_payment(night, transfers[0].payer, transfers[0].payee, "0.50")
        if i + 1 < len(ids) and any(payments.settlement(night).open.values()):
            debts.carry_debts(night, ids[i + 1])
    return ids


def everything(app: Any) -> dict[str, list[str]]:
    """Every row of every table, alembic's version included (sorted reprs)."""
    from sqlalchemy import inspect, text

    with app.app_context():
        names = sorted(inspect(db.engine).get_table_names())
        rows = {name: sorted(repr(tuple(r)) for r in db.session.execute(text(f'SELECT * FROM "{name}"')))
                for name in names}
        db.session.remove()
    return rows


def test_a_clubs_year_restores_identically_from_pg_dump(tmp_path: Path, postgres: Any) -> None:
    """The README's nightly ``pg_dump`` of a 52-night group, restored into a fresh database: the same
    rows in every table, the same balances, event logs and settlements; and the restored database
    takes new writes (its id sequences came along)."""
    if postgres is None:
        from tests import conftest
        from tests.components import missing

        missing(f"PostgreSQL server (Debian package postgresql): {conftest.PG_ERROR}")
    from flask_migrate import upgrade

    from referee.backup import _tool

    url = postgres.create_database("club_year")
    app = make_app(url, tmp_path / "club")
    with app.app_context():
        db.drop_all()
        upgrade()  # the schema as `flask db upgrade` makes it, alembic_version included
        began = time.monotonic()
        ids = club_year(random.Random(52))
        made = time.monotonic() - began
        db.session.remove()
    before, balances = everything(app), ledger(app)
    client = app.test_client()
    with app.app_context():
        tokens = {i: services.get_night(i).edit_token for i in ids}
        db.session.remove()

    def settlements(c: Any) -> list[Any]:
        return [c.get(f"/api/nights/{i}/settlement", headers={"Authorization": f"Bearer {tokens[i]}"}).get_json()
                for i in ids]

    settled = settlements(client)
    assert len(balances) == 2 * NIGHTS and sum(len(before[t]) for t in ("rounds", "payments")) > 15 * NIGHTS
    assert all(s["balances"] for s in settled) and sum(bool(s["carried_out"]) for s in settled) > NIGHTS // 2

    libpq = url.replace("postgresql+psycopg://", "postgresql://")
    dump = tmp_path / "referee-nightly.dump"
    # The README's nightly command and its restore into a new, empty database.
    began = time.monotonic()
    subprocess.run([_tool("pg_dump"), "--format=custom", "--no-owner", "--file", str(dump), libpq], check=True)
    dumped = time.monotonic() - began
    target = postgres.create_database("club_year_restored")
    began = time.monotonic()
    subprocess.run([_tool("pg_restore"), "--no-owner", "--single-transaction", "--exit-on-error",
                    "--dbname", target.replace("postgresql+psycopg://", "postgresql://"), str(dump)], check=True)
    restored = time.monotonic() - began
    print(f"club year: {NIGHTS} nights made in {made:.1f} s, {sum(map(len, before.values()))} rows; pg_dump "
          f"{dumped:.2f} s ({dump.stat().st_size // 1024} KiB), pg_restore {restored:.2f} s")
    fresh = make_app(target, tmp_path / "fresh")
    assert everything(fresh) == before
    with fresh.app_context():
        upgrade()  # the restored database is at the migrations' head: `flask db upgrade` changes nothing
        db.session.remove()
    assert everything(fresh) == before
    assert ledger(fresh) == balances
    assert settlements(fresh.test_client()) == settled
    with fresh.app_context():
        night = services.get_night(ids[-1])
        match = services.create_match(night, "kul", CLUB, "Bo", "1.00")
        assert services.add_round(match.id, {"last_trick": "Cia"})[0].seq == 1
        db.session.remove()
    for application in (app, fresh):
        with application.app_context():
            db.engine.dispose()
