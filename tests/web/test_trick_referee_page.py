"""The trick referee page without JavaScript, and its one-tap round entry (issue 12), on both backends.

The page answers a posted deal with the engine's verdict (SK-15 named); from a match it fills in the
players and the leader only for phones with a right to that night; a complete legal deal is entered as
the match's round exactly once (the one-time form token), an incomplete or illegal one is refused with
nothing stored, and a view-only phone cannot enter one.
"""

from __future__ import annotations

import re
from typing import Any

from tests.web.helpers import Api

DEAL = "AS KS 2S / 5H 9H QH / 3D 4C 7D"  # Bo, Cia, Anna; Bo, Cia, Anna (Anna wins); Anna, Bo, Cia


def _setup(client: Any) -> tuple[Api, int]:
    api = Api(client)
    api.new_night(["Anna", "Bo", "Cia"])
    match = api.new_match("svangknack", ["Anna", "Bo", "Cia"], stake="3.00", dealer="Anna")
    return api, int(match["id"])


def _hidden(page: str, name: str) -> str:
    found = re.search(rf'name="{name}"[^>]*value="([^"]*)"', page) or re.search(
        rf'value="([^"]*)"[^>]*name="{name}"', page)
    assert found, name
    return found.group(1)


def _rounds(api: Api, match_id: int) -> list[Any]:
    return [r for r in api.match(match_id)["rounds"] if not r.get("void")]


def test_posted_deal_is_judged_with_the_rule(client: Any) -> None:
    page = client.post("/referee/tricks/svangknack", data={
        "players": "Anna, Bo, Cia", "leader": "Anna", "trump": "H", "deal": "9S 5S 2S / AD KS"}).get_data(as_text=True)
    assert 'id="tr-rule">SK-15<' in page
    assert "Bo had to beat nine of spades with king of spades" in page
    page = client.post("/referee/tricks/kul", data={
        "players": "Anna, Bo", "leader": "Anna", "deal": "9S 9S"}).get_data(as_text=True)
    assert 'id="tr-error"' in page and "9S" in page  # a card twice: the engine's 400 message
    assert client.get("/referee/tricks/poker").status_code == 404


def test_match_defaults_only_for_phones_with_a_right(client: Any, app: Any) -> None:
    api, match_id = _setup(client)
    client.get(f"/e/{api.token}")
    page = client.get(f"/referee/tricks/svangknack?match={match_id}").get_data(as_text=True)
    assert 'value="Anna, Bo, Cia"' in page and 'id="tr-leader" value="Bo"' in page
    outsider = app.test_client()
    page = outsider.get(f"/referee/tricks/svangknack?match={match_id}").get_data(as_text=True)
    assert "Cia" not in page and "tr-enter" not in page


def test_one_tap_enters_the_round_once(client: Any, app: Any) -> None:
    api, match_id = _setup(client)
    client.get(f"/e/{api.token}")
    page = client.get(f"/referee/tricks/svangknack?match={match_id}").get_data(as_text=True)
    fields = {"form_token": _hidden(page, "form_token"), "expected_seq": _hidden(page, "expected_seq"),
              "players": "Anna, Bo, Cia", "leader": "Bo", "trump": "H"}
    # Not complete: refused, nothing stored.
    resp = client.post(f"/matches/{match_id}/rounds/deal", data={**fields, "deal": "AS KS 2S"})
    assert resp.status_code == 422 and _rounds(api, match_id) == []
    # Illegal: refused with the rule, nothing stored.
    resp = client.post(f"/matches/{match_id}/rounds/deal", data={**fields, "deal": "9S 5S 2S / AD KS QD / 3D 4D 5D"})
    assert resp.status_code == 422 and _rounds(api, match_id) == []
    # Complete and legal: entered; the same tap again (same form token) counts once.
    for _ in range(2):
        resp = client.post(f"/matches/{match_id}/rounds/deal", data={**fields, "deal": DEAL})
        assert resp.status_code == 302
    rounds = _rounds(api, match_id)
    assert len(rounds) == 1
    assert rounds[0]["payload"]["tricks"] == {"Anna": 1, "Bo": 1, "Cia": 1}
    # A view-only phone may not enter a round.
    viewer = app.test_client()
    viewer.get(f"/v/{api.night['view_token']}")
    resp = viewer.post(f"/matches/{match_id}/rounds/deal", data={**fields, "form_token": "x", "deal": DEAL})
    assert resp.status_code in (401, 403) and len(_rounds(api, match_id)) == 1
