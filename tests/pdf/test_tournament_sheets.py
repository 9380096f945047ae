"""A tournament's sheets (issue 30), read back: the table cards (one A6 card per table, the seats in order, the
leader link's QR code decoded by zbar) and the final standings with prizes and the night's settlement.

Text comes back with ``pdftotext`` (poppler), as a reader copying from the
PDF would get it; codes with zbar from the page rendered at 150 dpi.
"""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path
from typing import Any

from pypdf import PdfReader

from tests.components import missing
from tests.pdf_helpers import first_page_png, page_qr_codes

PLAYERS = ["Anna", "Bo", "Cia", "Dan", "Eva", "Filip", "Greta", "Hugo", "Ida"]
A6 = (105 / 25.4 * 72, 148 / 25.4 * 72)  # points


def pdftotext(data: bytes, workdir: Path) -> list[str]:
    """Each page's text (``pdftotext -layout``), white space folded."""
    if shutil.which("pdftotext") is None:
        missing("pdftotext (Debian package poppler-utils)")
    pdf = workdir / "sheet.pdf"
    pdf.write_bytes(data)
    out = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True, capture_output=True).stdout
    return [" ".join(page.split()) for page in out.decode("utf-8").split("\f") if page.strip()]


def create(client: Any) -> dict[str, Any]:
    resp = client.post("/api/tournaments", json={
        "name": "Klubbkväll", "currency": "SEK", "game": "svangknack", "players": PLAYERS, "table_size": 4,
        "series": 1, "stake": "3.00", "entry_fee": "20.00", "prizes": [50, 30, 20], "seed": "sheets"})
    assert resp.status_code == 201, resp.get_json()
    return dict(resp.get_json())


def test_table_cards_one_a6_card_per_table_with_the_leaders_code(client: Any, tmp_path: Path,
                                                                 artifacts: Path) -> None:
    made = create(client)
    edit = {"Authorization": f"Bearer {made['edit_token']}"}
    resp = client.get(f"/tournaments/{made['id']}/tables.pdf", headers=edit)
    assert resp.status_code == 200 and resp.mimetype == "application/pdf"
    data = resp.get_data()
    first_page_png(data, artifacts / "pdf" / "tournament-table-card.png")
    reader = PdfReader(io.BytesIO(data))
    assert len(reader.pages) == len(made["tables"]) == 3
    for page in reader.pages:
        width, height = float(page.mediabox.width), float(page.mediabox.height)
        assert abs(width - A6[0]) < 1 and abs(height - A6[1]) < 1
    pages = pdftotext(data, tmp_path)
    for number, (text, table) in enumerate(zip(pages, made["tables"], strict=True), start=1):
        assert "Klubbkväll" in text and "Series 1 of 1" in text and f"Table {table['table']}" in text
        positions = [text.index(f"{seat}. {name}") for seat, name in enumerate(table["players"], start=1)]
        assert positions == sorted(positions)  # in seat order
        codes = page_qr_codes(data, number, tmp_path)
        assert codes == [f"http://localhost/t/{table['table_token']}"]


def test_table_cards_need_the_organisers_right(client: Any) -> None:
    made = create(client)
    path = f"/tournaments/{made['id']}/tables.pdf"
    assert client.get(path, headers={"Authorization": f"Bearer {made['view_token']}"}).status_code == 403
    table_token = made["tables"][0]["table_token"]
    assert client.get(path, headers={"Authorization": f"Bearer {table_token}"}).status_code == 403


def test_final_sheet_standings_prizes_and_settlement(client: Any, tmp_path: Path, artifacts: Path) -> None:
    made = create(client)
    edit = {"Authorization": f"Bearer {made['edit_token']}"}
    first = made["tables"][0]
    dealer, svangare = first["players"][0], first["players"][1]
    resp = client.post(f"/api/matches/{first['match']}/rounds", json={"svangare": svangare,
                                                                      "participants": [svangare]}, headers=edit)
    assert resp.status_code == 201, resp.get_json()
    for table in made["tables"]:
        assert client.post(f"/api/matches/{table['match']}/close", json={"pot": "split"},
                           headers=edit).status_code == 200
    done = client.post(f"/api/tournaments/{made['id']}/next", headers=edit)
    assert done.status_code == 200 and done.get_json()["finished"] is True
    view = client.get(f"/api/tournaments/{made['id']}", headers=edit).get_json()
    resp = client.get(f"/tournaments/{made['id']}/final.pdf?view={made['view_token']}")
    assert resp.status_code == 200
    first_page_png(resp.get_data(), artifacts / "pdf" / "tournament-final.png")
    text = " ".join(pdftotext(resp.get_data(), tmp_path))
    assert "Final standings: Klubbkväll" in text
    for row in view["standings"]:
        assert row["player"] in text
    winner = view["standings"][0]
    assert winner["player"] == svangare and dealer != svangare
    prizes = view["prizes"]
    pool = 20_00 * len(PLAYERS)
    assert prizes[0] == {"player": svangare, "place": 1, "amount": "90.00"}  # 50 % of the pool of 180.00
    assert sum(int(p["amount"].replace(".", "")) for p in prizes) == pool  # the whole pool, exact
    text = text.replace("\u00a0", " ")
    for prize in prizes:
        assert f"{prize['place']} {prize['player']} SEK {prize['amount']}" in text
    assert "Who pays whom" in text and "payment" in text
    codes = page_qr_codes(resp.get_data(), 1, tmp_path, dpi=300)
    assert codes == [f"http://localhost/v/{made['view_token']}"]


def test_the_settlement_of_more_tables_than_fit_the_page_lists_each_players_own(client: Any, tmp_path: Path) -> None:
    """Issue 45.6: a column per match ran off the page (10,000 characters a line at 1,000 tables, 15 s).

    Past the page's width each player's line lists the matches they played, the amounts without the
    currency, which the column's title names.
    """
    players = [f"Spelare {k:02d}" for k in range(30)]
    resp = client.post("/api/tournaments", json={
        "name": "Klubbkväll", "currency": "SEK", "game": "schwimmen", "players": players, "table_size": 3,
        "series": 1, "stake": "1.00", "seed": "wide"})
    assert resp.status_code == 201, resp.get_json()
    made = resp.get_json()
    sheet = client.get(f"/nights/{made['night']}/settlement.pdf",
                       headers={"Authorization": f"Bearer {made['edit_token']}"})
    assert sheet.status_code == 200
    text = " ".join(pdftotext(sheet.get_data(), tmp_path))
    assert "Player Matches Total Open (SEK)" in text and "Schwimmen #" not in text  # (the title wraps)
    for table in made["tables"]:
        for name in table["players"]:
            assert f"{name} #{table['match']} -1.00 " in text, (name, table)  # its one table (the stake in), totals
