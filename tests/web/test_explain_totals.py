"""The totals on every page and sheet agree with the lines (issue 46.3).

A night as the issue found it: a tournament with an entry fee and a prize
(Björn pays his fee and wins nothing, Märta wins), a Svängknack match
beside it, a payment and the rest carried to a later night. Every page and
sheet that shows a player's total for the night shows the sum of that
player's lines of ``GET /api/nights/<id>/players/<name>/explain``: the
night page and the season (the night's result: the stake, round, close,
fee and prize lines), the settlement page and its "why?", the player's own
view, the tournament page's prizes, the settlement sheet (result and what
is open, its columns adding up to them) and the tournament's final sheet.
On SQLite and PostgreSQL.
"""

from __future__ import annotations

import html
import re
import subprocess
from pathlib import Path
from typing import Any

from tests.tournament.helpers import bearer, create, play_schwimmen

PLAYERS = ["Anna", "Björn", "Cia", "Märta"]
RESULT_KINDS = {"stake", "round", "close", "fee", "prize"}


def the_nights(client: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Night "Fredag" (a Kul Cia wins, its debts carried on), then the tournament night it carries them to."""
    fredag = client.post("/api/nights", json={"name": "Fredag", "currency": "SEK", "players": PLAYERS}).get_json()
    kul = client.post(f"/api/nights/{fredag['id']}/matches", headers=bearer(fredag["edit_token"]), json={
        "game": "kul", "players": PLAYERS, "dealer": "Anna", "stake": "2.00"}).get_json()
    for _ in range(3):
        assert client.post(f"/api/matches/{kul['id']}/rounds", headers=bearer(fredag["edit_token"]),
                           json={"last_trick": "Cia"}).status_code == 201
    made = create(client, players=PLAYERS, table_size=2, series=1, entry_fee="50.00", prizes=[100],
                  group_token=fredag["group_token"])
    token, night = made["edit_token"], made["night"]
    assert client.post(f"/api/nights/{fredag['id']}/carry", headers=bearer(fredag["edit_token"]),
                       json={"to_night": night}).status_code == 200
    for table in made["tables"]:
        play_schwimmen(client, table, table["table_token"])
    assert client.post(f"/api/tournaments/{made['id']}/next", headers=bearer(token)).status_code == 200
    match = client.post(f"/api/nights/{night}/matches", headers=bearer(token), json={
        "game": "svangknack", "players": ["Anna", "Björn", "Märta"], "dealer": "Anna", "stake": "3.00"}).get_json()
    assert client.post(f"/api/matches/{match['id']}/rounds", headers=bearer(token),
                       json={"participants": ["Björn", "Märta"], "tricks": {"Märta": 3}}).status_code == 201
    assert client.post(f"/api/matches/{match['id']}/close", headers=bearer(token),
                       json={"pot": "split"}).status_code == 200
    first = client.get(f"/api/nights/{night}/settlement", headers=bearer(token)).get_json()["transfers"][0]
    assert client.post(f"/api/nights/{night}/payments", headers=bearer(token),
                       json={"from": first["from"], "to": first["to"], "amount": "1.00"}).status_code == 201
    return fredag, made


def totals(client: Any, night: int, token: str) -> dict[str, tuple[int, int, dict[str, int]]]:
    """Per player: the sum of the lines, of the result's lines, and each kind's sum (minor units)."""
    out = {}
    for name in PLAYERS:
        lines = client.get(f"/api/nights/{night}/players/{name}/explain", headers=bearer(token)).get_json()["lines"]
        minor = [(x["kind"], round(float(x["amount"]) * 100)) for x in lines]
        kinds: dict[str, int] = {}
        for kind, amount in minor:
            kinds[kind] = kinds.get(kind, 0) + amount
        out[name] = (sum(a for _k, a in minor), sum(a for k, a in minor if k in RESULT_KINDS), kinds)
    return out


def test_every_page_and_sheet_shows_the_sum_of_the_lines(client: Any, tmp_path: Path) -> None:
    fredag, made = the_nights(client)
    token, night, tid = made["edit_token"], made["night"], made["id"]
    sums = totals(client, night, token)
    assert sums["Björn"][2].get("fee") == -5000 and "prize" not in sums["Björn"][2]  # the Björn
    assert sums["Märta"][2].get("prize", 0) > 0 and sums["Märta"][2].get("carry", 0) < 0
    assert any(balance for balance, _r, _k in sums.values()), "something is still open"
    client.get(f"/e/{fredag['edit_token']}")
    client.get(f"/e/{token}")
    walk(client, fredag["id"], "Fredag", totals(client, fredag["id"], fredag["edit_token"]), tmp_path)
    shown = walk(client, night, "Klubbkväll", sums, tmp_path)
    page = client.get(f"/nights/{night}/settlement").get_data(as_text=True)
    row = re.search(r"<th>Björn(.*?)</th>", page, re.S)
    assert row and "entry fee" in row.group(1) and "opening balance" in row.group(1)
    page = client.get(f"/nights/{fredag['id']}/settlement").get_data(as_text=True)
    row = re.search(r"<th>Björn(.*?)</th>", page, re.S)
    assert row and "carried to a later night" in row.group(1)

    for name, (balance, _result, _k) in sums.items():  # each player's own view
        assert client.post(f"/tournaments/{tid}/me", data={"player": name}).status_code == 302
        page = client.get(f"/tournaments/{tid}/me").get_data(as_text=True)
        mine = re.search(r'class="me-balance total" data-player="([^"]+)" data-minor="(-?\d+)"', page)
        assert mine and (mine.group(1), int(mine.group(2))) == (name, balance)
        why = re.search(r'<details class="explain"[^>]*>(.*?)</details>', page, re.S)
        assert why and sum(int(m) for m in re.findall(r'data-minor="(-?\d+)"', why.group(1))) == balance

    page = html.unescape(client.get(f"/tournaments/{tid}").get_data(as_text=True))  # the prizes
    for name, (_b, _r, kinds) in sums.items():
        if kinds.get("prize"):
            assert re.search(rf"\d+\. {name}</th><td>{re.escape(shown(kinds['prize']))}</td>", page), name
    text = sheet_text(client, f"/tournaments/{tid}/final.pdf", tmp_path)
    for name, (balance, _r, _k) in sums.items():
        assert any(line.split() == [name, *shown(balance).replace("\xa0", " ").split()]
                   for line in text.splitlines()), name


def walk(client: Any, night: int, title: str, sums: dict[str, tuple[int, int, dict[str, int]]],
         tmp_path: Path) -> Any:
    """The night page, the settlement page, the season and the settlement sheet of ``night`` show ``sums``."""
    with client.application.test_request_context():
        money = client.application.jinja_env.filters["money"]
        text_of = {minor: str(money(minor, "SEK")) for _b, _r, k in sums.values()
                   for minor in (_b, _r, *k.values())}

    def sek(minor: int) -> str:
        return text_of[minor]

    page = client.get(f"/nights/{night}").get_data(as_text=True)  # the night page: the night's result
    for name, (_balance, result, _k) in sums.items():
        cell = re.search(rf"<th>{name}</th><td[^>]*>([^<]*)</td>", page)
        assert cell and html.unescape(cell.group(1)) == sek(result), (name, cell and cell.group(1))

    page = client.get(f"/nights/{night}/settlement").get_data(as_text=True)
    for name, (balance, result, _kinds) in sums.items():
        total = re.search(rf'<td class="total[^"]*" data-player="{name}" data-minor="(-?\d+)">([^<]*)', page)
        assert total and int(total.group(1)) == balance and html.unescape(total.group(2)) == sek(balance)
        why = re.search(rf'<details class="explain" data-player="{name}">(.*?)</details>', page, re.S)
        assert why, name
        assert sum(int(m) for m in re.findall(r'data-minor="(-?\d+)"', why.group(1))) == balance
        if balance != result:
            assert f"result {sek(result)}" in html.unescape(page)

    page = html.unescape(client.get(f"/nights/{night}/season").get_data(as_text=True))  # the season
    block = re.search(rf"· {title}.*?</summary>(.*?)</details>", page, re.S)
    assert block, "the night is in its season"
    for name, (_balance, result, _k) in sums.items():
        cell = re.search(rf"<th>{name}</th><td[^>]*>([^<]*)</td>", block.group(1))
        assert cell and cell.group(1) == sek(result), (name, cell and cell.group(1))

    text = sheet_text(client, f"/nights/{night}/settlement.pdf", tmp_path)  # the sheet's rows add up
    for name, (balance, result, _k) in sums.items():
        row = next(line for line in text.splitlines() if line.strip().startswith(name))
        assert sek(result).replace("\xa0", " ") in row, (name, row)
        assert row.rstrip().endswith(sek(balance).replace("\xa0", " ")), (name, row)
        adds_up(text, row)
    return sek


def adds_up(text: str, row: str) -> None:
    """A row of the sheet's results adds up: its matches (and fee and prize) to the total, the total with the
    opening, carried and paid columns to what is open."""
    header = next(line for line in text.splitlines() if line.split()[:1] == ["Player"])
    after = sum(1 for word in header.split() if word in ("Opening", "Carried", "Paid", "Open"))
    values = [(-1 if sign else 1) * round(float(amount) * 100)
              for sign, amount in re.findall(r"(-?)SEK (\d+\.\d\d)", row)]
    total = values[-(after + 1)]
    assert sum(values[:-(after + 1)]) == total, row
    assert total + sum(values[-after:-1]) == values[-1], row


def sheet_text(client: Any, path: str, tmp_path: Path) -> str:
    """The sheet read back with pdftotext (-layout: a row stays a line), no-break spaces as spaces."""
    resp = client.get(path)
    assert resp.status_code == 200 and resp.data.startswith(b"%PDF-")
    pdf = tmp_path / "sheet.pdf"
    pdf.write_bytes(resp.data)
    out = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return out.replace("\xa0", " ")
