"""Exporting a night (JSON, CSV) and importing it into a fresh, empty database.

The round trip is checked on the night's meaning, not on its rows: the same
balances per match, the same night result, the same settlement (what is open
and the plan), the same logs; and the import replays every log, so a file
that breaks a rule is refused and leaves the database as it was.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import uuid
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from referee import exports, ledger
from referee.engine import BadInput, RuleViolation
from referee.engine.spec import spec
from referee.ledger import POT_PARTY, payments
from referee.models import Group, Match, Night, Payment, Player, Round, Snapshot, db
from tests.components import PostgresServer
from tests.conftest import make_app
from tests.web.helpers import Api

PLAYERS = ["Anna", "Bo", "Cia", "Dan", "Eva"]


# --- building a night through the JSON API -------------------------------------

def ok(result: tuple[int, Any], status: int = 201) -> Any:
    got, body = result
    assert got == status, body
    return body


def build_night(client: Any) -> Api:
    """A night of all five games, with stake changes, a void, dots, payments and payment details."""
    api = Api(client)
    api.new_night(PLAYERS, group="Fredagsgänget", place="Klubben", leader="Anna", date="2024-05-17")
    nid = api.night["id"]
    ok(api.call("POST", f"/api/nights/{nid}/players/Cia/details", {"swish": "070-123 45 67"}), 200)
    ok(api.call("POST", f"/api/nights/{nid}/players/Bo/details",
                {"iban": "DE89 3704 0044 0532 0130 00", "holder": "Bo Berg"}), 200)

    sk = api.new_match("svangknack", ["Anna", "Bo", "Cia", "Dan"], stake="3.00")["id"]
    for payload in (
        {"participants": ["Bo", "Dan"], "tricks": {"Bo": 2, "Dan": 1}},
        {"participants": ["Cia", "Anna"], "tricks": {"Cia": 3, "Anna": 0}},  # Anna goes bet
        {"participants": ["Dan"], "new_stake": "6.00"},                       # alone; stake 3 -> 6
        {"participants": ["Anna", "Bo"], "tricks": {"Anna": 1, "Bo": 2}},     # voided below
    ):
        ok(api.round(sk, payload))
    ok(api.call("POST", f"/api/matches/{sk}/rounds/4/void", {"reason": "tricks the wrong way round"}), 200)
    ok(api.round(sk, {"participants": ["Anna", "Bo"], "tricks": {"Anna": 2, "Bo": 1}, "new_stake": "9.00"}))
    ok(api.round(sk, {"participants": ["Bo", "Cia", "Dan"], "tricks": {"Bo": 3}}))  # Cia and Dan bet

    kul = api.new_match("kul", ["Anna", "Bo", "Cia"], stake="2.00")["id"]
    for name in ("Cia", "Bo", "Cia", "Cia"):
        ok(api.round(kul, {"last_trick": name}))

    sw = api.new_match("schwimmen", ["Bo", "Cia", "Dan", "Eva"], stake="1.00", options={"lives": 2})["id"]
    ok(api.round(sw, {"ended_by": "knock", "by": "Bo", "losers": ["Dan"]}))
    ok(api.round(sw, {"ended_by": "31", "by": "Cia", "hands": {
        "Bo": ["AC", "KC", "9C"], "Cia": ["AH", "KH", "10H"], "Dan": ["7D", "8S", "9H"], "Eva": ["7C", "7H", "7S"]}}))
    ok(api.round(sw, {"ended_by": "knock", "by": "Eva", "points": {"Bo": 30, "Cia": 30.5, "Dan": 21, "Eva": 25}}))

    sl = api.new_match("schloapfer", ["Anna", "Cia", "Eva"], stake="1.50")["id"]
    ok(api.round(sl, {"eyes": {"Anna": 45, "Cia": 30, "Eva": 12}}))
    ok(api.round(sl, {"eyes": {"Cia": 60, "Eva": 27}}))
    ok(api.round(sl, {"eyes": {"Eva": 0}}))  # everybody else passed: the dealer wins without play

    kn = api.new_match("knaker", ["Anna", "Bo", "Dan", "Eva"], stake="1.00", options={"payout": "loser_pays"})["id"]
    ok(api.call("POST", f"/api/matches/{kn}/dots", {"player": "Bo", "offence": "swap_face_down", "dots": 2}))
    ok(api.round(kn, {"events": [{"out": ["Anna"]}, {"lost": ["Bo"]}, {"out": ["Dan"]}]}))
    ok(api.call("POST", f"/api/matches/{kn}/dots", {"player": "Dan", "offence": "ordinary"}))
    ok(api.round(kn, {"events": [{"out": ["Dan", "Eva"]}, {"lost": ["Anna"]}]}))
    ok(api.call("POST", f"/api/matches/{kn}/close", {}), 200)

    plan = ok(api.call("GET", f"/api/nights/{nid}/settlement"), 200)["transfers"]
    assert len(plan) >= 2, plan
    first, second = plan[0], plan[1]
    half = (Decimal(first["amount"]) / 2).quantize(Decimal("0.01"))
    parties = ("from", "to", "from_pot", "to_pot")  # a player each, or the pot (an open match's)
    ok(api.call("POST", f"/api/nights/{nid}/payments", {k: first[k] for k in parties} | {"amount": str(half)}))
    paid = ok(api.call("POST", f"/api/nights/{nid}/payments", {k: second[k] for k in parties}
                       | {"amount": second["amount"]}))
    ok(api.call("POST", f"/api/nights/{nid}/payments/{paid['payment']['id']}/void", {"reason": "paid in cash"}), 200)
    return api


# --- what must survive the round trip --------------------------------------------

def facts(night: Night) -> dict[str, Any]:
    """The night's meaning: states, logs, settlement, people; no database ids."""
    money = ledger.night_money(night)
    s = payments.settlement(night)
    matches = []
    for match in night.matches:
        module = spec(match.game)
        state = ledger.state_of(match)
        assert module.state_json(ledger.replay(match), money) == module.state_json(state, money)
        matches.append({
            "game": match.game, "seats": list(match.seats), "dealer": match.first_dealer, "stake": match.stake,
            "options": match.options, "status": match.status, "carried_in": match.carried_in,
            "balances": dict(zip(state.players, state.balances, strict=True)), "pot": state.pot,
            "state": module.state_json(state, money),
            "log": [(r.seq, r.kind, r.payload, r.void, r.void_reason, r.created_at) for r in match.rounds],
            "next_seq": match.snapshot.next_seq,
        })
    rows = db.session.scalars(select(Payment).where(Payment.night_id == night.id).order_by(Payment.id))
    return {
        "night": (night.name, night.date, night.place, night.leader, night.currency, night.group.name,
                  night.created_at),
        "players": [(p.player.name, p.player.swish, p.player.iban, p.player.account_holder) for p in night.seats],
        "matches": matches,
        "result": s.result, "open": s.open, "paid": s.paid, "opening": s.opening, "carried_out": s.carried_out,
        "plan": [(t.payer, t.payee, t.amount) for t in s.plan.transfers], "exact": s.plan.exact,
        "payments": [(p.kind, p.payer, p.payee, p.amount, p.void, p.void_reason, p.created_at) for p in rows],
    }


