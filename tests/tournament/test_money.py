"""A tournament's money made legible (issue 43.4, API.md "Tournaments"), against a real server (gunicorn) on SQLite
and PostgreSQL.

- The fee is owed from the start: from creation each player's balance carries −fee and the pool is the night's
  pot account; a fee paid at the door is a payment into the pot and settles it; at the finish the prizes move
  from the pool to the players. Balances plus the pot sum to zero at every step.
- The pool has a holder: ``leader`` on ``POST /api/tournaments`` (a player or not) is the night's leader.
- No leader plan without a leader: ``?plan=leader`` is a 409 naming ``leader`` for a plain night and a
  tournament night, and the settlement page does not offer it.
- The explain lines (``fee`` from the start, ``prize`` once finished) add up to the balance and the result, on
  the API, the settlement page, the player's own view and the settlement sheet (read back with pdftotext).
- A tournament finished before (one net ``prize`` row per player, no ``fee`` rows) settles and explains as
  before.
"""

from __future__ import annotations

import html
import http.client
import re
import urllib.parse
from collections.abc import Iterator
from decimal import Decimal
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from tests.faults.server import HOST, Http, Server, database_url, serving
from tests.pdf.test_tournament_sheets import pdftotext
from tests.tournament.test_winners import Api

SIX = ["Anna", "Björn", "Cia", "Dan", "Eva", "Filip"]
FEE = Decimal("20.00")


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, postgres: Any) -> Iterator[Server]:
    tmp_path: Path = tmp_path_factory.mktemp(f"money-{request.param}")
    url = database_url(request.param, tmp_path, postgres, f"money{abs(hash(tmp_path)) % 10**8}")
    srv = Server(url, tmp_path)
    srv.env["CREATIONS_PER_HOUR"] = "100000"  # the module creates a few dozen nights from one address
    with serving(srv):
        yield srv


def create(api: Api, **fields: Any) -> dict[str, Any]:
    """Six players at two Kul tables of three, a knockout for no stake (only the fee and the prizes move money), a
    fee of 20.00 split 60/40."""
    return api.create(**{"players": SIX, "format": "knockout", "entry_fee": str(FEE), "prizes": [60, 40]} | fields)


def settlement(api: Api, made: dict[str, Any], plan: str = "fewest") -> dict[str, Any]:
    got = api.ok("GET", f"/api/nights/{made['night']}/settlement?plan={plan}", token=made["edit_token"])
    balances = sum(Decimal(v) for v in got["balances"].values())
    assert balances + Decimal(got["pot_account"]["open"]) == 0, got  # balances plus the pot: zero, always
    assert sum(Decimal(v) for v in got["result"].values()) + Decimal(got["pot_account"]["result"]) == 0, got
    return dict(got)


def explained(api: Api, made: dict[str, Any], name: str) -> dict[str, Any]:
    """``name``'s lines, checked to add up to the balance and (the result's kinds) to the result."""
    got = api.ok("GET", f"/api/nights/{made['night']}/players/{urllib.parse.quote(name)}/explain",
                 token=made["edit_token"])
    amounts = [(line["kind"], Decimal(line["amount"])) for line in got["lines"]]
    assert sum(a for _k, a in amounts) == Decimal(got["balance"]), got
    assert sum(a for k, a in amounts if k in ("stake", "round", "close", "fee", "prize")) == Decimal(got["result"])
    return dict(got)


