"""Deeply nested JSON is a 400 before it is parsed, on every API write and the Knaker referee's form (issue 25.10)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from referee.json_depth import MAX_DEPTH, TooDeep, check_depth, loads
from tests.web.helpers import Api

DEEP = "[" * 10_000 + "]" * 10_000


def test_depth_is_counted_outside_strings() -> None:
    check_depth("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    check_depth('{"a": "' + "[" * 1000 + '"}')  # brackets in a string are text
    check_depth(b'["\\"[[[[", ' + b"[" * 20 + b"]" * 20 + b"]")  # an escaped quote does not end the string
    with pytest.raises(TooDeep):
        check_depth("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    with pytest.raises(TooDeep):
        loads(DEEP)
    assert loads('{"a": [[1]]}') == {"a": [[1]]}


def _filled(rule: str, ids: dict[str, Any]) -> str:
    return re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(ids[m.group(1)]), rule)


def test_every_api_write_refuses_deep_json(app: Any, client: Any) -> None:
    api = Api(client)  # a tournament's night (a night like any other), so that its routes have real ids too
    status, night = api.call("POST", "/api/tournaments", {
        "name": "Deep", "currency": "SEK", "game": "kul", "players": ["Anna", "Bo", "Cecilia"], "table_size": 3,
        "stake": "1.00"}, token=None)
    assert status == 201, night
    api.night, api.token = night | {"id": night["night"]}, night["edit_token"]
    match = api.new_match("knaker", ["Anna", "Bo", "Cecilia"], stake="1")
    ids = {"night_id": night["night"], "match_id": match["id"], "seq": 1, "payment_id": 1, "name": "Anna",
           "group_token": night["group_token"], "game": "kul", "tournament_id": night["id"]}
    rules = [r.rule for r in app.url_map.iter_rules() if r.rule.startswith("/api/") and "POST" in (r.methods or ())
             and not r.rule.endswith(("/revoke", "/next", "/withdraw"))]  # the writes without a body (they read none)
    assert len(rules) > 10
    for rule in rules:
        status, body = api.call("POST", _filled(rule, ids), raw=DEEP.encode())
        assert status == 400, (rule, status, body)
        assert "nested deeper" in body["error"], rule


def test_knaker_referee_form_refuses_deep_history(client: Any) -> None:
    resp = client.post("/referee/knaker", data={"history": DEEP, "pile": "", "lays": ""})
    assert resp.status_code == 400
