"""``state`` events (``?match=<id>&state=1``): a phone following a match gets its new state in the stream.

Why they exist: a phone following a match fetched the whole page after every
change of it; with the state in the stream it shows the new numbers at once
and fetches the page less often (static/js/live.js, bench/tournament.py).
"""

from __future__ import annotations

import json
import queue
import threading
from typing import Any

import pytest

from referee import ledger
from referee.ledger import live
from tests.live.sse import Reader
from tests.web.helpers import Api

ROUND = {"tricks": {"Anna": 1, "Bo": 1, "Cia": 1}}


def _two_matches(client: Any) -> tuple[Api, int, int]:
    api = Api(client)
    api.new_night(["Anna", "Bo", "Cia"])
    ids = [int(api.new_match("svangknack", ["Anna", "Bo", "Cia"], stake="3.00",
                             options={"forced_participation": "always"})["id"]) for _ in range(2)]
    return api, ids[0], ids[1]


def _follow(client: Any, api: Api, match_id: int, state: bool = True) -> Reader:
    query = f"view={api.night['view_token']}&match={match_id}" + ("&state=1" if state else "")
    reader = Reader(client.get(f"/api/nights/{api.night['id']}/live?{query}", buffered=False).response)
    reader.next()  # the opening event
    return reader


def test_a_change_of_the_match_comes_with_its_state_as_the_api_answers_it(live_app: Any) -> None:
    client = live_app.test_client()
    api, first, second = _two_matches(client)
    reader = _follow(client, api, second)
    assert api.round(first, ROUND)[0] == 201  # another table's round: neither its change nor a state
    assert api.round(second, ROUND)[0] == 201
    change = reader.next()
    state = reader.states.get(timeout=5)
    _status, shown = api.call("GET", f"/api/matches/{second}")
    assert change["match"] == second and state == {"match": second, "version": change["version"],
                                                   "state": shown["state"]}
    assert state["state"]["pot"] != "0.00" and reader.states.empty()
    # A night-wide change alone (a player joins) carries no state: the match did not change.
    assert api.call("POST", f"/api/nights/{api.night['id']}/players", {"name": "Dan"})[0] == 201
    assert reader.next()["what"] == "players"
    with pytest.raises(queue.Empty):
        reader.states.get(timeout=1)
    # A void moves the state back: its event carries the state after it.
    assert api.call("POST", f"/api/matches/{second}/rounds/1/void", {"reason": "misdeal"})[0] == 200
    void = reader.next()
    after = reader.states.get(timeout=5)
    assert void["what"] == "void" and after["version"] == void["version"]
    assert after["state"] == api.call("GET", f"/api/matches/{second}")[1]["state"] != state["state"]


def test_no_state_unless_asked_for(live_app: Any) -> None:
    client = live_app.test_client()
    api, _first, second = _two_matches(client)
    reader = _follow(client, api, second, state=False)
    assert api.round(second, ROUND)[0] == 201
    assert reader.next()["match"] == second
    with pytest.raises(queue.Empty):
        reader.states.get(timeout=1)


@pytest.mark.parametrize("told_max", [live.TOLD_MAX, 0], ids=["told", "too-large"])
def test_the_phones_of_a_match_share_one_read_of_its_state(live_app: Any, backend: str, told_max: int,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Four phones follow a table: its round's state is read once for all of them.

    On PostgreSQL the state comes with the round's notification and is not
    read at all, unless it is larger than a notification may carry.
    """
    monkeypatch.setattr(live, "TOLD_MAX", told_max)
    client = live_app.test_client()
    api, _first, second = _two_matches(client)
    reads: list[list[int]] = []
    real = ledger.stored_states_json

    def counting(engine: Any, match_ids: Any) -> Any:
        reads.append(list(match_ids))
        return real(engine, match_ids)

    monkeypatch.setattr(ledger, "stored_states_json", counting)
    readers = [_follow(client, api, second) for _ in range(4)]
    assert api.round(second, ROUND)[0] == 201
    got = [r.states.get(timeout=5) for r in readers]
    _status, shown = api.call("GET", f"/api/matches/{second}")
    assert all(g["state"] == shown["state"] for g in got) and len({repr(g) for g in got}) == 1
    told = backend.startswith("postgresql") and told_max > 0
    assert sum(ids.count(second) for ids in reads) == (0 if told else 1)


def test_the_hub_reads_the_changed_tables_states_in_one_go(live_app: Any) -> None:
    """The hub reads every followed table a batch of changes touched with one call, and keeps only theirs."""
    client = live_app.test_client()
    api, first, second = _two_matches(client)
    third = int(api.new_match("svangknack", ["Anna", "Bo", "Cia"], stake="3.00")["id"])
    with live_app.app_context():
        from referee.models import db

        ear = live.hub(db.engine)
    calls: list[list[int]] = []

    def counting(engine: Any, match_ids: Any) -> Any:
        if threading.get_ident() == here:  # (not the hub's own look at the matches' creation)
            calls.append(list(match_ids))
        return ledger.stored_states_json(engine, match_ids)

    here = threading.get_ident()
    for match_id in (first, second):
        ear.follow(match_id, counting)
    try:
        changes = [live.event_data(api.night["id"], m, "round", 1, v)
                   for v, m in enumerate((first, third, second, first), start=100)]
        ear._read_states(changes)
        assert calls == [[first, second]]
        read_at, night, text = ear.state(first, 103) or (0, 0, "")
        assert (read_at, night) == (103, api.night["id"]) and isinstance(json.loads(text), dict)
        assert ear.state(first, 104) is None and ear.state(third, 0) is None  # not read that new; not followed
    finally:
        for match_id in (first, second):
            ear.follow(match_id, counting, on=False)
    assert ear.state(second, 0) is None  # nobody follows it: its state is not kept
