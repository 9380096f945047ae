"""The deal log of a round (issue 12): stored with the round, listed, printed, exported; on both backends.

A round entered from the trick referee (the page's one tap, or ``deal`` on
``POST /api/matches/<id>/rounds``) keeps its deal (trump, players, leader,
tricks, winners) in the round's own row. The server judges the deal again:
a broken rule is a 422 with the rule, a deal whose verdict is not the posted
round a 400 with field ``deal``, and in both cases nothing is stored.
"""

from __future__ import annotations

import csv
import io
import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from flask_migrate import upgrade
from sqlalchemy import text

from referee import create_app, exports, ledger
from referee.engine import BadInput, RuleViolation
from referee.models import db
from tests.components import PostgresServer
from tests.conftest import make_app
from tests.pdf_helpers import pdf_text
from tests.web.helpers import Api

SK_TRICKS = [["AS", "KS", "2S"], ["5H", "9H", "QH"], ["3D", "4C", "7D"]]  # led by Bo; Bo, Anna, Cia win
SK_DEAL = {"trump": "H", "players": ["Anna", "Bo", "Cia"], "leader": "Bo", "tricks": SK_TRICKS}
KUL_DEAL = {"players": ["Anna", "Bo", "Cia"], "leader": "Bo",
            "tricks": [["8S", "AS", "5S"], ["5H", "9H", "4H"], ["8D", "QD", "8C"], ["KS", "10H", "KH"],
                       ["AC", "6C", "5D"]]}
SL_DEAL = {"trump": "H", "players": ["Anna", "Bo", "Cia"], "leader": "Bo",
           "tricks": [["QC", "8H", "6C"], ["JS", "JH", "QS"], ["7S", "6D", "9C"], ["8C", "6H", "JC"],
                      ["10C", "AD", "AH"], ["AS", "7D", "QD"]]}


def _night(client: Any, game: str) -> tuple[Api, int]:
    api = Api(client)
    api.new_night(["Anna", "Bo", "Cia"])
    match = api.new_match(game, ["Anna", "Bo", "Cia"], stake="3.00", dealer="Anna")
    return api, int(match["id"])


def _hidden(page: str, name: str) -> str:
    found = re.search(rf'name="{name}"[^>]*value="([^"]*)"', page) or re.search(
        rf'value="([^"]*)"[^>]*name="{name}"', page)
    assert found, name
    return found.group(1)


def _protocol(client: Any, api: Api, match_id: int) -> str:
    resp = client.get(f"/matches/{match_id}/protocol.pdf?view={api.night['view_token']}")
    assert resp.status_code == 200 and resp.mimetype == "application/pdf"
    return pdf_text(resp.data)


def test_one_tap_stores_the_deal_once_and_the_protocol_prints_it(client: Any, artifacts: Path) -> None:
    api, match_id = _night(client, "svangknack")
    client.get(f"/e/{api.token}")
    page = client.get(f"/referee/tricks/svangknack?match={match_id}").get_data(as_text=True)
    fields = {"form_token": _hidden(page, "form_token"), "expected_seq": _hidden(page, "expected_seq"),
              "players": "Anna, Bo, Cia", "leader": "Bo", "trump": "h",
              "deal": " / ".join(" ".join(t) for t in SK_TRICKS)}
    for _ in range(2):  # a double tap: the same form token counts once
        assert client.post(f"/matches/{match_id}/rounds/deal", data=fields).status_code == 302
    rounds = api.match(match_id)["rounds"]
    assert len(rounds) == 1
    verdict = client.post("/api/referee/tricks", json={"game": "svangknack", **SK_DEAL}).get_json()
    # The stored round is the verdict's round (the deal's leader as svängare), the deal its canonical log.
    assert rounds[0]["payload"] == {"svangare": "Bo", **verdict["round"], "redeal": False}
    assert rounds[0]["deal"] == {**SK_DEAL, "winners": ["Bo", "Anna", "Cia"]} == {**SK_DEAL,
                                                                                  "winners": verdict["winners"]}
    pdf = client.get(f"/matches/{match_id}/protocol.pdf?view={api.night['view_token']}").data
    (artifacts / "protocol-svangknack-deal.pdf").write_bytes(pdf)
    found = pdf_text(pdf)
    assert "Deal · trump ♥ · led by Bo: 1. Bo A♠, Cia K♠, Anna 2♠ → Bo · 2. Bo 5♥, Cia 9♥, Anna Q♥ → Anna · " \
           "3. Anna 3♦, Bo 4♣, Cia 7♦ → Cia" in found
    # The match page shows it under its round in the history, folded, in the protocol's words.
    assert _deal_logs(client.get(f"/matches/{match_id}").get_data(as_text=True)) == [
        "Deal · trump ♥ · led by Bo 1. Bo A♠, Cia K♠, Anna 2♠ → Bo 2. Bo 5♥, Cia 9♥, Anna Q♥ → Anna "
        "3. Anna 3♦, Bo 4♣, Cia 7♦ → Cia"]


