"""Idempotency keys bound to their first request, and one replay rule for every write (issues 25.1, 31.3).

On SQLite and PostgreSQL: a key sent again with the same request answers
the first answer (status and body) with ``Idempotent-Replayed: true`` and
changes nothing; the same key with another body, path or credential is a
422 that never shows the first answer; a key longer than 100 characters is
refused, never cut. The race of one key sent at once is in
``tests/faults/test_idempotency_race.py`` (real gunicorn, threads).
"""

from __future__ import annotations

from typing import Any

from referee.models import IdempotentReply, Night, db
from tests.web.helpers import Api

NIGHT = {"name": "Keys", "currency": "SEK", "players": ["Anna", "Bo", "Cia"]}


def _post(api: Api, path: str, body: Any, key: str, token: str | None = "default") -> tuple[int, Any, str | None]:
    hdrs = {"Idempotency-Key": key}
    tok = api.token if token == "default" else token
    if tok:
        hdrs["Authorization"] = f"Bearer {tok}"
    resp = api.client.post(path, json=body, headers=hdrs)
    return resp.status_code, resp.get_json(silent=True), resp.headers.get("Idempotent-Replayed")


def _replayed(api: Api, path: str, body: Any, key: str, status: int) -> Any:
    """``body`` sent twice with ``key``: the first answer twice, the second marked as a replay."""
    first = _post(api, path, body, key)
    again = _post(api, path, body, key)
    assert first[0] == status, first
    assert first[2] is None and again[2] == "true"
    assert again[:2] == first[:2]
    return first[1]


def test_a_key_with_another_body_never_hands_out_the_first_night(client: Any, app: Any) -> None:
    api = Api(client)
    first = _post(api, "/api/nights", NIGHT, "K", token=None)
    assert first[0] == 201
    stranger = _post(api, "/api/nights", NIGHT | {"name": "Mine"}, "K", token=None)
    assert stranger[0] == 422 and stranger[1]["field"] == "Idempotency-Key"
    assert "another request" in stranger[1]["error"]
    assert first[1]["edit_token"] not in str(stranger[1]) and first[1]["group_token"] not in str(stranger[1])
    # the same body with a credential, or the same key on another path: another request too
    assert _post(api, "/api/nights", NIGHT, "K", token=first[1]["edit_token"])[0] == 422
    export = client.get(f"/api/nights/{first[1]['id']}/export.json?view={first[1]['view_token']}").get_json()
    assert _post(api, "/api/import", export, "K", token=None)[0] == 422
    with app.app_context():
        assert db.session.query(Night).count() == 1


def test_import_key_bound_to_its_file(client: Any) -> None:
    api = Api(client)
    night = api.new_night(["Anna", "Bo"])
    export = client.get(f"/api/nights/{night['id']}/export.json?view={night['view_token']}").get_json()
    made = _replayed(api, "/api/import", export, "imp-1", 201)
    other = dict(export, night=dict(export["night"], name="Other"))
    status, body, _ = _post(api, "/api/import", other, "imp-1", token=None)
    assert status == 422 and made["edit_token"] not in str(body)


def test_every_write_replays_its_first_answer(client: Any) -> None:
    api = Api(client)
    api.token = None
    night = _replayed(api, "/api/nights", NIGHT, "n-1", 201)
    api.token = night["edit_token"]
    nid = night["id"]
    match = _replayed(api, f"/api/nights/{nid}/matches", {"game": "kul", "players": NIGHT["players"],
                                                         "stake": "1.00"}, "m-1", 201)
    mid = match["id"]
    first = _replayed(api, f"/api/matches/{mid}/rounds", {"last_trick": "Anna"}, "r-1", 201)
    assert first["round"] == 1
    _replayed(api, f"/api/matches/{mid}/rounds", {"last_trick": "Bo"}, "r-2", 201)
    # a replay is the first answer even after the match moved on
    assert _post(api, f"/api/matches/{mid}/rounds", {"last_trick": "Anna"}, "r-1")[1] == first
    _replayed(api, f"/api/matches/{mid}/rounds/2/void", {"reason": "misdealt"}, "v-1", 200)
    _replayed(api, f"/api/matches/{mid}/close", {"pot": "award", "to": "Anna"}, "c-1", 200)
    owes = api.call("GET", f"/api/nights/{nid}/settlement")[1]["transfers"][0]
    _replayed(api, f"/api/nights/{nid}/payments", {"from": owes["from"], "to": owes["to"], "amount": "0.10"},
              "p-1", 201)
    assert len(api.match(mid)["rounds"]) == 3  # two rounds and the close, once each
    settled = api.call("GET", f"/api/nights/{nid}/settlement")[1]
    assert len(settled["payments"]) == 1


