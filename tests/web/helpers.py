"""Small helpers for driving the JSON API through the Flask test client."""

from __future__ import annotations

from decimal import Decimal
from typing import Any


class Api:
    """The JSON API of one night, as a client script would use it."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.token: str | None = None
        self.night: dict[str, Any] = {}

    def call(self, method: str, path: str, body: Any = None, token: str | None = "default",
             headers: dict[str, str] | None = None, raw: bytes | None = None) -> tuple[int, Any]:
        hdrs = dict(headers or {})
        tok = self.token if token == "default" else token
        if tok:
            hdrs["Authorization"] = f"Bearer {tok}"
        if raw is not None:
            resp = self.client.open(path, method=method, data=raw, headers=hdrs,
                                    content_type="application/json")
        else:
            resp = self.client.open(path, method=method, json=body, headers=hdrs)
        return resp.status_code, resp.get_json(silent=True)

    def new_night(self, players: list[str], currency: str = "SEK", **extra: Any) -> dict[str, Any]:
        status, body = self.call("POST", "/api/nights",
                                 {"name": "Test night", "currency": currency, "players": players, **extra},
                                 token=None)
        assert status == 201, body
        self.night = body
        self.token = body["edit_token"]
        return body

    def new_match(self, game: str, players: list[str], stake: str | None = None, dealer: str | None = None,
                  options: dict[str, Any] | None = None) -> dict[str, Any]:
        payload: dict[str, Any] = {"game": game, "players": players, "dealer": dealer or players[0],
                                   "options": options or {}}
        if stake is not None:
            payload["stake"] = stake
        status, body = self.call("POST", f"/api/nights/{self.night['id']}/matches", payload)
        assert status == 201, body
        return body

    def round(self, match_id: int, payload: dict[str, Any], **kw: Any) -> tuple[int, Any]:
        return self.call("POST", f"/api/matches/{match_id}/rounds", payload, **kw)

    def match(self, match_id: int) -> dict[str, Any]:
        status, body = self.call("GET", f"/api/matches/{match_id}")
        assert status == 200, body
        return body


def dec(value: str) -> Decimal:
    assert isinstance(value, str), value
    return Decimal(value)
