"""The night's fingerprint (issue 46.2): a hash chain over its events, carried by the export, checked on import.

On SQLite and PostgreSQL: the fingerprint moves with every kind of write
and never with a read; an export whose chain does not hold (one amount, one
name, one event moved, one dropped) is refused with ``400 "events"`` and
stores nothing; an export imported again has the fingerprint it was
exported with, also with a void of before the times were kept (the
fallback); the events after a point are listed in words.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import update

from referee import exports, ledger
from referee.ledger import by_version
from referee.ledger import fingerprint as fp
from referee.models import Payment, Round, db
from tests.tournament.helpers import bearer, create, play_schwimmen
from tests.web.helpers import Api
from tests.web.test_exports import build_night, counts, export_from, fresh_app, ok

__all__ = ["fresh_app"]  # test_exports' fixture, used here


def fingerprint(api: Api, night: dict[str, Any] | None = None) -> str:
    """The fingerprint of the API's night, or of ``night`` (as created: its id and edit token)."""
    if night is None:
        got = ok(api.call("GET", f"/api/nights/{api.night['id']}"), 200)
    else:
        got = ok(api.call("GET", f"/api/nights/{night['id']}", token=night["edit_token"]), 200)
    assert len(got["fingerprint"]) == 64 and int(got["fingerprint"], 16) >= 0
    return str(got["fingerprint"])


def test_every_kind_of_write_moves_the_fingerprint_and_no_read_does(client: Any) -> None:
    api = Api(client)
    api.new_night(["Anna", "Bo", "Cia", "Dan"], group="Fredag")
    nid = api.night["id"]
    seen = [fingerprint(api)]

    def wrote(what: str) -> None:
        now = fingerprint(api)
        assert now not in seen, f"{what} left the fingerprint as it was"
        seen.append(now)
        for path in (f"/api/nights/{nid}", f"/api/nights/{nid}/settlement", f"/api/nights/{nid}/export.json",
                     f"/api/nights/{nid}/events?after=1"):
            assert client.get(path, headers=bearer(api.token or "")).status_code == 200, path
        view = api.night["view_token"]
        assert client.get(f"/v/{view}").status_code in (200, 302)  # the phone's view right, in its session
        for path in (f"/nights/{nid}/settlement.pdf?view={view}", f"/matches/{sk}/protocol.pdf?view={view}",
                     f"/nights/{nid}", f"/nights/{nid}/changes?after=1"):
            assert client.get(path).status_code == 200, path
        assert fingerprint(api) == now, f"a read after {what} moved the fingerprint"

    sk = api.new_match("svangknack", ["Anna", "Bo", "Cia", "Dan"], stake="3.00")["id"]
    wrote("a new match")
    ok(api.round(sk, {"participants": ["Bo", "Dan"], "tricks": {"Bo": 2, "Dan": 1}}))
    wrote("a round")
    ok(api.round(sk, {"participants": ["Cia", "Anna"], "tricks": {"Cia": 3, "Anna": 0}}))
    wrote("a second round")
    ok(api.call("POST", f"/api/matches/{sk}/rounds/2/void", {"reason": "typo"}), 200)
    wrote("a round's void")
    ok(api.call("POST", f"/api/matches/{sk}/rounds/1/correct",
                {"round": {"participants": ["Bo", "Dan"], "tricks": {"Bo": 1, "Dan": 2}}}), 200)
    wrote("a correction")
    ok(api.call("POST", f"/api/matches/{sk}/close", {"pot": "split"}), 200)
    wrote("a close")
    plan = ok(api.call("GET", f"/api/nights/{nid}/settlement"), 200)["transfers"]
    parties = ("from", "to", "from_pot", "to_pot")
    paid = ok(api.call("POST", f"/api/nights/{nid}/payments", {k: plan[0][k] for k in parties} | {"amount": "0.01"}))
    wrote("a payment")
    ok(api.call("POST", f"/api/nights/{nid}/payments/{paid['payment']['id']}/void", {"reason": "cash"}), 200)
    wrote("a payment's void")
    later = ok(api.call("POST", "/api/nights", {"name": "Later", "currency": "SEK", "players": ["Anna", "Bo"],
                                                "group_token": api.night["group_token"]}, token=None))
    later_before = fingerprint(api, later)
    ok(api.call("POST", f"/api/nights/{nid}/carry", {"to_night": later["id"]}), 200)
    wrote("a carry")
    assert fingerprint(api, later) != later_before  # the opening balances of the night it went to

    made = create(client, players=["Anna", "Bo", "Cia", "Dan"], table_size=2, series=1, entry_fee="5.00",
                  prizes=[100])
    tourn = Api(client)
    tourn.night, tourn.token = {"id": made["night"]}, made["edit_token"]
    before = fingerprint(tourn)
    for table in made["tables"]:
        play_schwimmen(client, table, table["table_token"])
    played = fingerprint(tourn)
    assert played != before
    assert client.post(f"/api/tournaments/{made['id']}/next", headers=bearer(made["edit_token"])).status_code == 200
    assert fingerprint(tourn) != played, "the tournament's fees and prizes left the fingerprint as it was"