def kinds(got: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [line for line in got["lines"] if line["kind"] == kind]


def play(api: Api, made: dict[str, Any]) -> None:
    """Every series to its end and the tournament finished: at each table the last seat takes the Kul with three
    marks, the one before it has one; the sums are checked after each table."""
    tables = made["tables"]
    while True:
        for table in tables:
            seats = table["players"]
            api.marks(table["match"], [seats[-1], seats[-2], seats[-1], seats[-1]], table["table_token"])
            settlement(api, made)
        status, drawn = api.call("POST", f"/api/tournaments/{made['id']}/next", token=made["edit_token"])
        assert status in (200, 201), drawn
        if status == 200:
            assert drawn["finished"] is True
            return
        tables = drawn["tables"]


def test_the_fee_is_owed_from_the_start_paid_into_the_pot_and_the_prizes_come_out_of_it(server: Server) -> None:
    api = Api(server)
    made = create(api, leader="Olle")
    start = settlement(api, made)
    assert start["balances"] == dict.fromkeys(SIX, "-20.00"), start  # before: every balance 0.00
    assert start["pot_account"]["open"] == start["pots"] == "120.00"  # the pool is the pot
    for name in SIX:
        got = explained(api, made, name)
        assert [(x["amount"], x["why"]) for x in kinds(got, "fee")] == [("-20.00", "entry fee, Klubbkväll")]
        assert not kinds(got, "prize")
    # paid at the door: a payment into the pot settles Björn's fee, and nothing more is open for him
    paid = api.ok("POST", f"/api/nights/{made['night']}/payments",
                  {"from": "Björn", "to_pot": True, "amount": "20.00"}, made["edit_token"], status=201)
    assert paid["payment"]["to_pot"] is True and paid["settlement"]["balances"]["Björn"] == "0.00"
    door = settlement(api, made)
    assert door["balances"]["Björn"] == "0.00" and door["pot_account"]["open"] == "100.00"
    status, again = api.call("POST", f"/api/nights/{made['night']}/payments",
                             {"from": "Björn", "to_pot": True, "amount": "20.00"}, made["edit_token"])
    assert (status, again["field"]) == (400, "amount"), again
    assert [x["kind"] for x in explained(api, made, "Björn")["lines"]] == ["fee", "payment"]
    round_trip(api, made)

    play(api, made)
    assert api.view(made)["finished"] is True
    won = {p["player"]: Decimal(p["amount"]) for p in api.view(made)["prizes"]}
    assert sum(won.values()) == FEE * len(SIX) and len(won) >= 2
    end = settlement(api, made)
    assert end["pot_account"]["result"] == "0.00"  # every unit of the pool given out
    assert end["pot_account"]["open"] == "-20.00"  # the pot's holder passes Björn's 20.00 on
    for name in SIX:
        played = sum(Decimal(m["balances"].get(name, "0")) for m in end["per_match"])
        assert Decimal(end["result"][name]) == played - FEE + won.get(name, Decimal(0)), name
        got = explained(api, made, name)
        assert got["balance"] == end["balances"][name] and got["result"] == end["result"][name]
        assert [x["amount"] for x in kinds(got, "fee")] == ["-20.00"]
        prize = kinds(got, "prize")
        assert [Decimal(x["amount"]) for x in prize] == ([won[name]] if name in won else []), (name, prize)
        assert all(re.fullmatch(r"place \d, Klubbkväll", x["why"]) for x in prize), prize
    round_trip(api, made)


def round_trip(api: Api, made: dict[str, Any]) -> None:
    """The night's export imports (its ``fee`` and ``prize`` rows taken) and settles alike."""
    export = api.ok("GET", f"/api/nights/{made['night']}/export.json", token=made["edit_token"])
    assert {p["kind"] for p in export["payments"]} >= {"fee"}
    copy = api.ok("POST", "/api/import", export, status=201)
    before = settlement(api, made)
    after = settlement(api, {"night": copy["id"], "edit_token": copy["edit_token"]})
    for key in ("balances", "result", "pot_account", "transfers", "pots"):
        assert after[key] == before[key], key


def test_the_leader_of_a_tournament_holds_the_pool_and_collects(server: Server) -> None:
    api = Api(server)
    made = create(api, leader="Olle")
    night = api.ok("GET", f"/api/nights/{made['night']}", token=made["edit_token"])
    assert night["leader"] == "Olle"
    plan = settlement(api, made, "leader")
    assert plan["plan"] == "leader" and plan["transfers"]
    assert all("Olle" in (t["from"], t["to"]) for t in plan["transfers"]), plan["transfers"]
    assert {t["from"] for t in plan["transfers"] if t["to"] == "Olle"} == set(SIX)
    # Olle collects a fee at the door as the leader plan says; what he holds of the pool is his to pass on
    api.ok("POST", f"/api/nights/{made['night']}/payments", {"from": "Cia", "to": "Olle", "amount": "20.00"},
           made["edit_token"], status=201)
    after = settlement(api, made, "leader")
    assert after["balances"]["Cia"] == "0.00" and after["balances"]["Olle"] == "-20.00"


@pytest.mark.parametrize("kind", ["plain", "tournament"])
def test_no_leader_no_leader_plan(server: Server, kind: str) -> None:
    api = Api(server)
    if kind == "plain":
        made = api.ok("POST", "/api/nights", {"name": "Fredag", "currency": "SEK", "players": ["Anna", "Bo", "Cia"]},
                      status=201)
        made["night"] = made["id"]
        match = api.ok("POST", f"/api/nights/{made['id']}/matches",
                       {"game": "kul", "players": ["Anna", "Bo", "Cia"], "stake": "2.00"}, made["edit_token"],
                       status=201)
        api.marks(match["id"], ["Cia"], made["edit_token"])
    else:
        made = create(api)
    status, answer = api.call("GET", f"/api/nights/{made['night']}/settlement?plan=leader", token=made["edit_token"])
    assert status == 409 and answer["field"] == "leader" and "leader" in answer["error"], (status, answer)
    assert settlement(api, made)["transfers"]  # the plan with the fewest payments is there
    page = Http(server.port)
    assert page.request("GET", f"/e/{made['edit_token']}").status in (200, 302)
    html = page.request("GET", f"/nights/{made['night']}/settlement?plan=leader")
    assert html.status == 200
    body = html.body.decode()
    assert not re.search(r'href="[^"]*plan=leader', body), "a leader plan offered without a leader"
    assert "Everything through" not in body.replace("Everything through a leader", "")
    assert "This night has no leader" in body


def _post_form(http_: Http, path: str, fields: dict[str, str]) -> int:
    """A page's form sent as the browser sends it (the cookie session, form-encoded)."""
    conn = http.client.HTTPConnection(HOST, http_.port, timeout=http_.timeout)
    try:
        conn.request("POST", path, body=urllib.parse.urlencode(fields), headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": "; ".join(f"{k}={v}" for k, v in http_.cookies.items())})
        resp = conn.getresponse()
        resp.read()
        for header in resp.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                http_.cookies[name] = morsel.value
        return resp.status
    finally:
        conn.close()


def _lines_of(page: str, name: str) -> tuple[int, list[tuple[str, int]]]:
    """A page's "why?" of ``name``: its total (data-minor) and each line's kind and amount."""
    block = re.search(rf'<details class="explain" data-player="{re.escape(name)}"[^>]*>(.*?)</details>', page, re.S)
    assert block, name
    lines = [(k, int(m)) for k, m in re.findall(r'explain-line kind-(\w+)" data-minor="(-?\d+)"', block.group(1))]
    return sum(m for _k, m in lines), lines


def test_the_pages_and_the_sheet_show_the_fee_and_prize_lines(server: Server, tmp_path: Path) -> None:
    api = Api(server)
    made = create(api, leader="Olle")
    phone = Http(server.port)
    phone.request("GET", f"/e/{made['edit_token']}")
    page = phone.request("GET", f"/nights/{made['night']}/settlement").body.decode()
    assert "Everything through Olle" in page
    total, lines = _lines_of(page, "Björn")
    assert (total, lines) == (-2000, [("fee", -2000)])  # before: no line at all for a balance of -20.00
    me = phone.request("GET", f"/tournaments/{made['id']}/me").body.decode()
    csrf = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', me)
    assert csrf
    assert _post_form(phone, f"/tournaments/{made['id']}/me", {"csrf_token": csrf.group(1), "player": "Björn"}) == 302
    mine = phone.request("GET", f"/tournaments/{made['id']}/me").body.decode()
    assert 'class="me-balance total" data-player="Björn" data-minor="-2000"' in mine  # shown from the start
    assert _lines_of(mine, "Björn") == (-2000, [("fee", -2000)])
    # the "Björn är skyldig … totalt", explained by his lines, in Swedish
    swedish = Http(server.port)
    swedish.request("GET", f"/e/{made['edit_token']}")
    swedish.request("GET", "/lang/sv?next=/")
    sv = html.unescape(swedish.request("GET", f"/nights/{made['night']}/settlement").body.decode())
    assert re.search(r"Björn är skyldig 20,00\s+kr totalt", sv) and "anmälningsavgift, Klubbkväll" in sv
    assert _lines_of(sv, "Björn") == (-2000, [("fee", -2000)])
    sheet = f"/nights/{made['night']}/settlement.pdf?view={made['view_token']}&explain=1"
    text = " ".join(pdftotext(phone.request("GET", sheet).body, tmp_path))
    assert "entry fee, Klubbkväll" in text and "Björn: -SEK 20.00" in text

    play(api, made)
    won = {p["player"]: (p["place"], p["amount"]) for p in api.view(made)["prizes"]}
    end = settlement(api, made)
    page = phone.request("GET", f"/nights/{made['night']}/settlement").body.decode()
    mine = phone.request("GET", f"/tournaments/{made['id']}/me").body.decode()
    for shown in (page, mine):
        total, lines = _lines_of(shown, "Björn")
        assert total == round(Decimal(end["balances"]["Björn"]) * 100)
        assert ("fee", -2000) in lines and [k for k, _m in lines].count("prize") == (1 if "Björn" in won else 0)
    text = " ".join(pdftotext(phone.request("GET", sheet).body, tmp_path))
    for name, (place, _amount) in won.items():
        assert f"place {place}, Klubbkväll" in text
        assert f"{name}: {'-' if end['balances'][name].startswith('-') else ''}SEK " \
               f"{end['balances'][name].lstrip('-')}" in text, name


@pytest.mark.parametrize("fmt", ["knockout", "series"])
def test_a_tournament_finished_before_keeps_its_settlement_and_lines(server: Server, fmt: str) -> None:
    """A database of before: the finish wrote one net ``prize`` row per player (prize less fee, none when zero,
    no payee) and no ``fee`` rows. Made here from a finished tournament's rows; everything read stays as it was.
    (A series for no stake ties everybody: each gets the fee back, and no row at all was written.)"""
    api = Api(server)
    made = create(api, format=fmt)
    play(api, made)
    before = settlement(api, made)
    view = api.view(made)
    lines = {name: sorted((x["kind"], x["amount"]) for x in explained(api, made, name)["lines"]) for name in SIX}
    engine = create_engine(server.url)
    tag = f"tournament:{made['id']}"
    with engine.begin() as db:
        rows = db.execute(text("SELECT kind, payer, amount FROM payments WHERE carry_id = :tag"), {"tag": tag}).all()
        nets: dict[str, int] = {}
        for kind, payer, amount in rows:
            nets[payer] = nets.get(payer, 0) + (amount if kind == "prize" else -amount)
        assert sorted(k for k, _p, _a in rows).count("fee") == len(SIX)
        db.execute(text("DELETE FROM payments WHERE carry_id = :tag"), {"tag": tag})
        for payer, net in nets.items():
            if net:
                db.execute(text("INSERT INTO payments (night_id, kind, payer, payee, amount, carry_id, created_at, "
                                "void, void_reason) VALUES (:n, 'prize', :p, '', :a, :tag, CURRENT_TIMESTAMP, "
                                ":f, '')"), {"n": made["night"], "p": payer, "a": net, "tag": tag, "f": False})
        db.execute(text("UPDATE nights SET live_version = live_version + 1 WHERE id = :n"), {"n": made["night"]})
    engine.dispose()
    old = settlement(api, made)
    for key in ("balances", "result", "transfers", "pots", "per_match"):
        assert old[key] == before[key], key
    assert api.view(made)["prizes"] == view["prizes"] and view["prizes"]
    for name in SIX:
        assert sorted((x["kind"], x["amount"]) for x in explained(api, made, name)["lines"]) == lines[name], name