def _deal_logs(page: str) -> list[str]:
    """The deal logs of a match page's history, as text."""
    logs = re.findall(r'<details class="deal-log">(.*?)</details>', page, re.S)
    return [" ".join(re.sub(r"<[^>]+>", " ", log).split()).replace(" ,", ",") for log in logs]


def test_api_round_with_a_deal_kul_and_schloapfer_in_the_protocol(client: Any) -> None:
    for game, deal, payload in (("kul", KUL_DEAL, {"last_trick": "Bo"}),
                                ("schloapfer", SL_DEAL, {"eyes": {"Anna": 71, "Bo": 2, "Cia": 3}})):
        api, match_id = _night(client, game)
        status, body = api.round(match_id, {**payload, "deal": deal})
        assert status == 201, body
        stored = api.match(match_id)["rounds"][0]
        assert stored["payload"] == payload and stored["deal"]["tricks"] == deal["tricks"]
        found = _protocol(client, api, match_id)
        if game == "kul":
            assert "Deal · led by Bo: 1. Bo 8♠, Cia A♠, Anna 5♠ → Cia" in found
            assert "5. Bo A♣, Cia 6♣, Anna 5♦ → Bo" in found
        else:
            assert "Deal · trump ♥ · led by Bo: 1. Bo Q♣, Cia 8♥, Anna 6♣ → Cia" in found
            assert "6. Anna A♠, Bo 7♦, Cia Q♦ → Anna" in found
    # a round without a deal lists deal null
    api, match_id = _night(client, "kul")
    assert api.round(match_id, {"last_trick": "Cia"})[0] == 201
    assert api.match(match_id)["rounds"][0]["deal"] is None
    client.get(f"/v/{api.night['view_token']}")
    page = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert 'id="round-1"' in page and _deal_logs(page) == []


def test_bad_deals_are_refused_with_nothing_stored(client: Any) -> None:
    api, match_id = _night(client, "svangknack")
    good = {"participants": ["Anna", "Bo", "Cia"], "tricks": {"Anna": 1, "Bo": 1, "Cia": 1}}
    illegal = {**SK_DEAL, "tricks": [["9S", "5S", "2S"], ["AD", "KS", "QD"], ["3D", "4D", "5D"]]}
    status, body = api.round(match_id, {**good, "deal": illegal})
    assert status == 422 and body["rule"] == "SK-15", body
    status, body = api.round(match_id, {"participants": ["Anna", "Bo", "Cia"], "tricks": {"Bo": 2, "Cia": 1},
                                        "deal": SK_DEAL})
    assert status == 400 and body["field"] == "deal", body
    status, body = api.round(match_id, {**good, "svangare": "Cia", "deal": SK_DEAL})
    assert status == 400 and body["field"] == "deal", body  # the deal's leader is the svängare
    status, body = api.round(match_id, {**good, "deal": {**SK_DEAL, "tricks": SK_TRICKS[:2]}})
    assert status == 400 and body["field"] == "deal", body  # not complete
    status, body = api.round(match_id, {**good, "deal": {**SK_DEAL, "winners": ["Bo", "Bo", "Bo"]}})
    assert status == 400 and body["field"] == "deal.winners", body
    status, body = api.round(match_id, {**good, "deal": {**SK_DEAL, "ask": {"player": "Bo", "card": "AS"}}})
    assert status == 400 and body["field"] == "deal", body
    status, body = api.round(match_id, {**good, "deal": {**SK_DEAL, "tricks": [["AS", "AS", "2S"]]}})
    assert status == 400 and body["field"] == "deal.tricks", body
    assert api.round(match_id, {**good, "deal": "AS KS"})[1]["field"] == "deal"
    assert api.match(match_id)["rounds"] == []
    sw = int(api.new_match("schwimmen", ["Anna", "Bo", "Cia"], stake="1.00")["id"])
    status, body = api.round(sw, {"ended_by": "knock", "by": "Bo", "losers": ["Cia"], "deal": SK_DEAL})
    assert status == 400 and body["field"] == "deal" and api.match(sw)["rounds"] == []


def test_idempotency_and_expected_round_keep_working(client: Any) -> None:
    api, match_id = _night(client, "svangknack")
    body = {"participants": ["Anna", "Bo", "Cia"], "tricks": {"Anna": 1, "Bo": 1, "Cia": 1}, "deal": SK_DEAL}
    key = {"Idempotency-Key": uuid.uuid4().hex}
    assert api.round(match_id, body, headers={**key, "Expected-Round": "1"})[0] == 201
    assert api.round(match_id, body, headers={**key, "Expected-Round": "1"})[0] == 201  # a retry: the first answer
    assert api.round(match_id, body, headers={"Expected-Round": "1"})[0] == 409  # stale view
    rounds = api.match(match_id)["rounds"]
    assert len(rounds) == 1 and rounds[0]["deal"]["winners"] == ["Bo", "Anna", "Cia"]