def _pay(row: dict[str, Any], minor: int) -> None:
    row["amount_minor"], row["amount"] = minor, f"{minor // 100}.{minor % 100:02d}"


def _amount(data: dict[str, Any]) -> None:
    _pay(data["payments"][0], data["payments"][0]["amount_minor"] - 1)


def _name(data: dict[str, Any]) -> None:
    row = data["payments"][0]
    row["payer"] = next(p["name"] for p in data["players"] if p["name"] not in (row.get("payer"), row.get("payee")))


def _reorder(data: dict[str, Any]) -> None:
    rounds = data["matches"][0]["rounds"]
    rounds[0]["created_at"], rounds[1]["created_at"] = rounds[1]["created_at"], rounds[0]["created_at"]


def _drop(data: dict[str, Any]) -> None:
    del data["payments"][0]


def _drop_last(data: dict[str, Any]) -> None:
    last = max((p for p in data["payments"]), key=lambda p: p["created_at"])
    data["payments"].remove(last)


TAMPERED: list[tuple[str, Callable[[dict[str, Any]], None]]] = [
    ("one-amount", _amount), ("one-name", _name), ("one-reordered", _reorder), ("one-dropped", _drop),
    ("the-last-dropped", _drop_last),
]


@pytest.mark.parametrize("change", [c for _, c in TAMPERED], ids=[i for i, _ in TAMPERED])
def test_an_export_whose_chain_does_not_hold_is_refused_and_writes_nothing(app: Any, client: Any,
                                                                           change: Callable[[dict[str, Any]], None]
                                                                           ) -> None:
    api = build_night(client)
    data, _facts = export_from(app, api.night["id"])
    bad = copy.deepcopy(data)
    change(bad)
    assert bad != data
    with app.app_context():
        before = counts()
    reply = client.post("/api/import", json=bad)
    assert (reply.status_code, reply.get_json()["field"]) == (400, "events"), reply.get_json()
    with app.app_context():
        assert counts() == before
    assert client.post("/api/import", json=data).status_code == 201  # the file as exported imports


def test_an_export_imported_keeps_its_fingerprint(app: Any, client: Any, fresh_app: Any) -> None:
    api = build_night(client)
    nid = api.night["id"]
    later = ok(api.call("POST", "/api/nights", {"name": "Later", "currency": "SEK", "players": ["Anna", "Bo"],
                                                "group_token": api.night["group_token"]}, token=None))
    kul = next(m for m in ok(api.call("GET", f"/api/nights/{nid}"), 200)["matches"] if m["game"] == "kul")
    ok(api.call("POST", f"/api/matches/{kul['id']}/rounds/2/correct", {"round": {"last_trick": "Anna"}}), 200)
    for match in ok(api.call("GET", f"/api/nights/{nid}"), 200)["matches"]:
        if match["status"] == "open":
            ok(api.call("POST", f"/api/matches/{match['id']}/close", {"pot": "split"}), 200)
    ok(api.call("POST", f"/api/nights/{nid}/carry", {"to_night": later["id"]}), 200)
    data, _facts = export_from(app, nid)
    assert data["fingerprint"] == fingerprint(api)
    assert any("void_link" in p for p in data["payments"]) and any(p["kind"] == "carry_out" for p in data["payments"])
    assert any("corrects" in r for m in data["matches"] for r in m["rounds"])  # a correction travels in the chain
    other = fresh_app.test_client()
    made = other.post("/api/import", json=data)
    assert made.status_code == 201, made.get_json()
    got = other.get(f"/api/nights/{made.get_json()['id']}", headers=bearer(made.get_json()["edit_token"]))
    assert got.get_json()["fingerprint"] == data["fingerprint"]
    again, _facts = export_from(fresh_app, made.get_json()["id"])
    for export in (again, data):  # an import makes new carry ids (the chain leaves them out), and a new group
        del export["exported_at"], export["night"]["group"]
        for row in export["payments"]:
            row.pop("carry_id")
    assert again == data  # every link and the fingerprint as exported


