"""Schloapfer's score protocol as PDF, read back and checked against hand-worked figures.

A four-player pot match (SL-10), stake 1.00 SEK, seats Anna, Bo, Cia, Dan,
Anna deals first; 4 players: 2 strokes at stake (SL-5). (points, uncancelled
rings, rings in total) per player; money in SEK.

 start  everyone pays 1.00 in: pot 4.00, each -1.00
 D1 Anna deals  Anna 100, Bo 20, Cia 20, Dan 12: only Anna has 21 -> both strokes, A=2;
                Bo, Cia, Dan get a ring and pay 1.00 each: pot 7.00; Bo, Cia, Dan -2.00
 D2 Bo deals    Cia passes; Dan 60, Anna 50, Bo 42: top two Dan and Anna; Dan's stroke
                cancels his ring, A=3; no ring; pot 7.00
 D3 Cia deals   everybody else passes: Cia wins without play, 2 strokes: the first
                cancels her ring, the second counts: C=1
 D4 Dan deals   Anna 80, Bo 40, Cia 10, Dan 22: top two Anna (A=4) and Bo (cancels his
                ring); Cia a ring, pays 1.00: pot 8.00, Cia -3.00
 (5) Anna deals Anna 30, Bo 100, Cia 0, Dan 22 -> voided ("piles mixed up")
 D5 Anna deals  Anna 100, Bo 30, Cia 0, Dan 22: top two Anna (A=5) and Bo (B=1); Cia a
                ring, pays 1.00: pot 9.00; Anna reached five: she takes the pot (SL-10)
 end            Anna -1.00 + 9.00 = 8.00, Bo -2.00, Cia -4.00, Dan -2.00 (sum 0), pot 0
 standing       Anna 5 (finished), Bo 1 / 0 rings (1 cancelled), Cia 1 / 2 rings
                (1 cancelled), Dan 0 / 0 rings (1 cancelled)
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.pdf_helpers import first_page_png, pdf_fonts, pdf_text
from tests.web.helpers import Api

SEATS = ["Anna", "Bo", "Cia", "Dan"]


def test_schloapfer_pot_protocol(client: Any, artifacts: Path) -> None:
    api = Api(client)
    api.new_night(SEATS)
    m = api.new_match("schloapfer", SEATS, stake="1.00", options={"scoring": "pot"})
    deals = [
        {"Anna": 100, "Bo": 20, "Cia": 20, "Dan": 12},
        {"Dan": 60, "Anna": 50, "Bo": 42},
        {"Cia": 0},
        {"Anna": 80, "Bo": 40, "Cia": 10, "Dan": 22},
        {"Anna": 30, "Bo": 100, "Cia": 0, "Dan": 22},
    ]
    for eyes in deals:
        status, body = api.round(m["id"], {"eyes": eyes})
        assert status == 201, body
    status, body = api.call("POST", f"/api/matches/{m['id']}/rounds/5/void", {"reason": "piles mixed up"})
    assert status == 200, body
    status, body = api.round(m["id"], {"eyes": {"Anna": 100, "Bo": 30, "Cia": 0, "Dan": 22}})
    assert status == 201, body

    final = api.match(m["id"])["state"]
    assert final["finished"] and final["winner"] == "Anna"  # the engine agrees with the hand computation
    assert final["balances"] == {"Anna": "8.00", "Bo": "-2.00", "Cia": "-4.00", "Dan": "-2.00"}

    resp = client.get(f"/matches/{m['id']}/protocol.pdf?view={api.night['view_token']}")
    assert resp.status_code == 200 and resp.mimetype == "application/pdf"
    text = pdf_text(resp.data)

    # The X sheet: points and rings under every X, the statuses.
    assert "Anna Points 5 · Rings 0" in text and "finished" in text
    assert "Bo Points 1 · Rings 0 (+1 cancelled)" in text
    assert "Cia Points 1 · Rings 2 (+1 cancelled)" in text
    assert "Dan Points 0 · Rings 0 (+1 cancelled)" in text
    assert "Anna wins the pot (SL-10)." in text

    # The deals, one row each: seq, dealer, strokes at stake, eyes, passed, strokes, rings, money.
    rows = text[text.index("Deals"):text.index("Standing after each deal")]
    assert re.search(r"1 Anna 2 Anna 100 Bo 20 Cia 20 Dan 12 Anna 2 Bo, Cia, Dan Bo -1\.00 Cia -1\.00 Dan -1\.00",
                     rows), rows
    assert re.search(r"2 Bo 2 Anna 50 Bo 42 Dan 60 Cia Anna 1 Dan 1 \(cancels 1 ring\)", rows), rows
    assert re.search(r"3 Cia 2 Cia 0 Anna, Bo, Dan Cia 2 \(cancels 1 ring\) Cia wins without play", rows), rows
    assert re.search(r"4 Dan 2 Anna 80 Bo 40 Cia 10 Dan 22 Anna 1 Bo 1 \(cancels 1 ring\) Cia Cia -1\.00", rows), rows
    assert re.search(r"5 Anna 2 Anna 30 Bo 100 Cia 0 Dan 22 void: piles mixed up", rows), rows
    assert re.search(r"5 Anna 2 Anna 100 Bo 30 Cia 0 Dan 22 Anna 1 Bo 1 Cia Anna 9\.00 Cia -1\.00", rows), rows

    # Standing after each deal (points, ○ uncancelled rings) and the pot after it.
    standing = text[text.index("Standing after each deal"):text.index("Result")]
    assert re.search(r"1 2 0 ○1 0 ○1 0 ○1 7\.00", standing), standing
    assert re.search(r"2 3 0 ○1 0 ○1 0 7\.00", standing), standing
    assert re.search(r"3 3 0 ○1 1 0 7\.00", standing), standing
    assert re.search(r"4 4 0 1 ○1 0 8\.00", standing), standing
    assert re.search(r"5 5 1 1 ○2 0 0\.00", standing), standing

    result = text[text.index("Result"):]
    for name, amount in {"Anna": "8.00", "Bo": "-2.00", "Cia": "-4.00", "Dan": "-2.00"}.items():
        assert f"{name} {amount}" in result
    assert any("DejaVu" in f for f in pdf_fonts(resp.data))
    first_page_png(resp.data, artifacts / "pdf" / "protocol-schloapfer.png")


def test_schloapfer_loser_pays_protocol_and_access(client: Any) -> None:
    # Two players, stake 3.00, loser_pays; 1 stroke at stake. Anna takes 100 of
    # the 152 eyes five times: five strokes, she has finished; Bo is the last
    # player left and has lost (SL-9): he pays Anna 3.00.
    api = Api(client)
    api.new_night(["Anna", "Bo"])
    m = api.new_match("schloapfer", ["Anna", "Bo"], stake="3.00")
    for _ in range(5):
        status, body = api.round(m["id"], {"eyes": {"Anna": 100, "Bo": 52}})
        assert status == 201, body
    assert client.get(f"/matches/{m['id']}/protocol.pdf").status_code == 403
    resp = client.get(f"/matches/{m['id']}/protocol.pdf", headers={"Authorization": f"Bearer {api.token}"})
    assert resp.status_code == 200
    text = pdf_text(resp.data)
    assert "Bo is the last player left and has lost (SL-9)." in text
    assert "Anna Points 5 · Rings 0" in text and "Bo Points 0 · Rings 0" in text and "lost" in text
    assert re.search(r"5 Anna 1 Anna 100 Bo 52 Anna 1 Anna 3\.00 Bo -3\.00", text), text
    assert "Anna 3.00" in text[text.index("Result"):] and "Bo -3.00" in text[text.index("Result"):]
