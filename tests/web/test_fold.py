"""The one fold of the event log (issues 27 and 29): its error policy and its stored checkpoints, on both backends.

Engine applications are counted by wrapping :func:`referee.ledger.fold_steps.apply_event` (the fold's only step), so
"folds at most N events" is a count, not a time. The reference every fold is compared with is the engine's
own fold of the whole log, written out here without the fold module's cache or checkpoints.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert, select, update

from referee import ledger
from referee.engine.records import dump, load
from referee.engine.spec import spec
from referee.ledger import fold, fold_steps
from referee.models import FoldCheckpoint, Round, Snapshot, db, now

PLAYERS = ["Anna", "Bo", "Cia", "Dag", "Eva"]
ROOT = Path(__file__).resolve().parents[2]


def svangknack(rounds: int) -> tuple[int, str]:
    """A Svängknack of ``rounds`` rounds through the service layer; returns (match id, view token)."""
    night = ledger.create_night("Fold night", "SEK", PLAYERS)
    match = ledger.create_match(night, "svangknack", PLAYERS, PLAYERS[0], "3.00")
    state = ledger.state_of(match)
    for _ in range(rounds):
        _rnd, state = ledger.add_round(match.id, {"participants": [left_of_dealer(state)]})
    return match.id, night.view_token


def stored_before_checkpoints(rounds: int, then: int) -> tuple[int, str]:
    """A Svängknack whose first ``rounds`` rounds are stored as by a version before ``fold_checkpoints``
    (the rows the ledger writes: the engine's canonical rounds and the snapshot, in one INSERT, without
    checkpoints; 2,000 writes one by one take minutes), then ``then`` more rounds entered through the ledger.
    """
    night = ledger.create_night("Long night", "SEK", PLAYERS)
    match = ledger.create_match(night, "svangknack", PLAYERS, PLAYERS[0], "3.00")
    module, money = spec("svangknack"), ledger.night_money(night)
    state = ledger.state_of(match)
    rows = []
    for seq in range(1, rounds + 1):
        rnd = module.parse_round(state, {"participants": [left_of_dealer(state)]}, money)
        state = module.apply(state, rnd)
        rows.append({"match_id": match.id, "seq": seq, "kind": "round", "payload": module.round_json(rnd, money),
                     "created_at": now(), "void": False, "void_reason": "", "idempotency_key": None, "deal": None})
    with ledger.writing():
        db.session.execute(insert(Round.__table__), rows)
        db.session.execute(update(Snapshot).where(Snapshot.match_id == match.id)
                           .values(version=rounds, next_seq=rounds + 1, state=fold.snapshot_json(state)))
    for _ in range(then):
        _rnd, state = ledger.add_round(match.id, {"participants": [left_of_dealer(state)]})
    return match.id, night.view_token


def left_of_dealer(state: Any) -> str:
    """The svängare (SK-11: the player left of the dealer)."""
    return str(state.players[(state.dealer + 1) % len(state.players)])


def knaker(games: int) -> tuple[int, str]:
    """A Knaker of ``games`` games, each a dot and a game (two events); returns (match id, view token).

    A Knaker round stays valid whatever was voided before it, so a void in the middle is accepted.
    """
    table = PLAYERS[:4]
    night = ledger.create_night("Knaker night", "SEK", table)
    match = ledger.create_match(night, "knaker", table, table[0], "1.00", {"payout": "loser_pays"})
    for game in range(games):
        order = table[game % 4:] + table[:game % 4]
        ledger.add_round(match.id, {"dot": {"player": order[3], "offence": "ordinary"}})
        ledger.add_round(match.id, {"events": [{"out": [order[0]]}, {"out": [order[1]]}, {"lost": [order[3]]}]})
    return match.id, night.view_token


def scratch(match_id: int) -> tuple[Any, list[int], list[tuple[int, ...]], list[int], dict[int, Any]]:
    """The whole log folded by the engine from the start: (state, seqs, balances, pots, state after each seq).

    Each round with its stored facts (who dealt it, issue 42): a void keeps the later rounds' dealers."""
    match = ledger.get_match(match_id)
    state = fold.initial_state(match)
    seqs, balances, pots, after = [0], [tuple(state.balances)], [int(state.pot)], {}
    for rnd in db.session.scalars(select(Round).where(Round.match_id == match_id).order_by(Round.seq)):
        if not rnd.void:
            state = fold.apply_event(match, state, rnd.kind, rnd.payload, rnd.facts)
            seqs.append(rnd.seq)
            balances.append(tuple(state.balances))
            pots.append(int(state.pot))
        after[rnd.seq] = state
    return state, seqs, balances, pots, after


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each engine application of the fold appends 1."""
    applied: list[int] = []
    real = fold_steps.apply_event

    def count(match: Any, state: Any, kind: str, payload: Any, facts: Any = None) -> Any:
        applied.append(1)
        return real(match, state, kind, payload, facts)

    monkeypatch.setattr(fold_steps, "apply_event", count)
    return applied


def test_a_cold_fold_of_2000_events_reads_the_checkpoints_and_folds_fewer_than_n(
        app: Any, client: Any, counted: list[int]) -> None:
    """2,000 rounds and then N - 1 more (the most a checkpoint leaves): a cold fold (memory cleared) applies
    the engine N - 1 times and gives the same balances as the engine's fold of the whole log. The first 1,999
    are a match from before the checkpoints: its 2,000th round writes all of them at once."""
    every = fold.CHECKPOINT_EVERY
    with app.app_context():
        mid, view = stored_before_checkpoints(2000 - 1, every)  # the 2,000th round writes all 40 checkpoints
        # ... and the most events a checkpoint leaves to fold follow it (N - 1)
        stored = list(db.session.scalars(select(FoldCheckpoint).where(FoldCheckpoint.match_id == mid)
                                         .order_by(FoldCheckpoint.seq)))
        assert [cp.seq for cp in stored] == list(range(every, 2000 + every, every))
        _state, seqs, balances, pots, after = scratch(mid)
        for cp in stored:  # each holds the engine's JSON form of the state after its round, and loads back
            assert cp.state == dump(after[cp.seq])
            assert load(type(after[cp.seq]), cp.state) == after[cp.seq]
        db.session.remove()

    fold.clear()
    counted.clear()
    with app.app_context():
        cold = fold.history(ledger.get_match(mid))
    assert len(counted) == every - 1
    assert (list(cold.seqs), list(cold.balances), list(cold.pots)) == (seqs, balances, pots)
    phone = client.application.test_client()
    assert phone.get(f"/v/{view}").status_code == 302
    assert phone.get(f"/matches/{mid}").status_code == 200


def test_a_void_in_the_middle_rewrites_the_checkpoints_after_it_and_the_page_equals_a_full_refold(
        app: Any, client: Any, counted: list[int]) -> None:
    every = fold.CHECKPOINT_EVERY
    events = 3 * every + 10
    with app.app_context():
        mid, view = knaker(events // 2)
        before = {cp.seq: cp.state for cp in db.session.scalars(select(FoldCheckpoint)
                                                                .where(FoldCheckpoint.match_id == mid))}
        assert sorted(before) == [every, 2 * every, 3 * every]
        token = ledger.get_match(mid).night.edit_token
        db.session.remove()
    phone = client.application.test_client()
    assert phone.get(f"/v/{view}").status_code == 302
    assert phone.get(f"/matches/{mid}").status_code == 200  # the fold kept in memory
    voided = (3 * every // 2) // 2 * 2  # between two checkpoints; an even round is a game (odd ones: dots)
    counted.clear()
    status = client.post(f"/api/matches/{mid}/rounds/{voided}/void", json={"reason": "slip"},
                         headers={"Authorization": f"Bearer {token}"}).status_code
    assert status == 200
    assert len(counted) == events - every - 1  # the void folds from the checkpoint before it, without it
    with app.app_context():
        state, seqs, balances, pots, after = scratch(mid)
        stored = {cp.seq: cp.state for cp in db.session.scalars(select(FoldCheckpoint)
                                                                .where(FoldCheckpoint.match_id == mid))}
        assert sorted(stored) == sorted(before)
        for seq, plain in stored.items():
            assert plain == dump(after[seq])
        assert stored[every] == before[every] and stored[3 * every] != before[3 * every]
        assert ledger.state_of(ledger.get_match(mid)) == state
        counted.clear()
        warm = fold.history(ledger.get_match(mid))  # the kept fold is stale: a cold fold
        assert len(counted) == events - 3 * every
        fold.clear()
        cold = fold.history(ledger.get_match(mid))
        assert warm == cold
        assert (list(cold.seqs), list(cold.balances), list(cold.pots)) == (seqs, balances, pots)
        assert voided not in cold.seqs and len(cold.game_results) == events // 2 - 1
        db.session.remove()
    page = phone.get(f"/matches/{mid}")
    assert page.status_code == 200 and b'id="balance-chart"' in page.data


def test_checkpoints_are_read_by_a_new_process(app: Any, backend: str, tmp_path: Path) -> None:
    """A restart: another process with an empty memory opens the same database and folds from the checkpoint."""
    every = fold.CHECKPOINT_EVERY
    with app.app_context():
        mid, _view = stored_before_checkpoints(4 * every - 1, 4)
        _state, seqs, balances, _pots, _after = scratch(mid)
        db.session.remove()
    script = f"""
