"""Why a player's balance is what it is (issue 46.1): ``GET /api/nights/<id>/players/<name>/explain``.

On SQLite and on the real PostgreSQL server (the ``app`` fixture). The
lines must add up to the settlement's open balance, and those of the kinds
stake, round, close, fee and prize to its result, for random nights of
every game (random rounds, voids, closes, payments and debts carried to a
later night, driven through the ledger as the Hypothesis properties of
``test_ledger_properties`` drive it); a night with a tournament's fees and
prizes beside a Svängknack match, a payment and a carried debt shows every
kind of line; a Svängknack night worked out by hand gives its lines with
their rules and sentences.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.engine.spec import SPECS
from referee.ledger import close_match, create_night, debts, get_match, get_night, payments, state_of
from tests.tournament.helpers import bearer, create, play_schwimmen
from tests.web.test_ledger_properties import (
    SETTINGS,
    Tracked,
    new_match,
    new_night,
    step_close,
    step_valid,
    step_void,
)

RESULT_KINDS = {"stake", "round", "close", "fee", "prize"}
ALL_KINDS = RESULT_KINDS | {"payment", "carry"}


def explained(client: Any, night_id: int, token: str, name: str, lang: str = "en") -> dict[str, Any]:
    resp = client.get(f"/api/nights/{night_id}/players/{name}/explain",
                      headers=bearer(token) | {"Accept-Language": lang})
    assert resp.status_code == 200, resp.get_json()
    return dict(resp.get_json())


def check_night(client: Any, night_id: int, token: str) -> set[str]:
    """Every player's lines add up to the settlement's balance and result; the kinds of line seen."""
    s = client.get(f"/api/nights/{night_id}/settlement", headers=bearer(token)).get_json()
    seen: set[str] = set()
    for name, balance in s["balances"].items():
        body = explained(client, night_id, token, name)
        lines = body["lines"]
        assert body["player"] == name and body["balance"] == balance
        assert sum((Decimal(x["amount"]) for x in lines), Decimal(0)) == Decimal(balance), (name, lines)
        result = sum((Decimal(x["amount"]) for x in lines if x["kind"] in RESULT_KINDS), Decimal(0))
        assert result == Decimal(s["result"][name]), (name, lines)
        for x in lines:
            assert x["kind"] in ALL_KINDS and Decimal(x["amount"]) != 0 and x["why"]
            if x["kind"] in ("round", "close", "stake"):
                assert x["game"] in SPECS and x.get("rule"), x
        seen |= {x["kind"] for x in lines}
    return seen


def voided_rounds_leave_no_line(client: Any, night_id: int, token: str) -> None:
    """A voided round has no line (API.md): the rounds named in the lines are the non-void ones."""
    with client.application.app_context():
        night = get_night(night_id)
        void = {(m.id, r.seq) for m in night.matches for r in m.rounds if r.void}
        names = list(night.player_names)
    for name in names:
        for x in explained(client, night_id, token, name)["lines"]:
            assert (x.get("match"), x.get("round")) not in void, x


@settings(max_examples=6, **SETTINGS)
@given(data=st.data())
@pytest.mark.parametrize("game", sorted(SPECS))
def test_random_nights_lines_add_up_to_balance_and_result(app: Any, client: Any, game: str,
                                                          data: st.DataObject) -> None:
    draw = data.draw
    with app.app_context():
        night_id, players = new_night(draw)
        games = [game, *draw(st.lists(st.sampled_from(sorted(SPECS)), max_size=1))]
        tracked: list[Tracked] = [new_match(draw, night_id, g, players) for g in games]
        for _ in range(draw(st.integers(2, 8))):
            t = draw(st.sampled_from(tracked))
            action = draw(st.sampled_from(["valid"] * 4 + ["void", "close"]))
            if action == "valid":
                step_valid(draw, t)
            elif action == "void":
                step_void(draw, t, night_id)
            else:
                step_close(draw, t, night_id)
        night = get_night(night_id)
        token = night.edit_token
        for t in tracked:  # the night ends: every match closed, with its pot split
            if not state_of(get_match(t.match_id)).finished:
                close_match(t.match_id, "split")
        s = payments.settlement(get_night(night_id))
        paid = s.plan.transfers[:draw(st.integers(0, len(s.plan.transfers)))]
        for tr in paid:  # some pay, some in part
            part = tr.amount if draw(st.booleans()) else max(1, tr.amount // 2)
            payments.record_payment(get_night(night_id), tr.payer, tr.payee, f"{part // 100}.{part % 100:02d}")
        later = None
        if draw(st.booleans()) and payments.settlement(get_night(night_id)).plan.transfers:
            later = create_night("Next", "SEK", players[:2], group_token=get_night(night_id).group.token)
            later_id, later_token = later.id, later.edit_token
            debts.carry_debts(get_night(night_id), later_id)
    check_night(client, night_id, token)
    voided_rounds_leave_no_line(client, night_id, token)
    if later is not None:
        assert "carry" in check_night(client, later_id, later_token)


def test_a_night_with_a_tournament_shows_every_kind_of_line(client: Any) -> None:
    """Stakes, rounds, a close, a tournament's fee and prize, a payment and a carried debt: every kind is there,
    and the lines add up on both nights; the tournament's fee and prize are in its players' lines."""
    made = create(client, players=["Anna", "Bo", "Cia", "Dan"], table_size=2, series=1, entry_fee="5.00",
                  prizes=[100])
    token, night_id = made["edit_token"], made["night"]
    for table in made["tables"]:
        play_schwimmen(client, table, table["table_token"])
    assert client.post(f"/api/tournaments/{made['id']}/next", headers=bearer(token)).status_code == 200
    resp = client.post(f"/api/nights/{night_id}/matches", headers=bearer(token),
                       json={"game": "svangknack", "players": ["Anna", "Bo", "Cia"], "dealer": "Anna",
                             "stake": "3.00"})
    assert resp.status_code == 201, resp.get_json()
    match = resp.get_json()["id"]
    resp = client.post(f"/api/matches/{match}/rounds", headers=bearer(token),
                       json={"participants": ["Bo", "Cia"], "tricks": {"Bo": 2, "Cia": 1}})
    assert resp.status_code == 201, resp.get_json()
    assert client.post(f"/api/matches/{match}/close", headers=bearer(token), json={"pot": "split"}).status_code == 200
    s = client.get(f"/api/nights/{night_id}/settlement", headers=bearer(token)).get_json()
    first = s["transfers"][0]
    resp = client.post(f"/api/nights/{night_id}/payments", headers=bearer(token),
                       json={"from": first["from"], "to": first["to"], "amount": "1.00"})
    assert resp.status_code == 201, resp.get_json()
    later = client.post("/api/nights", json={"name": "Next", "currency": "SEK", "players": ["Anna", "Bo"],
                                             "group_token": made["group_token"]}).get_json()
    resp = client.post(f"/api/nights/{night_id}/carry", headers=bearer(token), json={"to_night": later["id"]})
    assert resp.status_code == 200, resp.get_json()
    seen = check_night(client, night_id, token) | check_night(client, later["id"], later["edit_token"])
    assert seen == ALL_KINDS
    for name in ("Anna", "Bo", "Cia", "Dan"):
        kinds = [x["kind"] for x in explained(client, night_id, token, name)["lines"]]
        assert "fee" in kinds, (name, kinds)
    fee = next(x for x in explained(client, night_id, token, "Dan", "sv")["lines"] if x["kind"] == "fee")
    assert fee["amount"] == "-5.00" and fee["why"] == "anmälningsavgift, Klubbkväll"


def test_a_svangknack_night_worked_out_by_hand(client: Any) -> None:
    """Stake 3,00 kr, Anna deals. SK-5: each pays 3,00 (pot 9,00). Round 1: Bo svänger, Cia knocks; Bo takes
    3 tricks (9,00, SK-8), Cia goes bet (pays 9,00, SK-9), Bo deals next and pays 3,00 (SK-6): pot 12,00.
    Round 2 voided. Round 3: Cia svänger, Anna knocks; Cia 2 tricks (8,00), Anna 1 (4,00); nobody bet, a fresh
    pot: everyone pays 3,00 (SK-6), pot 9,00. Closed with a split: 3,00 each (SK-14). Cia pays Bo 3,00."""
    status = client.post("/api/nights", json={"name": "Hand", "currency": "SEK", "players": ["Anna", "Bo", "Cia"]})
    night = status.get_json()
    token, nid = night["edit_token"], night["id"]
    auth = bearer(token)
    match = client.post(f"/api/nights/{nid}/matches", headers=auth, json={
        "game": "svangknack", "players": ["Anna", "Bo", "Cia"], "dealer": "Anna", "stake": "3.00"}).get_json()["id"]
    rounds = [{"participants": ["Bo", "Cia"], "tricks": {"Bo": 3}},
              {"participants": ["Cia", "Anna"], "tricks": {"Cia": 3}},
              {"participants": ["Cia", "Anna"], "tricks": {"Cia": 2, "Anna": 1}}]
    for payload in rounds[:2]:
        assert client.post(f"/api/matches/{match}/rounds", headers=auth, json=payload).status_code == 201
    assert client.post(f"/api/matches/{match}/rounds/2/void", headers=auth, json={"reason": "x"}).status_code == 200
    assert client.post(f"/api/matches/{match}/rounds", headers=auth, json=rounds[2]).status_code == 201
    assert client.post(f"/api/matches/{match}/close", headers=auth, json={"pot": "split"}).status_code == 200
    assert client.post(f"/api/nights/{nid}/payments", headers=auth,
                       json={"from": "Cia", "to": "Bo", "amount": "3.00"}).status_code == 201

    def lines(name: str, lang: str = "en") -> list[tuple[Any, ...]]:
        return [(x["kind"], x.get("round"), x["amount"], x.get("rule"), x["why"])
                for x in explained(client, nid, token, name, lang)["lines"]]

    assert lines("Bo") == [
        ("stake", None, "-3.00", "SK-5", "pays the opening stake SEK\xa03.00 into the pot (SK-5)"),
        ("round", 1, "6.00", "SK-8", "took 3 of 3 tricks: SEK\xa09.00 (SK-8); "
                                     "pays the stake SEK\xa03.00 into the pot as the new dealer (SK-6)"),
        ("round", 3, "-3.00", "SK-6", "pays the stake SEK\xa03.00 into the fresh pot (SK-6)"),
        ("close", 4, "3.00", "SK-14", "the match was closed and the pot split: SEK\xa03.00 (SK-14)"),
        ("payment", None, "-3.00", None, "received from Cia")]
    assert lines("Cia", "sv") == [
        ("stake", None, "-3.00", "SK-5", "betalar insatsen 3,00\xa0kr i potten från start (SK-5)"),
        ("round", 1, "-9.00", "SK-9", "blev bet utan stick: betalar potten 9,00\xa0kr (SK-9)"),
        ("round", 3, "5.00", "SK-8", "tog 2 av 3 stick: 8,00\xa0kr (SK-8); "
                                     "betalar insatsen 3,00\xa0kr i den nya potten (SK-6)"),
        ("close", 4, "3.00", "SK-14", "partiet avslutades och potten delades: 3,00\xa0kr (SK-14)"),
        ("payment", None, "3.00", None, "betalat till Bo")]
    anna = explained(client, nid, token, "Anna", "de")
    assert [x["amount"] for x in anna["lines"]] == ["-3.00", "1.00", "3.00"] and anna["balance"] == "1.00"
    assert anna["lines"][1]["why"] == ("machte 1 von 3 Stichen: 4,00\xa0SEK (SK-8); "
                                       "zahlt den Einsatz 3,00\xa0SEK in den neuen Pott (SK-6)")
    assert explained(client, nid, token, "Bo")["balance"] == "0.00"
    assert client.get(f"/api/nights/{nid}/players/Nobody/explain", headers=auth).status_code == 404
    assert client.get(f"/api/nights/{nid}/players/Bo/explain").status_code == 401
    view = client.get(f"/api/nights/{nid}/players/Bo/explain?view={night['view_token']}")
    assert view.status_code == 200
    doc = client.get("/api/openapi.json").get_json()
    assert "/api/nights/{night_id}/players/{name}/explain" in doc["paths"]


def test_a_large_nights_settlement_page_shows_one_players_lines_at_a_time(client: Any, monkeypatch: Any) -> None:
    """Past PAGE_LINES lines in all, each "why?" is a link to the page with that player's lines open."""
    from referee.pages import settlement as page

    night = client.post("/api/nights", json={"name": "Stor", "currency": "SEK",
                                              "players": ["Anna", "Bo", "Cia"]}).get_json()
    auth = bearer(night["edit_token"])
    match = client.post(f"/api/nights/{night['id']}/matches", headers=auth, json={
        "game": "kul", "players": ["Anna", "Bo", "Cia"], "dealer": "Anna", "stake": "2.00"}).get_json()["id"]
    for _ in range(3):
        assert client.post(f"/api/matches/{match}/rounds", headers=auth, json={"last_trick": "Bo"}).status_code == 201
    client.get(f"/e/{night['edit_token']}")
    monkeypatch.setattr(page, "PAGE_LINES", 3)  # stakes and the win: 4 lines in all
    html = client.get(f"/nights/{night['id']}/settlement").get_data(as_text=True)
    assert '<details class="explain"' not in html and html.count('class="explain-link"') == 3
    html = client.get(f"/nights/{night['id']}/settlement?why=Bo").get_data(as_text=True)
    assert html.count('<details class="explain"') == 1 and '<details class="explain" data-player="Bo" open>' in html
    monkeypatch.setattr(page, "PAGE_LINES", 4)
    html = client.get(f"/nights/{night['id']}/settlement").get_data(as_text=True)
    assert html.count('<details class="explain"') == 3
