"""Driving a tournament through the JSON API (the Flask test client), as an organiser's script would."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import event

NINE = ["Anna", "Bo", "Cia", "Dan", "Eva", "Filip", "Greta", "Hugo", "Ida"]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(client: Any, **fields: Any) -> dict[str, Any]:
    body = {"name": "Klubbkväll", "currency": "SEK", "game": "schwimmen", "players": NINE, "table_size": 4,
            "series": 2, "stake": "1.00", "seed": "2026-11-27"} | fields
    resp = client.post("/api/tournaments", json=body)
    assert resp.status_code == 201, resp.get_json()
    return dict(resp.get_json())


def view(client: Any, tid: int, token: str) -> dict[str, Any]:
    resp = client.get(f"/api/tournaments/{tid}", headers=bearer(token))
    assert resp.status_code == 200, resp.get_json()
    return dict(resp.get_json())


#: One request of a table's leader: (method, path, JSON body or None) -> (status, JSON answer). The Flask test
#: client here; a real server's connection in ``tests/faults``.
Send = Callable[[str, str, Any], tuple[int, Any]]


def schwimmen_to_the_end(send: Send, table: dict[str, Any]) -> int:
    """Plays a Schwimmen table to its end: each game the last player still in loses a life; its last round."""
    for _ in range(100):
        status, match = send("GET", f"/api/matches/{table['match']}", None)
        assert status == 200, match
        state = match["state"]
        if state["finished"]:
            return int(max(r["round"] for r in match["rounds"] if not r["void"]))
        alive = [p for p in table["players"] if not state["players"][p]["out"]]
        status, answer = send("POST", f"/api/matches/{table['match']}/rounds",
                              {"ended_by": "knock", "by": alive[0], "losers": [alive[-1]]})
        assert status == 201, answer
    raise AssertionError("the table did not finish")


def play_schwimmen(client: Any, table: dict[str, Any], token: str) -> None:
    """:func:`schwimmen_to_the_end` through the Flask test client, with ``token``."""
    def send(method: str, path: str, body: Any) -> tuple[int, Any]:
        resp = client.open(path, method=method, json=body, headers=bearer(token))
        return resp.status_code, resp.get_json()

    schwimmen_to_the_end(send, table)


def close(client: Any, match: int, token: str) -> None:
    resp = client.post(f"/api/matches/{match}/close", headers=bearer(token), json={"pot": "split"})
    assert resp.status_code == 200, resp.get_json()


def statements(app: Any, client: Any, path: str, *, naming: str = "", **kw: Any) -> tuple[int, Any]:
    """The SQL statements the app runs to answer ``GET path`` (``before_cursor_execute``; only those whose text
    names ``naming``, when given), and the answer."""
    from referee.models import db

    seen: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if naming in statement:
            seen.append(statement)

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        resp = client.get(path, **kw)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    return len(seen), resp
