"""Score protocols as PDF, read back and checked against the engine's figures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.pdf_helpers import first_page_png, pdf_fonts, pdf_text
from tests.web.helpers import Api


def test_svangknack_protocol(client: Any, artifacts: Path) -> None:
    api = Api(client)
    api.new_night(["Anna", "Bo", "Cia", "Dan"])
    m = api.new_match("svangknack", ["Anna", "Bo", "Cia", "Dan"], stake="3.00")
    api.round(m["id"], {"participants": ["Bo", "Dan"], "tricks": {"Bo": 2, "Dan": 1}})  # pot 12, nobody bet
    api.round(m["id"], {"participants": ["Cia", "Anna"], "tricks": {"Cia": 3}})  # Anna bet 12 -> pot 15
    api.round(m["id"], {"participants": ["Dan"]})  # Dan alone takes 15
    api.call("POST", f"/api/matches/{m['id']}/rounds/3/void", {"reason": "Dan had shown his cards"})
    api.round(m["id"], {"svangare": "Anna", "participants": ["Anna"], "new_stake": "6.00"})  # passed; fresh pot 24
    resp = client.get(f"/matches/{m['id']}/protocol.pdf?view={api.night['view_token']}")
    assert resp.status_code == 200 and resp.mimetype == "application/pdf"
    text = pdf_text(resp.data)
    final = api.match(m["id"])["state"]
    # each round's row, in order: dealer, svängare, knocked and tricks, pot before, per trick, bets, pot after, notes
    rows = ["1 Anna Bo Bo 2, Dan 1 12.00 4.00 12.00 ",
            "2 Bo Cia Anna 0, Cia 3 12.00 4.00 Anna 12.00 15.00 ",  # Anna bet 12.00: pot 12 -> 15
            "3 Cia Dan alone 15.00 5.00 15.00 void: Dan had shown his cards ",
            # numbered as the table counts: round 3 was voided (never happened), this one is round 3 again
            "3 Cia Anna (passed) alone 15.00 5.00 24.00 new stake 6.00 "]
    at = [text.find(row) for row in rows]
    assert -1 not in at and at == sorted(at), (at, text)
    # the result table: each player's final balance beside the name, in seat order, then the pot
    result = " ".join(f"{name} {amount}" for name, amount in final["balances"].items())
    assert result == "Anna -9.00 Bo -4.00 Cia -3.00 Dan -8.00"
    assert f"Result Player Balance {result} Pot: {final['pot']} " in text, text
    assert "Running balances # Anna Bo Cia Dan " in text and " 3 -9.00 -4.00 -3.00 -8.00 Balance of each" in text
    assert any("DejaVu" in f for f in pdf_fonts(resp.data))
    first_page_png(resp.data, artifacts / "pdf" / "protocol-svangknack.png")


def test_kul_protocol_and_access(client: Any, artifacts: Path) -> None:
    api = Api(client)
    api.new_night(["Anna", "Bo"])
    m = api.new_match("kul", ["Anna", "Bo"], stake="2.00")
    for who in ("Bo", "Anna", "Bo", "Bo"):
        api.round(m["id"], {"last_trick": who})
    assert client.get(f"/matches/{m['id']}/protocol.pdf").status_code == 403
    resp = client.get(f"/matches/{m['id']}/protocol.pdf", headers={"Authorization": f"Bearer {api.token}"})
    text = pdf_text(resp.data)
    assert "Bo wins the pot" in text and "2.00" in text and "-2.00" in text
    first_page_png(resp.data, artifacts / "pdf" / "protocol-kul.png")


def test_svangknack_protocol_in_swedish_says_options_and_numbers_as_a_swede_reads_them(client: Any) -> None:
    """Issue 28, point 8: "Första potten: alla spelare", not "first_pot = all"; "15,00" under "3,00 kr"."""
    api = Api(client)
    api.new_night(["Anna", "Bo", "Cia", "Dan"])
    m = api.new_match("svangknack", ["Anna", "Bo", "Cia", "Dan"], stake="3.00")
    api.round(m["id"], {"participants": ["Bo", "Dan"], "tricks": {"Bo": 2, "Dan": 1}})
    api.round(m["id"], {"participants": ["Cia", "Anna"], "tricks": {"Cia": 3}})  # Anna bet 12 -> pot 15
    api.call("POST", f"/api/matches/{m['id']}/close", {"pot": "split"})
    resp = client.get(f"/matches/{m['id']}/protocol.pdf?view={api.night['view_token']}",
                      headers={"Accept-Language": "sv"})
    text = pdf_text(resp.data)
    assert "first_pot" not in text and "forced_participation" not in text and " = " not in text
    assert "alla spelare" in text and "aldrig" in text  # the options' values in words
    assert "3,00" in text and "15,00" in text and "Anna 12,00" in text
    assert "15.00" not in text and "12.00" not in text
    assert "split" not in text and "delas" in text  # the close's pot in words