def test_export_import_keeps_the_deal(app: Any, client: Any, backend: str, tmp_path: Path,
                                      postgres: PostgresServer | None) -> None:
    api, match_id = _night(client, "kul")
    assert api.round(match_id, {"last_trick": "Bo", "deal": KUL_DEAL})[0] == 201
    assert api.round(match_id, {"last_trick": "Anna"})[0] == 201
    with app.app_context():
        data = json.loads(json.dumps(exports.export_night(ledger.get_night(api.night["id"]))))
    rounds = data["matches"][0]["rounds"]
    assert rounds[0]["deal"]["winners"] == ["Cia", "Anna", "Bo", "Bo", "Bo"] and "deal" not in rounds[1]
    with app.app_context():  # the spreadsheet export has it too, in the round's row
        sheet = list(csv.DictReader(io.StringIO(exports.export_csv(ledger.get_night(api.night["id"])))))
    deals = [r["deal"] for r in sheet if r["type"] == "round"]
    assert json.loads(deals[0]) == rounds[0]["deal"] and deals[1] == ""
    assert all(r["deal"] == "" for r in sheet if r["type"] != "round")
    if backend.startswith("sqlite"):
        url = f"sqlite:///{tmp_path / 'imported.sqlite3'}"
    else:
        assert postgres is not None
        url = postgres.create_database(f"import_{uuid.uuid4().hex[:12]}")
    other = make_app(url, tmp_path)
    try:
        with other.app_context():
            tampered = json.loads(json.dumps(data))
            tampered["matches"][0]["rounds"][0]["payload"] = {"last_trick": "Cia"}
            try:
                exports.import_night(tampered)
                raise AssertionError("a round that is not its deal's verdict was imported")
            except BadInput as exc:
                assert exc.field == "matches[0].rounds[0].deal"
            cheat = json.loads(json.dumps(data))
            cheat["matches"][0]["rounds"][0]["deal"]["tricks"][0] = ["8S", "AC", "5S"]
            cheat["matches"][0]["rounds"][0]["deal"]["tricks"][4] = ["AS", "6C", "5D"]
            try:
                exports.import_night(cheat)
                raise AssertionError("an illegal deal was imported")
            except RuleViolation as exc:
                assert exc.rule == "KU-3"
            night_id = exports.import_night(data).id
        with other.app_context():
            again = exports.export_night(ledger.get_night(night_id))
            assert again["matches"] == data["matches"]
            old = json.loads(json.dumps(data))  # an export written before deals were stored
            del old["matches"][0]["rounds"][0]["deal"]
            assert exports.import_night(old).matches[0].rounds[0].deal is None
    finally:
        with other.app_context():
            db.session.remove()
            db.engine.dispose()


def test_migration_adds_the_deal_to_an_old_database(backend: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A round stored before the deal column keeps its payload (no deal); new rounds store theirs."""
    from referee.engine.records import dump
    from referee.ledger import matches

    app = create_app({"SQLALCHEMY_DATABASE_URI": backend, "TESTING": True, "SECRET_KEY": "t",
                      "INSTANCE_PATH": str(tmp_path)})
    with app.app_context():
        upgrade(revision="7d3e2b9c4a10")
        # Today's code on the old schema: the night's bounds count a tournament's tables to come, a table that
        # schema has not yet; the old night is made without that check (the rounds are what is tested here).
        # Today's Night row also has its language (issue 42.7), a column the old schema has not yet: lent to the
        # old table for the night's INSERT, taken back before the upgrade adds it.
        with db.engine.begin() as conn:
            conn.execute(text("ALTER TABLE nights ADD COLUMN language VARCHAR(5)"))
        with monkeypatch.context() as old_schema:
            old_schema.setattr(matches, "check_night_room", lambda *_a, **_k: None)
            night = ledger.create_night("Old", "SEK", ["Anna", "Bo", "Cia"])
            match_id = ledger.create_match(night, "kul", ["Anna", "Bo", "Cia"], "Anna", "3.00", {}).id
        db.session.remove()
        with db.engine.begin() as conn:
            conn.execute(text("ALTER TABLE nights DROP COLUMN language"))
        with db.engine.begin() as conn:  # a round as the old schema stored it (no deal column)
            conn.execute(text("INSERT INTO rounds (match_id, seq, kind, payload, created_at, void, void_reason) "
                              "VALUES (:m, 1, 'round', :p, CURRENT_TIMESTAMP, :f, '')"),
                         {"m": match_id, "p": json.dumps({"last_trick": "Cia"}), "f": False})
        db.session.remove()
        upgrade()
        state = ledger.replay(ledger.get_match(match_id))
        with db.engine.begin() as conn:
            conn.execute(text("UPDATE snapshots SET version = 1, next_seq = 2, state = :s WHERE match_id = :m"),
                         {"s": json.dumps(dump(state)), "m": match_id})
        db.session.remove()
        rnd, _state = ledger.add_round(match_id, {"last_trick": "Bo"}, deal=KUL_DEAL)
        assert rnd.seq == 2
        db.session.remove()
        listed = ledger.match_json(ledger.get_match(match_id))["rounds"]
        assert [(r["payload"], r["deal"] is None) for r in listed] == [({"last_trick": "Cia"}, True),
                                                                       ({"last_trick": "Bo"}, False)]
        assert listed[1]["deal"]["winners"][-1] == "Bo"
        db.session.remove()
        db.engine.dispose()
