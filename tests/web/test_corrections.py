"""Voids and corrections of a middle round keep every later round's rotation (issue 42.1), on both backends.

The match: Svängknack, Anna, Bo, Cia and Dan, stake 3.00, Anna deals first,
every pot paid by all (SK-5). Round ``k`` is dealt by seat ``k - 1`` (mod 4)
and its svängare is the seat left of the dealer (SK-4, SK-11), named in every
payload as the pages send it. The money after each round is computed here by
hand from the rules (in öre), not by asking the engine.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from sqlalchemy import insert, select, update

from referee import ledger
from referee.engine.spec import spec
from referee.ledger import fold
from referee.models import Round, Snapshot, db, now
from tests.web.helpers import Api
from tests.web.test_ledger_properties import SETTINGS, new_match, new_night, step_valid

PLAYERS = ["Anna", "Bo", "Cia", "Dan"]
A, B, C, D = PLAYERS

#: The eleven rounds as entered. Round 3 (Cia deals, Dan svängar, Anna knocks) is the one voided or corrected.
ROUNDS: list[dict[str, Any]] = [
    {"svangare": B, "participants": [B]},                                    # 1: Anna deals, Bo alone
    {"svangare": C, "participants": [C]},                                    # 2: Bo deals, Cia alone
    {"svangare": D, "participants": [D, A], "tricks": {D: 3, A: 0}},         # 3: Cia deals; Anna goes bet
    {"svangare": A, "participants": [A, B], "tricks": {A: 2, B: 1}},         # 4: Dan deals
    {"svangare": B, "participants": [B]},                                    # 5: Anna deals
    {"svangare": C, "participants": [C, D], "tricks": {C: 3, D: 0}},         # 6: Bo deals; Dan goes bet
    {"svangare": D, "participants": [D]},                                    # 7: Cia deals
    {"svangare": A, "participants": [A]},                                    # 8: Dan deals
    {"svangare": B, "participants": [B]},                                    # 9: Anna deals
    {"svangare": C, "participants": [C]},                                    # 10: Bo deals
    {"svangare": D, "participants": [D]},                                    # 11: Cia deals
]
#: Who dealt and who svängade in each round 1..11 as played; a void or a correction of round 3 keeps 4..11.
DEALT = [(PLAYERS[(k - 1) % 4], PLAYERS[k % 4]) for k in range(1, 12)]

# Balances (Anna, Bo, Cia, Dan) after each round as played, and the pot. Start: all pay 300 (SK-5), pot 1200.
#  1: Bo alone takes 3 tricks x 400 (SK-7, SK-8); nobody bet: the pot is out, all pay 300 (SK-6).
#  2: Cia alone likewise.
#  3: Dan 3 tricks x 400 (SK-8); Anna bet pays the pot 1200 (SK-9); new pot 1200 + 300 from Dan, the next
#     dealer (SK-6): 1500.
#  4: trick value 500; Anna 2 x 500, Bo 1 x 500; nobody bet: all pay 300 (SK-6), pot 1200.
#  5: Bo alone +1200, all -300.
#  6: Cia 3 x 400 (SK-8); Dan bet pays 1200 (SK-9); new pot 1200 + 300 from Cia, the next dealer (SK-6): 1500.
#  7: Dan alone takes 1500 (SK-7), all -300.  8..11: alone +1200, all -300.
PLAYED = [(-600, 600, -600, -600), (-900, 300, 300, -900), (-2100, 300, 300, 0), (-1400, 500, 0, -300),
          (-1700, 1400, -300, -600), (-1700, 1400, 600, -1800), (-2000, 1100, 300, -600),
          (-1100, 800, 0, -900), (-1400, 1700, -300, -1200), (-1700, 1400, 600, -1500),
          (-2000, 1100, 300, -600)]
POTS = [1200, 1200, 1500, 1200, 1200, 1500, 1200, 1200, 1200, 1200, 1200]

# Round 3 voided: round 4 is played for the pot of 1200 left by round 2 (trick value 400): Anna +800, Bo +400,
# all -300 (SK-8, SK-6). Against round 4 as played: Anna +1000, Bo -100, Cia 0, Dan -900 (no bet payment, no
# trick, no stake as dealer in round 3). Every later round deals the same pot with the same dealers, so the
# difference stays; the pot after each later round is unchanged.
VOID_DELTA = (1000, -100, 0, -900)
# Round 3 corrected to Dan 2 tricks, Anna 1 (nobody bet): Dan +800, Anna +400, all pay 300 (SK-8, SK-6): after
# it (-800, 0, 0, -400), pot 1200. Round 4 then (value 400): Anna +800, Bo +400, all -300: (-300, 100, -300,
# -700). Against round 4 as played: +1100, -400, -300, -400; the same pot after every later round.
CORRECTED_3 = {"svangare": D, "participants": [D, A], "tricks": {D: 2, A: 1}}
CORRECT_DELTA = (1100, -400, -300, -400)


def sek(ore: int) -> str:
    """Öre as the API writes SEK (``-2100 -> "-21.00"``), written here, not with the app's Money."""
    sign = "-" if ore < 0 else ""
    return f"{sign}{abs(ore) // 100}.{abs(ore) % 100:02d}"


