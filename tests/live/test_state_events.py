"""``state`` events (``?match=<id>&state=1``): a phone following a match gets its new state in the stream.

Why they exist: a phone following a match fetched the whole page after every
change of it; with the state in the stream it shows the new numbers at once
and fetches the page less often (static/js/live.js, bench/tournament.py).
"""

from __future__ import annotations

import queue
from typing import Any

import pytest

from referee import ledger
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


def test_the_phones_of_a_match_share_one_read_of_its_state(live_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Four phones follow a table: its round's state is read once for all of them (the first stream reads it)."""
    client = live_app.test_client()
    api, _first, second = _two_matches(client)
    reads: list[int] = []
    real = ledger.state_json

    def counting(match: Any, state: Any = None) -> Any:
        if state is None:  # (the round's own answer passes the state it made: not a read)
            reads.append(match.id)
        return real(match, state)

    readers = [_follow(client, api, second) for _ in range(4)]
    monkeypatch.setattr(ledger, "state_json", counting)
    assert api.round(second, ROUND)[0] == 201
    got = [r.states.get(timeout=5) for r in readers]
    assert len({repr(g) for g in got}) == 1 and reads.count(second) == 1
