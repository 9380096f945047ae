"""The settlement sheet's appendix: each balance's lines when asked (issue 46.1), read back with pdftotext.

``?explain=<name>`` prints that player's lines, ``?explain=1`` everybody's,
none without it; one short line per move, grouped by match, with the
reasons (rule and words) printed once above them. A 300-round night's
appendix for one player is at most two pages (the issue's bound).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

from referee.ledger import add_round, create_match, create_night

APPENDIX = "Why each balance is what it is"


def pdftotext(data: bytes, tmp_path: Path) -> tuple[str, int]:
    """The text of the PDF (-layout, no-break spaces as spaces) and its number of pages."""
    assert data.startswith(b"%PDF-"), data[:40]
    path = tmp_path / "sheet.pdf"
    path.write_bytes(data)
    text = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True,
                          check=True).stdout
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    pages = int(next(line.split()[1] for line in info.splitlines() if line.startswith("Pages:")))
    return text.replace("\xa0", " "), pages


def hand_night(client: Any) -> dict[str, Any]:
    """The Svängknack night of tests/web/test_explain.py: Cia goes bet in round 1, round 2 is voided."""
    night = client.post("/api/nights", json={"name": "Hand", "currency": "SEK",
                                              "players": ["Anna", "Bo", "Cia"]}).get_json()
    auth = {"Authorization": f"Bearer {night['edit_token']}"}
    match = client.post(f"/api/nights/{night['id']}/matches", headers=auth, json={
        "game": "svangknack", "players": ["Anna", "Bo", "Cia"], "dealer": "Anna", "stake": "3.00"}).get_json()["id"]
    for payload in ({"participants": ["Bo", "Cia"], "tricks": {"Bo": 3}},
                    {"participants": ["Cia", "Anna"], "tricks": {"Cia": 3}}):
        assert client.post(f"/api/matches/{match}/rounds", headers=auth, json=payload).status_code == 201
    assert client.post(f"/api/matches/{match}/rounds/2/void", headers=auth, json={"reason": "x"}).status_code == 200
    assert client.post(f"/api/matches/{match}/rounds", headers=auth,
                       json={"participants": ["Cia", "Anna"], "tricks": {"Cia": 2, "Anna": 1}}).status_code == 201
    assert client.post(f"/api/matches/{match}/close", headers=auth, json={"pot": "split"}).status_code == 200
    assert client.post(f"/api/nights/{night['id']}/payments", headers=auth,
                       json={"from": "Cia", "to": "Bo", "amount": "3.00"}).status_code == 201
    return dict(night)


def test_the_sheet_prints_a_players_lines_when_asked(client: Any, tmp_path: Path) -> None:
    night = hand_night(client)
    base = f"/nights/{night['id']}/settlement.pdf?view={night['view_token']}"
    plain, _pages = pdftotext(client.get(base).data, tmp_path)
    assert APPENDIX not in plain
    text, _pages = pdftotext(client.get(base + "&explain=Cia").data, tmp_path)
    appendix = text[text.index(APPENDIX):]
    assert "Cia: -SEK 1.00" in appendix and "Bo:" not in appendix and "Svängknack 1" in appendix
    rows = [line.strip() for line in appendix.splitlines()]
    reasons = {row.split(" ", 1)[1]: row.split(" ", 1)[0] for row in rows
               if row[:1].isdigit() and (" (SK-" in row or row.endswith("paid to Bo"))}
    assert set(reasons) == {"pays the opening stake … into the pot (SK-5)",
                            "went bet with 0 tricks: pays the pot … (SK-9)",
                            "took 2 of 3 tricks: … (SK-8)", "pays the stake … into the fresh pot (SK-6)",
                            "the match was closed and the pot split: … (SK-14)", "paid to Bo"}, reasons
    moves = [list(found) for found in re.findall(r"(\d+): (-?)SEK (\d+\.\d\d) ([\d+]+)", appendix)]
    bet = reasons["went bet with 0 tricks: pays the pot … (SK-9)"]
    fresh, tricks = reasons["pays the stake … into the fresh pot (SK-6)"], reasons["took 2 of 3 tricks: … (SK-8)"]
    assert sorted(moves) == [["1", "-", "9.00", bet], ["3", "", "5.00", f"{tricks}+{fresh}"],
                     ["4", "", "3.00", reasons["the match was closed and the pot split: … (SK-14)"]]], moves
    # (in columns, read across by pdftotext; the voided round 2 has no line; the stake and the payment no number)
    everybody, _pages = pdftotext(client.get(base + "&explain=1").data, tmp_path)
    assert all(f"{name}: " in everybody[everybody.index(APPENDIX):] for name in ("Anna", "Bo", "Cia"))
    assert client.get(base + "&explain=Nobody").status_code == 404


def test_a_300_round_night_prints_one_players_lines_on_at_most_two_pages(app: Any, client: Any,
                                                                         tmp_path: Path) -> None:
    """Five players, 300 Svängknack rounds in which every player's money moves (a fresh pot each round)."""
    players = ["Anna", "Björn", "Cia", "Dan", "Märta"]
    with app.app_context():
        night = create_night("Lång", "SEK", players)
        match = create_match(night, "svangknack", players, "Anna", "3.00", {})
        for i in range(300):
            svangare, other = players[(i + 1) % 5], players[(i + 2) % 5]
            add_round(match.id, {"svangare": svangare, "participants": [svangare, other],
                                 "tricks": {svangare: 2, other: 1}})
        night_id, view = night.id, night.view_token
    base = f"/nights/{night_id}/settlement.pdf?view={view}"
    _text, sheet = pdftotext(client.get(base).data, tmp_path)
    text, pages = pdftotext(client.get(base + "&explain=Björn").data, tmp_path)
    assert "300: " in text and "299: " in text
    assert pages - sheet <= 2, (sheet, pages)