def expected_changes(delta: tuple[int, ...]) -> list[dict[str, Any]]:
    """Rounds 4..11: each player whose balance moves, [as played, after]; the pot never differs."""
    return [{"round": k, "balances": {name: [sek(PLAYED[k - 1][i]), sek(PLAYED[k - 1][i] + delta[i])]
                                      for i, name in enumerate(PLAYERS) if delta[i]}}
            for k in range(4, 12)]


def played_match(api: Api) -> int:
    api.new_night(PLAYERS)
    m = api.new_match("svangknack", PLAYERS, stake="3.00", dealer=A)
    for k, payload in enumerate(ROUNDS, 1):
        status, body = api.round(m["id"], payload)
        assert status == 201, (k, body)
        assert [int(float(body["state"]["balances"][p]) * 100) for p in PLAYERS] == list(PLAYED[k - 1]), k
    return int(m["id"])


def rotation(app: Any, match_id: int) -> list[tuple[int, str, str, bool]]:
    """Each counted round replayed from the stored log: (round number, dealer, svängare, passed)."""
    with app.app_context():
        match = ledger.get_match(match_id)
        out = []
        for rnd, _before, after in fold.steps(match):
            if not rnd.void:
                last = after.last
                out.append((rnd.seq, after.players[last.dealer], after.players[last.svangare], last.passed))
        db.session.remove()
    return out


def stored(app: Any, match_id: int) -> Any:
    """Every stored row of the match and its snapshot, read fresh."""
    with app.app_context():
        rows = [tuple(r) for r in db.session.execute(
            select(Round.seq, Round.kind, Round.payload, Round.void, Round.void_reason, Round.facts,
                   Round.corrects, Round.corrected_by).where(Round.match_id == match_id).order_by(Round.seq))]
        snap = db.session.execute(select(Snapshot.version, Snapshot.next_seq, Snapshot.state)
                                  .where(Snapshot.match_id == match_id)).one()
        db.session.remove()
    return rows, tuple(snap)


def later_rotation_kept(app: Any, match_id: int, last: int = 11) -> None:
    """Rounds 4..``last`` replay with the dealer and svängare they were played with (a correction of round 3,
    numbered 12, counts as round 3)."""
    got = {seq if seq <= 11 else 3: (dealer, sv, passed) for seq, dealer, sv, passed in rotation(app, match_id)}
    for k in range(4, last + 1):
        assert got[k] == (*DEALT[k - 1], False), k  # the dealer and svängare as played, nobody passed


@pytest.mark.parametrize("how", ["void", "correct"])
def test_a_void_or_correction_of_round_3_of_11_keeps_every_later_rotation_and_moves_the_rules_money(
        client: Any, app: Any, how: str) -> None:
    api = Api(client)
    mid = played_match(api)
    path = f"/api/matches/{mid}/rounds/3/{how}"
    body: dict[str, Any] = {"reason": "entered wrong"} | ({"round": CORRECTED_3} if how == "correct" else {})
    delta = VOID_DELTA if how == "void" else CORRECT_DELTA

    before = stored(app, mid)
    status, dry = api.call("POST", path, body | {"dry_run": True})
    assert status == 200, dry
    assert stored(app, mid) == before, "a dry run wrote"
    status, done = api.call("POST", path, body)
    assert status == 200, done
    assert done["changes"] == dry["changes"] == expected_changes(delta)
    assert done["state"] == dry["state"]

    state = done["state"]
    final = PLAYED[10]
    assert state["balances"] == {p: sek(final[i] + delta[i]) for i, p in enumerate(PLAYERS)}
    assert state["pot"] == "12.00"
    assert (state["dealer"], state["svangare"]) == (D, A)  # round 11 was Cia's deal: Dan deals next (SK-4)
    later_rotation_kept(app, mid)

    log = api.match(mid)["rounds"]
    assert log[2]["void"] and log[2]["void_reason"] == "entered wrong"
    if how == "correct":
        assert log[2]["corrected_by"] == 12 and log[11]["corrects"] == 3
        assert log[11]["payload"]["tricks"] == {D: 2, A: 1}
        assert log[11]["facts"]["dealer"] == C and log[11]["facts"]["svangare"] == D
    assert api.match(mid)["state"] == state  # the snapshot is the refold