import json, sys
sys.path.insert(0, {str(ROOT)!r})
from tests.conftest import make_app
from pathlib import Path
from referee.engine.spec import SPECS, spec
from referee import ledger
from referee.ledger import fold, fold_steps
app = make_app({backend!r}, Path({str(tmp_path)!r}))
real, applied = fold_steps.apply_event, []
fold_steps.apply_event = lambda *a: (applied.append(1), real(*a))[1]
with app.app_context():
    made = fold.history(ledger.get_match({mid}))
print(json.dumps({{"applied": len(applied), "seqs": made.seqs, "balances": made.balances}}))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["applied"] == 3
    assert got["seqs"] == seqs and [tuple(b) for b in got["balances"]] == balances


def test_knaker_games_and_dots_survive_the_checkpoints(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Knaker's finished games (places, dots) are in the checkpoints' points: a cold fold gives the same games."""
    monkeypatch.setattr(fold, "CHECKPOINT_EVERY", 3)
    table = PLAYERS[:4]
    with app.app_context():
        night = ledger.create_night("Knaker", "SEK", table)
        kn = ledger.create_match(night, "knaker", table, table[0], "1.00", {"payout": "loser_pays"})
        for game in range(5):
            order = table[game % 4:] + table[:game % 4]
            ledger.add_round(kn.id, {"dot": {"player": order[3], "offence": "ordinary"}})
            ledger.add_round(kn.id, {"events": [{"out": [order[0]]}, {"out": [order[1]]}, {"lost": [order[3]]}]})
        ledger.add_round(kn.id, {"dot": {"player": table[1], "offence": "ordinary"}})
        ledger.void_round(kn.id, 4, "slip")
        assert db.session.scalar(select(FoldCheckpoint.seq).where(FoldCheckpoint.match_id == kn.id)
                                 .order_by(FoldCheckpoint.seq.desc()).limit(1)) == 9
        fold.clear()
        cold = fold.history(ledger.get_match(kn.id))
        monkeypatch.setattr(fold, "CHECKPOINT_EVERY", 10_000)  # no checkpoint to start from
        db.session.execute(FoldCheckpoint.__table__.delete())
        fold.clear()
        whole = fold.history(ledger.get_match(kn.id))
        assert cold == whole and len(cold.game_results) == 4 and any(cold.open_dots)


def corrupt(app: Any, match_id: int, seq: int) -> None:
    """Round ``seq`` rewritten behind the ledger's back (a broken disk, a hand in the database) to one the
    engine refuses: its tricks add up to 4 (SK-8)."""
    with app.app_context():
        *_rest, after = scratch(match_id)
        sv = left_of_dealer(after[seq - 1])
        other = next(p for p in PLAYERS if p != sv)
        db.session.execute(update(Round).where(Round.match_id == match_id, Round.seq == seq)
                           .values(payload={"participants": [sv, other], "tricks": {sv: 2, other: 2}}))
        db.session.commit()
    fold.clear()


def test_a_corrupted_stored_event_is_one_typed_error_and_never_a_500(app: Any, client: Any) -> None:
    every = fold.CHECKPOINT_EVERY
    broken = every + 2  # after the stored checkpoint: a cold fold reaches it
    with app.app_context():
        mid, view = svangknack(every + 5)
        token = ledger.get_match(mid).night.edit_token
        db.session.remove()
    corrupt(app, mid, broken)
    with app.app_context():
        with pytest.raises(fold.CorruptLog) as caught:
            fold.history(ledger.get_match(mid))
        assert (caught.value.match_id, caught.value.seq, caught.value.rule) == (mid, broken, "SK-8")
        with pytest.raises(fold.CorruptLog) as caught:
            fold.steps(ledger.get_match(mid))
        assert caught.value.seq == broken
        db.session.remove()
    phone = client.application.test_client()
    assert phone.get(f"/v/{view}").status_code == 302
    page = phone.get(f"/matches/{mid}")  # the page shows itself, with the error where the chart was
    assert page.status_code == 200
    assert b'id="fold-error"' in page.data and f"match {mid} no longer replays at round {broken}".encode() in page.data
    assert b'id="balance-chart"' not in page.data
    assert phone.get(f"/matches/{mid}/protocol.pdf").status_code == 409
    auth = {"Authorization": f"Bearer {token}"}
    refused = client.post(f"/api/matches/{mid}/rounds/{every + 4}/void", json={}, headers=auth)
    assert refused.status_code == 409
    assert (refused.get_json()["match_id"], refused.get_json()["round"], refused.get_json()["rule"]) == (
        mid, broken, "SK-8")
    with app.app_context():
        assert db.session.scalar(select(Round.void).where(Round.match_id == mid, Round.seq == every + 4)) is False


def test_voiding_the_broken_last_round_makes_the_log_replay_again(app: Any, client: Any) -> None:
    with app.app_context():
        mid, view = svangknack(6)
        token = ledger.get_match(mid).night.edit_token
        db.session.remove()
    corrupt(app, mid, 6)
    phone = client.application.test_client()
    assert phone.get(f"/v/{view}").status_code == 302
    assert b'id="fold-error"' in phone.get(f"/matches/{mid}").data
    voided = client.post(f"/api/matches/{mid}/rounds/6/void", json={"reason": "broken"},
                         headers={"Authorization": f"Bearer {token}"})
    assert voided.status_code == 200, voided.get_json()
    page = phone.get(f"/matches/{mid}")
    assert page.status_code == 200 and b'id="fold-error"' not in page.data and b'id="balance-chart"' in page.data
    with app.app_context():
        assert fold.history(ledger.get_match(mid)).seqs == (0, 1, 2, 3, 4, 5)


def test_a_void_and_the_logs_json_load_no_event_objects_but_the_voided_one(app: Any) -> None:
    """A long match's void reads its one event, and the match's JSON reads its log as rows: neither loads every
    event as an object, a cost that grew with the log (a void of a 1,500-round match took 50 ms, its JSON 42 ms,
    and ``bench/soak.py`` served half as many requests in its tenth minute as in its first)."""
    from sqlalchemy import event

    loaded: list[int] = []

    def on_load(target: Round, _context: Any) -> None:
        loaded.append(target.seq)

    with app.app_context():
        mid, _view = svangknack(120)
        db.session.remove()
    event.listen(Round, "load", on_load)
    try:
        with app.app_context():
            log = ledger.match_json(ledger.get_match(mid))["rounds"]
            assert [r["round"] for r in log] == list(range(1, 121)) and not any(r["void"] for r in log)
            assert loaded == []
            ledger.void_round(mid, 120, "mistyped")
            assert loaded == [120]
            db.session.remove()
        with app.app_context():
            log = ledger.match_json(ledger.get_match(mid))["rounds"]
            assert [(r["round"], r["void"], r["void_reason"]) for r in log][-2:] == [
                (119, False, None), (120, True, "mistyped")]
    finally:
        event.remove(Round, "load", on_load)
