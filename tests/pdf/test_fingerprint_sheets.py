"""Every sheet and protocol of a night prints the first 16 characters of its fingerprint (issue 46.2).

Read back with ``pdftotext`` on every page, as a player holding the paper
would compare it with the night page or the API's ``fingerprint``; on
SQLite and PostgreSQL. After a write the sheets print the new one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.pdf.test_tournament_sheets import create as create_tournament
from tests.pdf.test_tournament_sheets import pdftotext
from tests.web.helpers import Api


def _fingerprint(client: Any, night_id: int, token: str) -> str:
    resp = client.get(f"/api/nights/{night_id}", headers={"Authorization": f"Bearer {token}"})
    assert resp.status_code == 200, resp.get_json()
    return str(resp.get_json()["fingerprint"])


def _every_page_shows(client: Any, path: str, words: str, tmp_path: Path) -> None:
    resp = client.get(path)
    assert resp.status_code == 200 and resp.mimetype == "application/pdf", path
    pages = pdftotext(resp.get_data(), tmp_path)
    assert pages
    for number, text in enumerate(pages, start=1):
        assert words in text, (path, number, text[-200:])


def test_the_settlement_sheet_and_the_protocols_print_the_fingerprint(client: Any, tmp_path: Path) -> None:
    api = Api(client)
    night = api.new_night(["Anna", "Bo", "Cia", "Dan"])
    sk = api.new_match("svangknack", ["Anna", "Bo", "Cia", "Dan"], stake="3.00")["id"]
    kul = api.new_match("kul", ["Anna", "Bo", "Cia"], stake="1.00")["id"]
    for payload in ({"participants": ["Bo", "Dan"], "tricks": {"Bo": 2, "Dan": 1}},
                    {"participants": ["Cia", "Anna"], "tricks": {"Cia": 3, "Anna": 0}}):
        assert api.round(sk, payload)[0] == 201
    view = night["view_token"]
    paths = [f"/nights/{night['id']}/settlement.pdf?view={view}", f"/matches/{sk}/protocol.pdf?view={view}",
             f"/matches/{kul}/protocol.pdf?view={view}"]
    first = _fingerprint(client, night["id"], night["edit_token"])
    for path in paths:
        _every_page_shows(client, path, f"fingerprint {first[:16]}", tmp_path)
    assert api.round(kul, {"last_trick": "Cia"})[0] == 201
    now = _fingerprint(client, night["id"], night["edit_token"])
    assert now[:16] != first[:16]
    for path in paths:
        _every_page_shows(client, path, f"fingerprint {now[:16]}", tmp_path)
    assert client.get("/lang/sv").status_code in (200, 302)
    _every_page_shows(client, paths[0], f"fingeravtryck {now[:16]}", tmp_path)


def test_the_tournament_sheet_prints_the_fingerprint(client: Any, tmp_path: Path) -> None:
    made = create_tournament(client)
    edit = made["edit_token"]
    fp = _fingerprint(client, made["night"], edit)
    resp = client.get(f"/tournaments/{made['id']}/final.pdf", headers={"Authorization": f"Bearer {edit}"})
    assert resp.status_code == 200, resp.status_code
    for text in pdftotext(resp.get_data(), tmp_path):
        assert f"fingerprint {fp[:16]}" in text