def test_a_correction_that_a_later_round_no_longer_allows_is_refused_and_writes_nothing(
        client: Any, app: Any) -> None:
    """Three players, everyone must play the first round of a fresh pot (SK-10 ``fresh_pot``)."""
    api = Api(client)
    api.new_night(PLAYERS[:3])
    m = api.new_match("svangknack", PLAYERS[:3], stake="3.00", dealer=A, options={"forced_participation": "fresh_pot"})
    # 1: all play; Anna goes bet, so the pot is not fresh (SK-9, SK-6) and round 2 may be played by two.
    assert api.round(m["id"], {"svangare": B, "participants": [A, B, C], "tricks": {B: 2, C: 1}})[0] == 201
    assert api.round(m["id"], {"svangare": C, "participants": [C, A], "tricks": {C: 3}})[0] == 201
    before, shown = stored(app, m["id"]), api.match(m["id"])
    # Round 1 corrected to a trick each: nobody bet, a fresh pot follows, and round 2 must be played by all.
    fix = {"round": {"svangare": B, "participants": [A, B, C], "tricks": {A: 1, B: 1, C: 1}}}
    for dry in (True, False):
        status, body = api.call("POST", f"/api/matches/{m['id']}/rounds/1/correct", fix | {"dry_run": dry})
        assert status == 422, body
        assert body["rule"] == "SK-10" and "round 2" in body["error"]
        assert stored(app, m["id"]) == before and api.match(m["id"]) == shown
    # The corrected round itself breaking a rule (tricks adding up to 4, SK-8) is refused too.
    bad = {"round": {"svangare": B, "participants": [A, B, C], "tricks": {A: 2, B: 1, C: 1}}}
    status, body = api.call("POST", f"/api/matches/{m['id']}/rounds/1/correct", bad)
    assert status == 422 and body["rule"] == "SK-8", body
    assert stored(app, m["id"]) == before


def test_an_old_log_without_facts_keeps_its_rotation_after_a_void(client: Any, app: Any) -> None:
    """The eleven rounds stored as a version before ``rounds.facts`` stored them (facts NULL); a void of round 3
    gives them their facts by replay first, so rounds 4..11 keep their dealers (issue 42: "old logs")."""
    api = Api(client)
    api.new_night(PLAYERS)
    m = api.new_match("svangknack", PLAYERS, stake="3.00", dealer=A)
    with app.app_context():
        match = ledger.get_match(m["id"])
        game, money = spec("svangknack"), ledger.night_money(match.night)
        state = ledger.state_of(match)
        rows = []
        for seq, payload in enumerate(ROUNDS, 1):
            rnd = game.parse_round(state, payload, money)
            state = game.apply(state, rnd)
            rows.append({"match_id": match.id, "seq": seq, "kind": "round", "payload": game.round_json(rnd, money),
                         "created_at": now(), "void": False, "void_reason": "", "idempotency_key": None})
        with ledger.writing():
            db.session.execute(insert(Round.__table__), rows)
            db.session.execute(update(Snapshot).where(Snapshot.match_id == match.id)
                               .values(version=11, next_seq=12, state=fold.snapshot_json(state)))
        assert db.session.scalar(select(Round.id).where(Round.match_id == match.id, Round.facts.is_not(None))) is None
        db.session.remove()
    status, body = api.call("POST", f"/api/matches/{m['id']}/rounds/3/void", {"reason": "never dealt"})
    assert status == 200, body
    assert body["changes"] == expected_changes(VOID_DELTA)
    later_rotation_kept(app, m["id"])
    facts = [r["facts"] for r in api.match(m["id"])["rounds"]]
    assert [(f["dealer"], f["svangare"]) for f in facts] == DEALT


def test_the_round_facts_command_gives_old_logs_their_facts_once(client: Any, app: Any) -> None:
    api = Api(client)
    mid = played_match(api)
    with app.app_context():
        with ledger.writing():
            db.session.execute(update(Round).where(Round.match_id == mid).values(facts=None))
        db.session.remove()
    runner = app.test_cli_runner()
    first = runner.invoke(args=["round-facts"])
    assert first.exit_code == 0 and "11 rounds of 1 matches" in first.output, first.output
    again = runner.invoke(args=["round-facts"])
    assert "0 rounds of 0 matches" in again.output, again.output
    facts = [r["facts"] for r in api.match(mid)["rounds"]]
    assert [(f["dealer"], f["svangare"], f["passed"]) for f in facts] == [(*d, False) for d in DEALT]


