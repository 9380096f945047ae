"""The pot is not a player (issue 31), in the API's answers and in what it accepts, on both databases.

Why: money still in a pot is held by the game leader and the settlement
counts it as an account of its own; a client reading ``balances`` or a
transfer's ``to`` must never meet it as a player, and must be able to pay
into it without knowing the label the service layer names it by.
"""

from __future__ import annotations

import json
from typing import Any

from referee.ledger import POT_PARTY
from tests.web.helpers import Api, dec

PLAYERS = ["Anna", "Bo", "Cia"]


def _settlement(api: Api) -> dict[str, Any]:
    status, body = api.call("GET", f"/api/nights/{api.night['id']}/settlement")
    assert status == 200, body
    assert POT_PARTY not in json.dumps(body, ensure_ascii=False)
    return body


def test_an_open_pot_is_an_account_of_its_own_and_paid_into_by_its_flag(client: Any) -> None:
    api = Api(client)
    night = api.new_night(PLAYERS)
    api.new_match("svangknack", PLAYERS, stake="3.00")  # every player pays 3.00 into a pot of 9.00
    s = _settlement(api)
    assert set(s["balances"]) == set(s["result"]) == set(PLAYERS)
    assert s["balances"] == {p: "-3.00" for p in PLAYERS} and s["pots"] == "9.00"
    assert s["pot_account"] == {"result": "9.00", "opening": "0.00", "paid": "0.00", "carried_out": "0.00",
                                "open": "9.00"}
    assert sorted((t["from"], t["to"], t["to_pot"], t["from_pot"], t["amount"]) for t in s["transfers"]) == [
        (p, None, True, False, "3.00") for p in PLAYERS]
    status, night_body = api.call("GET", f"/api/nights/{night['id']}")
    assert set(night_body["balances"]) == set(PLAYERS) and night_body["pots"] == "9.00"

    payments = f"/api/nights/{night['id']}/payments"
    refused = [({"from": "Anna", "to": "Bo", "to_pot": True}, "to"),        # the pot or a player, not both
               ({"from": "Anna", "to_pot": "yes"}, "to_pot"),              # a flag is true or false
               ({"from": "Anna", "to": POT_PARTY}, "to"),                  # the label is no name
               ({"from": "Anna"}, "to"),                                   # nobody paid
               ({"from_pot": True, "to": "Anna"}, "amount")]               # the pot owes nobody here
    for body, field in refused:
        status, answer = api.call("POST", payments, body | {"amount": "1.00"})
        assert status == 400 and answer["field"] == field, (body, answer)
    assert _settlement(api)["payments"] == []

    status, paid = api.call("POST", payments, {"from": "Anna", "to": None, "to_pot": True, "amount": "3.00"})
    assert status == 201, paid
    assert {k: paid["payment"][k] for k in ("from", "to", "from_pot", "to_pot")} == {
        "from": "Anna", "to": None, "from_pot": False, "to_pot": True}
    s = paid["settlement"]
    assert s["balances"]["Anna"] == "0.00" and s["pot_account"]["paid"] == "-3.00"
    assert s["pot_account"]["open"] == "6.00"
    assert sum(dec(v) for v in s["balances"].values()) + dec(s["pot_account"]["open"]) == 0
    assert POT_PARTY not in json.dumps(paid, ensure_ascii=False)


def test_the_pots_name_is_no_players_name(client: Any) -> None:
    """Inside the service layer the pot has a name; a player of that name would merge with the pot."""
    api = Api(client)
    status, body = api.call("POST", "/api/nights", {"name": "N", "currency": "SEK", "players": ["Anna", POT_PARTY]},
                            token=None)
    assert status == 400 and body["field"] == "players", body
    night = api.new_night(["Anna", "Bo"])
    status, body = api.call("POST", f"/api/nights/{night['id']}/players", {"name": POT_PARTY.upper()})
    assert status == 400 and body["field"] == "name", body
    status, body = api.call("POST", f"/api/nights/{night['id']}/players", {"name": "Pot"})  # a name like any
    assert status == 201 and "Pot" in body["players"]
