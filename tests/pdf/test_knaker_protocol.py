"""Knaker's score protocol as PDF, read back: each game's dots and places, and the standings.

The match (entered through the JSON API): Anna, Bo, Cia, Dan (seat order),
Anna deals first, payout ``pot`` with a stake of 1.00 SEK: every player
stakes 1.00 before each game and the first place takes the 4.00 pot, a
shared first place splits it, a remainder of öre one each in seat order from
the dealer's left (KN-L). Worked out by hand:

seq 1  dot: Bo swaps face-down cards, 2 dots (KN-16.2): Bo 2, a warning (KN-16.8).
seq 2  game 1 (dealer Anna): Anna out, Bo lost, Cia out; Dan left.
       Places Anna 1, Cia 2, Dan 3, Bo 4; points 3, 2, 1, 0.
       Money: Anna +4.00 - 1.00 = +3.00, the others -1.00.
seq 3  dot: Dan throws away his last card, 3 dots: no ladders.
seq 4  dot: Cia, a spectator, points out a cheat: 1 dot for the next game (KN-16.1).
seq 5  dot: Dan, another cheat, the leader gives 2: 5 dots, disqualified (KN-16.8).
seq 6  game 2 (dealer Bo): Dan disqualified, then Anna, Bo and Cia go out together.
       Places Dan 4, Anna/Bo/Cia 1; points 1, 1, 1, 0.
       Money: the pot 4.00 split in three is 1.33 and 1 öre over, which goes to the
       first winner from the dealer's left (Cia): Cia +0.34, Anna +0.33, Bo +0.33, Dan -1.00.
seq 7  game 3, entered wrongly, void ("wrong player").
seq 8  game 3 (dealer Cia): Bo out, Dan lost, Cia out; Anna left.
       Places Bo 1, Cia 2, Anna 3, Dan 4; points 3, 2, 1, 0. Bo +3.00, the others -1.00.
seq 9  dot in game 4 (dealer Dan): Anna, an ordinary cheat, 1 dot: a warning.

Standings: Anna 3+1+1 = 5, Bo 0+1+3 = 4, Cia 2+1+2 = 5, Dan 1+0+0 = 1.
Balances: Anna 3.00+0.33-1.00 = 2.33, Bo -1.00+0.33+3.00 = 2.33,
Cia -1.00+0.34-1.00 = -1.66, Dan -3.00 (sum 0).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.pdf_helpers import first_page_png, pdf_fonts, pdf_text
from tests.web.helpers import Api

SEATS = ["Anna", "Bo", "Cia", "Dan"]
STANDINGS = {"Anna": 5, "Bo": 4, "Cia": 5, "Dan": 1}
BALANCES = {"Anna": "2.33", "Bo": "2.33", "Cia": "-1.66", "Dan": "-3.00"}


def dot(api: Api, match_id: int, player: str, offence: str, dots: int | None = None) -> None:
    body: dict[str, Any] = {"player": player, "offence": offence}
    if dots is not None:
        body["dots"] = dots
    status, answer = api.call("POST", f"/api/matches/{match_id}/dots", body)
    assert status == 201, answer


def game(api: Api, match_id: int, events: list[dict[str, list[str]]]) -> None:
    status, answer = api.round(match_id, {"events": events})
    assert status == 201, answer


def test_knaker_protocol(client: Any, artifacts: Path) -> None:
    api = Api(client)
    api.new_night(SEATS)
    m = api.new_match("knaker", SEATS, stake="1.00", options={"payout": "pot"})["id"]
    dot(api, m, "Bo", "swap_face_down")
    game(api, m, [{"out": ["Anna"]}, {"lost": ["Bo"]}, {"out": ["Cia"]}])
    dot(api, m, "Dan", "throw_last_card")
    dot(api, m, "Cia", "spectator")
    dot(api, m, "Dan", "other", 2)
    game(api, m, [{"disqualified": ["Dan"]}, {"out": ["Anna", "Bo", "Cia"]}])
    game(api, m, [{"out": ["Dan"]}, {"lost": ["Anna"]}, {"out": ["Bo"]}])
    status, _ = api.call("POST", f"/api/matches/{m}/rounds/7/void", {"reason": "wrong player"})
    assert status == 200
    game(api, m, [{"out": ["Bo"]}, {"lost": ["Dan"]}, {"out": ["Cia"]}])
    dot(api, m, "Anna", "ordinary")

    # The engine agrees with the hand computation.
    final = api.match(m)["state"]
    assert final["standings"] == STANDINGS and final["balances"] == BALANCES
    assert final["dots"] == {"Anna": 1, "Bo": 0, "Cia": 0, "Dan": 0}

    resp = client.get(f"/matches/{m}/protocol.pdf?view={api.night['view_token']}")
    assert resp.status_code == 200 and resp.mimetype == "application/pdf"
    text = pdf_text(resp.data)

    for no, dealer in enumerate(SEATS, start=1):
        assert f"Game {no} · Dealer: {dealer}" in text
    # Dots: seq, player, offence, rule, dots given, the player's total after, consequence.
    assert "1 Bo Swapped face-down cards KN-16.2 2 2 warning (KN-16.8)" in text
    # a game's dots are numbered within it (the log's places are not the table's numbers)
    assert "1 Dan Threw away the last card KN-16.2 3 3 no ladders (KN-16.8)" in text
    assert "2 Cia Spectator pointed out a cheat (next game) KN-16.1 1 1 for the next game" in text
    assert "3 Dan Another cheat KN-16.2 2 5 disqualified (KN-16.8)" in text
    assert "KN-16 1 1 warning (KN-16.8)" in text and "1 Anna Ordinary cheat" in text
    # Each game: the order of play (numbered as the table counts the games), then place, player, points, money.
    assert "#1 Order of play: 1. Anna out · 2. Bo lost · 3. Cia out" in text
    assert "1 Anna 3 3.00 2 Cia 2 -1.00 3 Dan 1 -1.00 4 Bo 0 -1.00" in text
    assert "#2 Order of play: 1. Dan disqualified · 2. Anna = Bo = Cia out" in text
    assert "1 Anna 1 0.33 1 Bo 1 0.33 1 Cia 1 0.34 4 Dan 0 -1.00" in text
    assert "#3 Order of play: 1. Dan out · 2. Anna lost · 3. Bo out void: wrong player" in text
    assert "1 Bo 3 3.00 2 Cia 2 -1.00 3 Anna 1 -1.00 4 Dan 0 -1.00" in text
    assert "Game 3 · Dealer: Cia Dots carried into this game (KN-16.1, KN-16.9): Cia 1" in text
    assert "No result entered for this game" in text  # game 4 so far has a dot only
    # Standings: places in games 1-3, points, balance.
    assert "Player G1 G2 G3 Points Balance" in text
    for name, places in {"Anna": "1 1 3", "Bo": "4 1 1", "Cia": "2 1 2", "Dan": "3 4 4"}.items():
        assert f"{name} {places} {STANDINGS[name]} {BALANCES[name]}" in text
    assert any("DejaVu" in f for f in pdf_fonts(resp.data))
    first_page_png(resp.data, artifacts / "pdf" / "protocol-knaker.png")