# --- properties: a correction to the same entry, and a void and re-entry of the last round, change nothing ---

@settings(max_examples=10, **SETTINGS)
@given(data=st.data())
def test_correcting_a_round_to_its_own_entry_or_reentering_a_voided_last_round_changes_nothing(
        app: Any, data: st.DataObject) -> None:
    """Random Svängknack and Schloapfer matches (the generators of ``test_ledger_properties``)."""
    draw = data.draw
    with app.app_context():
        night_id, night_players = new_night(draw)
        t = new_match(draw, night_id, draw(st.sampled_from(["svangknack", "schloapfer"])), night_players)
        for _ in range(draw(st.integers(2, 7))):
            if not step_valid(draw, t):
                break
        if len(t.events) < 2:
            return
        match_id = t.match_id
        db.session.expire_all()
        state = ledger.state_of(ledger.get_match(match_id))
        log = ledger.match_json(ledger.get_match(match_id))["rounds"]

        k = draw(st.integers(1, len(log)))
        dry = ledger.correct_round(match_id, k, log[k - 1]["payload"], "same", dry_run=True)
        done = ledger.correct_round(match_id, k, log[k - 1]["payload"], "same")
        assert dry.changes == done.changes == []
        assert dry.state == done.state == state
        db.session.expire_all()
        assert ledger.state_of(ledger.get_match(match_id)) == state == ledger.replay(ledger.get_match(match_id))

        last = len(log) if k != len(log) else len(log) + 1  # the last counted entry: the correction, if it was
        payload = ledger.match_json(ledger.get_match(match_id))["rounds"][last - 1]["payload"]
        voided = ledger.void_round(match_id, last, "twice")
        assert voided.changes == []
        _rnd, again = ledger.add_round(match_id, payload)
        assert again == state
        db.session.expire_all()
        assert ledger.replay(ledger.get_match(match_id)) == state
        event(f"{t.game}: {len(log)} rounds, corrected {k}")


def test_an_export_of_a_voided_and_corrected_match_imports_with_its_rotation_and_money(
        client: Any, app: Any) -> None:
    """The facts and the correction's place travel with the export: the import replays each round with its
    dealer, the correction in round 3's place, and gives the same balances (issue 42)."""
    api = Api(client)
    mid = played_match(api)
    assert api.call("POST", f"/api/matches/{mid}/rounds/3/correct", {"round": CORRECTED_3})[0] == 200
    assert api.call("POST", f"/api/matches/{mid}/rounds/11/void", {"reason": "twice"})[0] == 200
    state = api.match(mid)["state"]
    status, exported = api.call("GET", f"/api/nights/{api.night['id']}/export.json")
    assert status == 200
    assert exported["matches"][0]["rounds"][11]["corrects"] == 3
    status, body = api.call("POST", "/api/import", exported, token=None)
    assert status == 201, body
    api.token = body["edit_token"]
    imported = api.call("GET", f"/api/nights/{body['id']}")[1]["matches"][0]["id"]
    assert api.match(imported)["state"] == state
    later_rotation_kept(app, imported, last=10)


@pytest.mark.parametrize("how", ["void", "correct"])
def test_a_dry_run_then_another_write_leaves_nothing_of_the_dry_run_in_any_kept_state(
        client: Any, app: Any, how: str) -> None:
    """A dry run's write is rolled back: the next real write (a new round, not the previewed change) takes the
    same version number, and no kept fold, page or state may answer with the preview's state for it."""
    api = Api(client)
    mid = played_match(api)
    body: dict[str, Any] = {"reason": "x", "dry_run": True} | ({"round": CORRECTED_3} if how == "correct" else {})
    status, _dry = api.call("POST", f"/api/matches/{mid}/rounds/3/{how}", body)
    assert status == 200
    status, entered = api.round(mid, {"participants": [api.match(mid)["state"]["svangare"]]})
    assert status == 201, entered
    with app.app_context():
        fresh = ledger.state_json(ledger.get_match(mid), fold.replay(ledger.get_match(mid)))
        db.session.remove()
    assert entered["state"] == fresh
    assert api.match(mid)["state"] == fresh
    assert not any(r["void"] for r in api.match(mid)["rounds"])
