"""Backups that stay consistent while rounds are entered, and restores with identical balances."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from referee import payments, services
from referee.backup import backup, restore
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