def test_a_void_of_before_the_times_were_kept_still_has_a_fingerprint_that_travels(app: Any, client: Any,
                                                                                      fresh_app: Any) -> None:
    """The documented fallback: a void with no time is chained right after the event it voids."""
    api = build_night(client)
    nid = api.night["id"]
    with app.app_context():
        db.session.execute(update(Round).values(voided_at=None))
        db.session.execute(update(Payment).values(voided_at=None))
        db.session.commit()
        by_version.clear()
        chain = fp.night_chain(ledger.get_night(nid))
        assert [ev.body["at"] for ev in chain.events if ev.body["event"] == "void"] == [None, None]
    data, _facts = export_from(app, nid)
    assert data["fingerprint"] == chain.fingerprint
    made = fresh_app.test_client().post("/api/import", json=data)
    assert made.status_code == 201, made.get_json()
    with fresh_app.app_context():
        assert fp.fingerprint(ledger.get_night(made.get_json()["id"])) == data["fingerprint"]


def test_the_events_after_a_point_are_listed_in_words(client: Any) -> None:
    api = Api(client)
    api.new_night(["Anna", "Bo", "Cia", "Dan"])
    nid = api.night["id"]
    kul = api.new_match("svangknack", ["Anna", "Bo", "Cia", "Dan"], stake="3.00")["id"]
    for payload in ({"participants": ["Bo", "Dan"], "tricks": {"Bo": 2, "Dan": 1}},
                    {"participants": ["Cia", "Anna"], "tricks": {"Cia": 3, "Anna": 0}},
                    {"participants": ["Bo", "Dan"], "tricks": {"Bo": 2, "Dan": 1}}):
        ok(api.round(kul, payload))
    seen = ok(api.call("GET", f"/api/nights/{nid}"), 200)
    assert seen["events"] == 4
    ok(api.call("POST", f"/api/matches/{kul}/rounds/3/void", {"reason": "typo"}), 200)
    ok(api.call("POST", f"/api/matches/{kul}/close", {"pot": "split"}), 200)
    pay = ok(api.call("GET", f"/api/nights/{nid}/settlement"), 200)["transfers"][0]
    ok(api.call("POST", f"/api/nights/{nid}/payments", {"from": pay["from"], "to": pay["to"], "amount": "0.50"}))
    changed = ok(api.call("GET", f"/api/nights/{nid}/events?after={seen['events']}&since={seen['fingerprint']}",
                          headers={"Accept-Language": "en"}), 200)
    assert changed["known"] is True and changed["count"] == 7
    assert [(e["number"], e["event"]) for e in changed["events"]] == [(5, "void"), (6, "close"), (7, "payment")]
    assert changed["events"][0]["what"] == "Void of round 3 of match 1 (Svängknack)"
    assert changed["events"][1]["what"] == "Match 1 (Svängknack) closed"
    assert changed["events"][2]["what"] == f"Payment: {pay['from']} paid 0.50 to {pay['to']}"
    assert changed["events"][-1]["link"] == changed["fingerprint"]
    assert ok(api.call("GET", f"/api/nights/{nid}/events?after=4&since={'0' * 64}"), 200)["known"] is False
    status, bad = api.call("GET", f"/api/nights/{nid}/events?after=-1")
    assert (status, bad["field"]) == (400, "after")


def test_a_stale_chain_version_is_not_served(app: Any, client: Any) -> None:
    """The chain is kept per version of the night: the write after a read is seen at once."""
    api = Api(client)
    api.new_night(["Anna", "Bo", "Cia"])
    first = fingerprint(api)
    api.new_match("kul", ["Anna", "Bo", "Cia"], stake="1.00")
    with app.app_context():
        night = ledger.get_night(api.night["id"])
        assert exports.export_night(night)["fingerprint"] == fingerprint(api) != first