def test_a_key_is_bound_to_its_path_and_body(client: Any) -> None:
    api = Api(client)
    api.new_night(NIGHT["players"])
    mid = api.new_match("kul", NIGHT["players"], stake="1.00")["id"]
    assert _post(api, f"/api/matches/{mid}/rounds", {"last_trick": "Anna"}, "x-1")[0] == 201
    status, body, _ = _post(api, f"/api/matches/{mid}/rounds", {"last_trick": "Bo"}, "x-1")
    assert status == 422 and body["field"] == "Idempotency-Key"
    assert _post(api, f"/api/matches/{mid}/close", {"pot": "split"}, "x-1")[0] == 422
    assert len(api.match(mid)["rounds"]) == 1


def test_a_long_key_is_refused_everywhere_never_cut(client: Any, app: Any) -> None:
    api = Api(client)
    api.new_night(NIGHT["players"])
    mid = api.new_match("kul", NIGHT["players"], stake="1.00")["id"]
    long_key = "k" * 101
    for path, body in ((f"/api/matches/{mid}/rounds", {"last_trick": "Anna"}),
                       (f"/api/nights/{api.night['id']}/matches", {"game": "kul", "players": ["Anna", "Bo"]}),
                       ("/api/nights", NIGHT)):
        status, answer, _ = _post(api, path, body, long_key)
        assert status == 400 and answer["field"] == "Idempotency-Key", (path, answer)
    assert api.match(mid)["rounds"] == []
    with app.app_context():
        assert db.session.query(IdempotentReply).count() == 0


def test_a_page_form_key_is_bound_to_its_fields(client: Any, app: Any) -> None:
    """The pages' ``form_token`` goes the same way: a resend counts once, other fields with it are refused."""
    from tests.web.test_pages import create_match, create_night, round_form

    match_id = create_match(client, create_night(client))
    form = round_form(client, match_id) | {"form_token": "page-key-1"}
    assert client.post(f"/matches/{match_id}/rounds", data=form).status_code == 302
    assert client.post(f"/matches/{match_id}/rounds", data=form).status_code == 302  # resent: counted once
    other = form | {"note": "another tap"}  # any other field makes it another request
    refused = client.post(f"/matches/{match_id}/rounds", data=other)
    assert refused.status_code == 422 and "another request" in refused.get_data(as_text=True)
    long_key = client.post(f"/matches/{match_id}/rounds", data=form | {"form_token": "f" * 101})
    assert long_key.status_code == 422
    with app.app_context():
        from referee.models import Round

        assert db.session.query(Round).filter_by(match_id=match_id).count() == 1


def test_player_payment_void_and_carry_replay_too(client: Any) -> None:
    api = Api(client)
    night = api.new_night(["Anna", "Bo"])
    nid = night["id"]
    _replayed(api, f"/api/nights/{nid}/players", {"name": "Cia"}, "pl-1", 201)
    mid = api.new_match("kul", ["Anna", "Bo", "Cia"], stake="1.00")["id"]
    assert api.round(mid, {"last_trick": "Anna"})[0] == 201
    assert api.call("POST", f"/api/matches/{mid}/close", {"pot": "award", "to": "Anna"})[0] == 200
    status, paid = api.call("POST", f"/api/nights/{nid}/payments", {"from": "Bo", "to": "Anna", "amount": "0.10"})
    assert status == 201
    _replayed(api, f"/api/nights/{nid}/payments/{paid['payment']['id']}/void", {"reason": "typo"}, "pv-1", 200)
    later = api.call("POST", "/api/nights", {"name": "Later", "currency": "SEK", "players": ["Anna"],
                                             "group_token": night["group_token"]}, token=None)[1]
    carried = _replayed(api, f"/api/nights/{nid}/carry", {"to_night": later["id"]}, "ca-1", 200)
    assert carried["settlement"]["carried_out"]