def counts() -> dict[str, int]:
    return {model.__name__: db.session.scalar(select(func.count()).select_from(model)) or 0
            for model in (Group, Player, Night, Match, Round, Snapshot, Payment)}


def without_stamp(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "exported_at"}


@pytest.fixture
def fresh_app(backend: str, tmp_path: Path, postgres: PostgresServer | None) -> Iterator[Any]:
    """A second app on its own empty database, of the same kind as ``app``'s."""
    if backend.startswith("sqlite"):
        url = f"sqlite:///{tmp_path / 'imported.sqlite3'}"
    else:
        assert postgres is not None
        url = postgres.create_database(f"import_{uuid.uuid4().hex[:12]}")
    application = make_app(url, tmp_path)
    yield application
    with application.app_context():
        db.session.remove()
        db.engine.dispose()


def export_from(app: Any, night_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The export as it travels (through JSON text) and the night's facts."""
    with app.app_context():
        night = ledger.get_night(night_id)
        data = exports.export_night(night)
        return json.loads(json.dumps(data)), facts(night)


# --- round trip ------------------------------------------------------------------

def test_round_trip_into_an_empty_database(app: Any, client: Any, fresh_app: Any) -> None:
    api = build_night(client)
    data, before = export_from(app, api.night["id"])
    assert data["version"] == exports.VERSION and data["currency"] == "SEK" and data["minor_digits"] == 2
    sk = data["matches"][0]
    assert sk["stake_minor"] == 300 and sk["stake"] == "3.00"
    assert [r["void"] for r in sk["rounds"]] == [False, False, False, True, False, False]
    assert sk["rounds"][3]["void_reason"] == "tricks the wrong way round"
    assert {p["kind"] for p in data["payments"]} == {"payment"} and [p["void"] for p in data["payments"]] == [
        False, True]
    assert "edit_token" not in json.dumps(data) and api.token not in json.dumps(data)

    with fresh_app.app_context():
        assert all(v == 0 for v in counts().values())
        night = exports.import_night(data)
        night_id = night.id
    with fresh_app.app_context():  # a new session: read back what was committed
        night = ledger.get_night(night_id)
        after = facts(night)
        again = exports.export_night(night)
        assert night.edit_token != api.token
    assert after == before
    assert without_stamp(json.loads(json.dumps(again))) == without_stamp(data)
    # the imported night goes on like any other: a further round and a void through the API
    other = Api(fresh_app.test_client())
    other.token = night.edit_token
    with fresh_app.app_context():
        sw_id = next(m.id for m in ledger.get_night(night_id).matches if m.game == "schwimmen")
    ok(other.round(sw_id, {"ended_by": "knock", "by": "Bo", "losers": ["Cia"]}))
    ok(other.call("POST", f"/api/matches/{sw_id}/rounds/4/void", {"reason": "test"}), 200)


def test_carried_pots_and_debts_are_imported_as_rows(app: Any, client: Any, fresh_app: Any) -> None:
    """The other half of a carry lives in another night: the rows come, the link does not."""
    first = Api(client)
    first.new_night(["Anna", "Bo", "Cia"], group="Gänget")
    kul = first.new_match("kul", ["Anna", "Bo", "Cia"], stake="2.00")["id"]
    ok(first.round(kul, {"last_trick": "Bo"}))
    ok(first.call("POST", f"/api/matches/{kul}/close", {"pot": "carry"}), 200)
    sk = first.new_match("svangknack", ["Anna", "Bo", "Cia"], stake="3.00")["id"]
    ok(first.round(sk, {"participants": ["Bo", "Cia"], "tricks": {"Bo": 3, "Cia": 0}}))
    ok(first.call("POST", f"/api/matches/{sk}/close", {"pot": "split"}), 200)
    second = Api(client)
    second.new_night(["Anna", "Bo", "Cia"], group_token=first.night["group_token"])
    kul2 = second.new_match("kul", ["Anna", "Bo", "Cia"], stake="2.00")
    assert kul2["state"]["pot"] == "12.00"  # 6.00 carried in + 3 x 2.00
    ok(first.call("POST", f"/api/nights/{first.night['id']}/carry", {"to_night": second.night["id"]}), 200)

    exported = [export_from(app, n) for n in (first.night["id"], second.night["id"])]
    assert exported[1][0]["matches"][0]["carried_in_minor"] == 600
    # The pot's carried 6.00 is a row of its own, named by a flag, never by a label (issue 31).
    assert POT_PARTY not in json.dumps([data for data, _ in exported], ensure_ascii=False)
    pot_rows = [p for data, _ in exported for p in data["payments"] if p["payer_pot"]]
    assert [(p["kind"], p["payer"], p["amount_minor"]) for p in pot_rows] == [("carry_out", None, 600),
                                                                             ("opening", None, 600)]
    old_ids = {p["carry_id"] for data, _ in exported for p in data["payments"]}
    assert len(old_ids) == 1 and None not in old_ids
    with fresh_app.app_context():
        ids = [exports.import_night(data).id for data, _ in exported]
    with fresh_app.app_context():
        nights = [ledger.get_night(i) for i in ids]
        for night, (_data, before) in zip(nights, exported, strict=True):
            assert facts(night) == before
        assert nights[0].group_id != nights[1].group_id
        assert db.session.scalar(select(Match.carried_from_id).where(Match.night_id == ids[1])) is None
        rows = list(db.session.scalars(select(Payment).order_by(Payment.id)))
        assert {r.kind for r in rows} == {"carry_out", "opening"}
        assert not {r.carry_id for r in rows} & old_ids
        assert len({r.carry_id for r in rows}) == 2  # each night's half on its own
        opening = next(r for r in rows if r.kind == "opening")
        payments.void_payment(nights[1], opening.id, "test")
        assert not any(r.void for r in db.session.scalars(select(Payment).where(Payment.kind == "carry_out")))
    # An export written before the flags named the pot by its label: it still imports, as the same night.
    legacy = copy.deepcopy(exported[1][0])
    for p in legacy["payments"]:
        if p.pop("payer_pot"):
            p["payer"] = POT_PARTY
        p.pop("payee_pot")
    with fresh_app.app_context():
        assert facts(ledger.get_night(exports.import_night(legacy).id)) == exported[1][1]


# --- CSV -----------------------------------------------------------------------

def test_csv_rows_and_money(app: Any, client: Any) -> None:
    api = build_night(client)
    with app.app_context():
        night = ledger.get_night(api.night["id"])
        text = exports.export_csv(night)
        s = payments.settlement(night)
        events = sum(len(m.rounds) for m in night.matches)
        results = sum(len(m.seats) + (1 if ledger.state_of(m).pot else 0) for m in night.matches)
        pay_rows = db.session.scalar(select(func.count()).select_from(Payment).where(Payment.night_id == night.id))
        plan = s.plan.transfers
        match_ids = [m.id for m in night.matches]
    rows = list(csv.DictReader(io.StringIO(text)))
    assert tuple(rows[0]) == exports.CSV_COLUMNS
    assert POT_PARTY not in text  # the pot's rows say so in the pot column (issue 31)
    pot_rows = [r for r in rows if r["pot"]]
    assert {(r["type"], r["pot"]) for r in pot_rows} == {("result", "player"), ("transfer", "to")}
    assert all(r[r["pot"]] == "" for r in pot_rows)
    kinds = [r["type"] for r in rows]
    assert kinds.count("round") == events == 21  # 6 + 4 + 3 + 3 + 4 and a close
    assert kinds.count("result") == results
    assert kinds.count("payment") == pay_rows == 2
    assert kinds.count("transfer") == len(plan) > 0
    assert len(rows) == events + results + pay_rows + len(plan)
    assert all(r["currency"] == "SEK" for r in rows if r["type"] != "round")

    def total(pick: Callable[[dict[str, str]], bool]) -> Decimal:
        return sum((Decimal(r["amount"]) for r in rows if pick(r)), Decimal(0))

    for mid in match_ids:  # a match's results and its pot always sum to zero
        assert total(lambda r, m=mid: r["type"] == "result" and r["match"] == str(m)) == 0
    assert total(lambda r: r["type"] == "transfer") == Decimal(sum(t.amount for t in plan)) / 100
    assert total(lambda r: r["type"] == "transfer") == Decimal(sum(v for v in s.open.values() if v > 0)) / 100
    paid = [r for r in rows if r["type"] == "payment"]
    assert [r["void"] for r in paid] == ["false", "true"] and paid[1]["void_reason"] == "paid in cash"
    assert total(lambda r: r["type"] == "payment" and r["void"] == "false") == Decimal(s.paid[paid[0]["from"]]) / 100
    voided = [r for r in rows if r["type"] == "round" and r["void"] == "true"]
    assert len(voided) == 1 and json.loads(voided[0]["summary"]) == {
        "participants": ["Anna", "Bo"], "tricks": {"Anna": 1, "Bo": 2}, "redeal": False}
    assert all(":" in r["created_at"] for r in rows if r["type"] in ("round", "payment"))


def test_csv_cells_never_become_formulas(app: Any, client: Any) -> None:
    api = Api(client)
    api.new_night(["=SUM(A1)", "@Bo", "Cia"])
    m = api.new_match("kul", ["=SUM(A1)", "@Bo", "Cia"], stake="1.00")["id"]
    for _ in range(3):
        ok(api.round(m, {"last_trick": "Cia"}))
    with app.app_context():
        rows = list(csv.DictReader(io.StringIO(exports.export_csv(ledger.get_night(api.night["id"])))))
    names = {r["player"] for r in rows if r["type"] == "result"} | {r["from"] for r in rows if r["type"] == "transfer"}
    assert "'=SUM(A1)" in names and "'@Bo" in names and "=SUM(A1)" not in names
    assert any(r["amount"].startswith("-") for r in rows if r["type"] == "result")  # amounts stay numbers


# --- refused imports -------------------------------------------------------------

def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A change to one field of the export, at a dotted path (list indices as numbers)."""
    def change(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = data
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return change


def _drop(path: str) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = data
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        del node[last]
    return change


def _chain(*changes: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        for one in changes:
            one(data)
    return change


BAD_SHAPES: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("wrong-version", _set("version", 4), "version"),
    ("version-as-text", _set("version", "1"), "version"),
    ("not-a-night-export", _set("format", "something-else"), "format"),
    ("unknown-top-field", _set("colour", "red"), "colour"),
    ("unknown-game", _set("matches.0.game", "poker"), "matches[0].game"),
    ("unknown-player-in-seats", _set("matches.0.seats", ["Anna", "Zed", "Cia"]), "matches[0].seats"),
    ("dealer-not-seated", _set("matches.0.first_dealer", "Eva"), "matches[0].first_dealer"),
    ("stake-as-text", _set("matches.0.stake_minor", "3.00"), "matches[0].stake_minor"),
    ("stake-as-float", _set("matches.0.stake_minor", 300.0), "matches[0].stake_minor"),
    ("stake-texts-disagree", _set("matches.0.stake", "4.00"), "matches[0].stake"),
    ("unknown-option", _set("matches.0.options", {"colour": "red"}), "matches[0].options.colour"),
    ("rounds-not-a-list", _set("matches.0.rounds", {"1": {}}), "matches[0].rounds"),
    ("payload-not-an-object", _set("matches.0.rounds.0.payload", ["Bo"]), "matches[0].rounds[0].payload"),
    ("payload-unknown-player", _set("matches.1.rounds.0.payload", {"last_trick": "Zed"}),
     "matches[1].rounds[0].payload.last_trick"),
    ("void-as-text", _set("matches.0.rounds.0.void", "yes"), "matches[0].rounds[0].void"),
    ("seq-out-of-order", _set("matches.0.rounds.1.seq", 1), "matches[0].rounds[1].seq"),
    ("bad-time", _set("matches.0.rounds.0.created_at", "yesterday"), "matches[0].rounds[0].created_at"),
    ("bad-kind", _set("matches.0.rounds.0.kind", "undo"), "matches[0].rounds[0].kind"),
    ("status-disagrees", _set("matches.1.status", "open"), "matches[1].status"),
    ("players-twice", _set("players.1.name", "anna"), "players"),
    ("bad-iban", _set("players.1.iban", "DE00 1234"), "players[1]"),
    ("missing-night-name", _drop("night.name"), "night.name"),
    ("bad-currency", _set("night.currency", "XXXX"), "currency"),
    ("payment-unknown-payer", _set("payments.0.payer", "Zed"), "payments[0].payer"),
    ("payment-amount-float", _set("payments.0.amount_minor", 1.5), "payments[0].amount_minor"),
    ("payment-negative", _set("payments.0.amount_minor", -100), "payments[0].amount_minor"),
    ("payment-bad-kind", _set("payments.0.kind", "gift"), "payments[0].kind"),
]


@pytest.fixture(scope="module")
def small_export(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A night of a Svängknack (with a void) and a finished Kul, a payment and payment details.

    Built once (on SQLite) and imported, changed, into each test's database:
    the export is plain data, the same whichever database it came from.
    """
    where = tmp_path_factory.mktemp("small-export")
    source = make_app(f"sqlite:///{where / 'source.sqlite3'}", where)
    api = Api(source.test_client())
    api.new_night(["Anna", "Bo", "Cia"])
    ok(api.call("POST", f"/api/nights/{api.night['id']}/players/Bo/details",
                {"iban": "DE89370400440532013000", "holder": "Bo"}), 200)
    sk = api.new_match("svangknack", ["Anna", "Bo", "Cia"], stake="3.00")["id"]
    ok(api.round(sk, {"participants": ["Bo"]}))
    ok(api.round(sk, {"participants": ["Cia", "Anna"], "tricks": {"Cia": 2, "Anna": 1}}))
    ok(api.call("POST", f"/api/matches/{sk}/rounds/2/void", {"reason": "typo"}), 200)
    kul = api.new_match("kul", ["Anna", "Bo", "Cia"], stake="1.00")["id"]
    for _ in range(3):
        ok(api.round(kul, {"last_trick": "Anna"}))
    ok(api.call("POST", f"/api/nights/{api.night['id']}/payments", {"from": "Anna", "to": "Bo", "amount": "1.00"}))
    data = export_from(source, api.night["id"])[0]
    with source.app_context():
        db.session.remove()
        db.engine.dispose()
    return data


@pytest.mark.parametrize("change, field", [(c, f) for _, c, f in BAD_SHAPES], ids=[i for i, _, _ in BAD_SHAPES])
def test_malformed_imports_are_refused_and_store_nothing(app: Any, small_export: dict[str, Any], change: Any,
                                                         field: str) -> None:
    data = small_export
    bad = copy.deepcopy(data)
    change(bad)
    with app.app_context():
        before = counts()
        with pytest.raises(BadInput) as caught:
            exports.import_night(bad)
        assert caught.value.field == field, caught.value.message
        assert counts() == before
        exports.import_night(data)  # the unchanged file imports
        assert counts()["Night"] == before["Night"] + 1


RULE_BREAKS: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("SK-8-tricks-add-up-to-3",
     _set("matches.0.rounds.0.payload", {"participants": ["Bo", "Cia"], "tricks": {"Bo": 2, "Cia": 2}}), "SK-8"),
    ("SK-11-svangare-left-of-dealer",
     _set("matches.0.rounds.0.payload", {"svangare": "Anna", "participants": ["Anna"]}), "SK-11"),
    ("SK-2-stake-divisible-by-3", _chain(_set("matches.0.stake_minor", 200), _set("matches.0.stake", "2.00")),
     "SK-2"),
    ("KU-4-round-after-the-win",
     _set("matches.1.rounds", [{"seq": k, "kind": "round", "payload": {"last_trick": "Anna"}, "void": False,
                                "void_reason": "", "created_at": "2024-05-17T20:00:00Z"} for k in range(1, 5)]),
     "KU-4"),
]


@pytest.mark.parametrize("change, rule", [(c, r) for _, c, r in RULE_BREAKS], ids=[i for i, _, _ in RULE_BREAKS])
def test_imports_breaking_a_rule_are_refused_and_store_nothing(app: Any, small_export: dict[str, Any],
                                                                change: Any, rule: str) -> None:
    data = small_export
    bad = copy.deepcopy(data)
    change(bad)
    with app.app_context():
        before = counts()
        with pytest.raises(RuleViolation) as caught:
            exports.import_night(bad)
        assert caught.value.rule == rule and f"({rule})" in caught.value.message
        assert caught.value.message.startswith("Match ")
        assert counts() == before


@pytest.mark.parametrize("raw", [None, [], "night", 7, {"version": 1}], ids=["null", "list", "text", "number",
                                                                              "no-night"])
def test_import_of_something_else_is_refused(app: Any, raw: Any) -> None:
    with app.app_context():
        with pytest.raises(BadInput):
            exports.import_night(raw)
        assert all(v == 0 for v in counts().values())
