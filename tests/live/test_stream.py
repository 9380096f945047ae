"""The live stream in process (Flask test client), on SQLite and PostgreSQL: API.md "Live"."""

from __future__ import annotations

import queue
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_app
from tests.live.sse import Reader
from tests.web.helpers import Api

ROUND = {"tricks": {"Anna": 1, "Bo": 1, "Cia": 1}}




def _night(client: Any) -> tuple[Api, dict[str, Any]]:
    api = Api(client)
    api.new_night(["Anna", "Bo", "Cia", "Dan"])
    match = api.new_match("svangknack", ["Anna", "Bo", "Cia"], stake="3.00",
                          options={"forced_participation": "always"})
    return api, match


def _open(client: Any, night_id: int, token: str | None, last: int | None = None) -> Any:
    headers = {"Last-Event-ID": str(last)} if last is not None else {}
    query = f"?view={token}" if token else ""
    return client.get(f"/api/nights/{night_id}/live{query}", headers=headers, buffered=False)


def test_no_token_401_wrong_token_403(live_app: Any) -> None:
    client = live_app.test_client()
    api, _match = _night(client)
    nid = api.night["id"]
    assert _open(client, nid, None).status_code == 401
    assert _open(client, nid, "not-the-token").status_code == 403
    assert _open(client, 999_999, api.night["view_token"]).status_code == 404


def test_opening_event_then_one_event_per_write(live_app: Any) -> None:
    client = live_app.test_client()
    api, match = _night(client)
    nid = api.night["id"]
    resp = _open(client, nid, api.night["view_token"])
    assert resp.status_code == 200 and resp.mimetype == "text/event-stream"
    reader = Reader(resp.response)
    opening = reader.next()
    # The night was created, a match started: version 1 (the match).
    assert opening == {"id": "1", "night": nid, "match": None, "what": "night", "round_no": None, "version": 1}
    assert api.round(match["id"], ROUND)[0] == 201
    assert reader.next() == {"id": "2", "night": nid, "match": match["id"], "what": "round", "round_no": 1,
                             "version": 2}
    status, _body = api.call("POST", f"/api/matches/{match['id']}/rounds/1/void", {"reason": "misdeal"})
    assert status == 200
    assert reader.next()["what"] == "void"
    assert api.call("POST", f"/api/nights/{nid}/players", {"name": "Eva"})[0] == 201
    event = reader.next()
    assert (event["what"], event["match"], event["version"]) == ("players", None, 4)
    assert api.call("POST", f"/api/matches/{match['id']}/close", {"pot": "split"})[0] == 200
    event = reader.next()
    assert (event["what"], event["match"], event["round_no"], event["version"]) == ("close", match["id"], 2, 5)
    # A rejected write changes nothing, so it tells nothing.
    assert api.round(match["id"], ROUND)[0] in (409, 422)
    with pytest.raises(queue.Empty):
        reader.next(timeout=1.0)
    assert "ping" in reader.comments


def test_a_dropped_connection_resumes_with_what_it_missed(live_app: Any) -> None:
    client = live_app.test_client()
    api, match = _night(client)
    nid = api.night["id"]
    resp = _open(client, nid, api.night["edit_token"])
    reader = Reader(resp.response)
    assert reader.next()["version"] == 1
    assert api.round(match["id"], ROUND)[0] == 201
    last = reader.next()
    assert last["version"] == 2
    # The phone goes into a tunnel (the old stream is simply abandoned), writes go on, it comes back.
    for _ in range(3):
        assert api.round(match["id"], ROUND)[0] == 201
    again = Reader(_open(client, nid, api.night["view_token"], last=int(last["id"])).response)
    missed = [again.next() for _ in range(3)]
    assert [(e["what"], e["round_no"], e["version"]) for e in missed] == [
        ("round", 2, 3), ("round", 3, 4), ("round", 4, 5)]
    # An id the server cannot account for (from another database, or the future): one event with the state.
    odd = Reader(_open(client, nid, api.night["view_token"], last=99).response)
    assert odd.next() == {"id": "5", "night": nid, "match": None, "what": "night", "round_no": None, "version": 5}


def test_a_view_token_never_hears_edit_only_data(live_app: Any) -> None:
    client = live_app.test_client()
    api, match = _night(client)
    nid = api.night["id"]
    reader = Reader(_open(client, nid, api.night["view_token"]).response)
    reader.next()
    assert api.round(match["id"], ROUND)[0] == 201
    status, body = api.call("POST", f"/api/nights/{nid}/revoke")
    assert status == 200
    reader.next()
    text = "\n".join(reader.raw)
    for secret in (api.night["edit_token"], body["edit_token"], api.night["view_token"]):
        assert secret not in text
    for block in reader.raw:
        for line in block.split("\n"):
            assert line.split(":", 1)[0] in ("retry", "id", "event", "data", ""), line


def test_the_stream_ends_after_its_lifetime_with_a_retry_hint(backend: str, tmp_path: Path) -> None:
    application = make_app(backend, tmp_path, LIVE_LIFETIME=0.5, LIVE_PING=0.2)
    client = application.test_client()
    api, _match = _night(client)
    reader = Reader(_open(client, api.night["id"], api.night["view_token"]).response)
    assert reader.ended.wait(5), "the stream must end by itself"
    assert reader.raw[0].startswith("retry: ")
    from referee.models import db

    with application.app_context():
        db.engine.dispose()


def test_match_filter_sends_that_match_and_night_wide_changes(live_app: Any) -> None:
    client = live_app.test_client()
    api, first = _night(client)
    nid = api.night["id"]
    second = api.new_match("svangknack", ["Anna", "Bo", "Cia"], stake="3.00",
                           options={"forced_participation": "always"})
    resp = client.get(f"/api/nights/{nid}/live?view={api.night['view_token']}&match={second['id']}",
                      buffered=False)
    reader = Reader(resp.response)
    assert reader.next()["version"] == 2
    assert api.round(first["id"], ROUND)[0] == 201  # version 3: another match, not sent
    assert api.round(second["id"], ROUND)[0] == 201  # version 4
    assert api.call("POST", f"/api/nights/{nid}/players", {"name": "Eva"})[0] == 201  # version 5, night-wide
    got = [reader.next(), reader.next()]
    assert [(e["match"], e["what"], e["version"]) for e in got] == [(second["id"], "round", 4), (None, "players", 5)]
