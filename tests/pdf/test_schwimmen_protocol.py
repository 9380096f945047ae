"""The Schwimmen / 31 score protocol as PDF, read back and checked figure by figure.

The match (worked out by hand from shared/rules/schwimmen.md): Anna, Bo, Cia,
stake 2.00 SEK, one life each, pay_per_life on, 32 cards, Feuer on.

Start: everyone pays 2.00 -> pot 6.00, each -2.00 (SW-9).
1  Anna knocks; cards: Anna ♣A K 9 = 11+10+9 = 30, Bo ♦8 7 = 15 (♥9 alone 9),
   Cia ♠Q J 10 = 30. Bo lowest: loses his only life and swims (SW-7); his
   life costs 2.00 -> pot 8.00.
2  Cia shows 31; values Anna 24, Bo 27, Cia 31. Anna lowest: swims, pays
   2.00 -> pot 10.00.
3  Bo knocks, losers Cia (pot 12.00) -- voided ("wrong player"): back to game 2.
4  Anna knocks, losers Bo: Bo, swimming, goes under; his loss costs 2.00 ->
   pot 12.00.
5  Cia: Feuer, nothing entered: every other player (Anna) loses (SW-5): Anna
   goes under, pays 2.00 -> 14.00; Cia is the last one in and takes 14.00.
Balances: Anna -2-2-2 = -6.00, Bo -2-2-2 = -6.00, Cia -2+14 = +12.00 (sum 0).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.pdf_helpers import first_page_png, pdf_fonts, pdf_text
from tests.web.helpers import Api

OPTIONS = {"lives": 1, "pay_per_life": True, "deck": 32, "feuer": True}


def play(client: Any) -> tuple[Api, int]:
    api = Api(client)
    api.new_night(["Anna", "Bo", "Cia"])
    m = api.new_match("schwimmen", ["Anna", "Bo", "Cia"], stake="2.00", options=OPTIONS)
    games: list[dict[str, Any]] = [
        {"ended_by": "knock", "by": "Anna",
         "hands": {"Anna": ["AC", "KC", "9C"], "Bo": ["8D", "7D", "9H"], "Cia": ["QS", "JS", "10S"]}},
        {"ended_by": "31", "by": "Cia", "points": {"Anna": 24, "Bo": 27, "Cia": 31}},
        {"ended_by": "knock", "by": "Bo", "losers": ["Cia"]},
    ]
    for g in games:
        status, body = api.round(m["id"], g)
        assert status == 201, body
    status, body = api.call("POST", f"/api/matches/{m['id']}/rounds/3/void", {"reason": "wrong player"})
    assert status == 200, body
    for g in ({"ended_by": "knock", "by": "Anna", "losers": ["Bo"]}, {"ended_by": "feuer", "by": "Cia"}):
        status, body = api.round(m["id"], g)
        assert status == 201, body
    return api, m["id"]


def test_schwimmen_protocol(client: Any, artifacts: Path) -> None:
    api, match_id = play(client)
    final = api.match(match_id)["state"]
    # the engine agrees with the hand computation
    assert final["balances"] == {"Anna": "-6.00", "Bo": "-6.00", "Cia": "12.00"}
    assert final["winner"] == "Cia" and final["pot"] == "0.00"

    resp = client.get(f"/matches/{match_id}/protocol.pdf?view={api.night['view_token']}")
    assert resp.status_code == 200 and resp.mimetype == "application/pdf"
    text = pdf_text(resp.data)
    print(text)

    # game by game: how it ended, values where known, who lost a life, the pot after
    assert re.search(r"1 Anna Anna knocked Anna: ♣ A K 9 = 30 Bo: ♦ 8 7 = 15 Cia: ♠ Q J 10 = 30 Bo 8\.00", text)
    assert re.search(r"2 Bo Cia: 31 \(Schnauz\) Anna 24, Bo 27, Cia 31 Anna 10\.00", text)
    assert re.search(r"3 Cia Bo knocked – Cia 10\.00 void: wrong player", text)  # struck, changes nothing
    # numbered as the table counts: the voided game 3 never happened, the next one is game 3 again
    assert re.search(r"3 Cia Anna knocked – Bo 12\.00 went under: Bo", text)
    assert re.search(r"4 Anna Cia: Feuer – Anna 0\.00 went under: Anna Cia wins the pot of SEK 14\.00", text)

    # the lives table after each game: ≈ swims, × under (lives 1 each at the start); game 3 was voided,
    # the next one is game 3 as the table counts
    lives = text[text.index("Lives after each game"):]
    assert re.search(r"# Anna Bo Cia Start 1 1 1 1 1 0 ≈ 1 2 0 ≈ 0 ≈ 1 3 0 ≈ × 1 4 × × 1 ", lives)

    # the winner and the pot
    assert "Cia wins the match and the pot of SEK 14.00." in text
    for name, amount in final["balances"].items():
        assert re.search(rf"{name} {re.escape(amount)}", text)
    assert any("DejaVu" in f for f in pdf_fonts(resp.data))
    first_page_png(resp.data, artifacts / "pdf" / "protocol-schwimmen.png")


def test_schwimmen_protocol_of_a_closed_match(client: Any) -> None:
    api = Api(client)
    api.new_night(["Anna", "Bo"])
    m = api.new_match("schwimmen", ["Anna", "Bo"], stake="1.50")
    # Bo loses one of three lives; the leader then splits the pot of 3.00: 1.50 each, balances 0
    assert api.round(m["id"], {"ended_by": "knock", "by": "Anna", "losers": ["Bo"]})[0] == 201
    assert api.call("POST", f"/api/matches/{m['id']}/close", {"pot": "split"})[0] == 200
    text = pdf_text(client.get(f"/matches/{m['id']}/protocol.pdf?view={api.night['view_token']}").data)
    assert "1 Anna Anna knocked – Bo 3.00" in text
    # the pot in words, not its code (issue 28); a close takes no game number
    assert "1 Closed: split" not in text and "Closed: split among all players 0.00" in text
    assert "No winner: the leader closed the match." in text
    assert re.search(r"Start 3 3 1 3 2 ", text)
