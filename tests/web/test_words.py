"""Numbers and words in Swedish and German (issue 42.6) and the sheets' language (issue 42.7), both backends.

- No page or sheet of a sv/de reader shows an amount with a decimal point: money is written in one place
  (``referee/web/amounts.py``), form fields too ("7,00" prefilled, and taken back with its comma).
- A German page or sheet has no word of the app's Swedish (:data:`GLOSSARY`); game terms stay in the
  game's language (Svängknack's "knackade" is its own word, Schwimmen's knock is "geklopft" in German).
- Matches and entries are numbered as the table counts them: "Kul 2", not "Kul #<id>"; a Schwimmen entry
  is a game, a Schloapfer one a deal; a Knaker dot takes no game number; the close's void page reopens.
- A night keeps the language it was made in; its settlement.pdf fetched with no Accept-Language and no
  cookie (a PDF app) is in it; ``?lang=`` and Accept-Language still choose.

The PDFs are read back with ``pdftotext`` (poppler-utils), as a person copying the text would get it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from referee import ledger
from tests.components import missing

#: Words of the app's Swedish that a German page or sheet must not show (the verbs and nouns of its notes,
#: titles and history lines; not a game's own terms).
GLOSSARY = ("knackade", "sparad", "sparat", "Stryk", "Runda", "runda", "Öppna", "igen", "insats", "Spel", "giv",
            "Prick", "Avräkning", "Betalt", "potten", "omgång")
#: A game's own terms, allowed on its German pages (docs/using.md: "game terms stay in the game's language").
GAME_TERMS = {"svangknack": ("knackade",)}
#: An amount written with a decimal point, as no sv/de reader writes it.
POINT = re.compile(r"\d\.\d\d")
PLAYERS = ["Anna", "Bo", "Cia", "Dan", "Göran"]


def pdftotext(data: bytes) -> str:
    if shutil.which("pdftotext") is None:
        missing("pdftotext (Debian package poppler-utils)")
    assert data.startswith(b"%PDF-"), data[:60]
    with tempfile.TemporaryDirectory() as tmp:
        pdf = Path(tmp) / "sheet.pdf"
        pdf.write_bytes(data)
        return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                              check=True).stdout


def every_game_night(app: Any) -> tuple[str, int, dict[str, int]]:
    """A night of five with a match of every game (two Kul), a round in each, a new stake, a Knaker dot
    after its first game, and a closed Kul match; its edit token, id and the matches' ids."""
    with app.app_context():
        night = ledger.create_night("Alla spel", "SEK", PLAYERS)  # the page's language: the switch
        ids = {
            "svangknack": ledger.create_match(night, "svangknack", PLAYERS, "Anna", "3.00").id,
            "kul": ledger.create_match(night, "kul", PLAYERS, "Anna", "1.00").id,
            "kul2": ledger.create_match(night, "kul", PLAYERS, "Anna", "1.00").id,
            "schloapfer": ledger.create_match(night, "schloapfer", PLAYERS, "Anna", "1.00").id,
            "schwimmen": ledger.create_match(night, "schwimmen", PLAYERS, "Anna", "1.50").id,
            "knaker": ledger.create_match(night, "knaker", PLAYERS, "Anna", "1.00",
                                          {"double_deck": True, "payout": "loser_pays"}).id,
        }
        ledger.add_round(ids["svangknack"], {"svangare": "Bo", "participants": ["Bo"]})
        ledger.add_round(ids["svangknack"], {"svangare": "Cia", "participants": ["Cia", "Dan"],
                                             "tricks": {"Cia": 3, "Dan": 0}})
        ledger.add_round(ids["svangknack"], {"svangare": "Dan", "participants": ["Dan"], "new_stake": "6.00"})
        ledger.add_round(ids["kul"], {"last_trick": "Cia"})
        ledger.add_round(ids["kul2"], {"last_trick": "Bo"})
        ledger.close_match(ids["kul2"], "award", "Bo")
        ledger.add_round(ids["schloapfer"], {"eyes": {"Bo": 40, "Cia": 40, "Dan": 20, "Göran": 12, "Anna": 8}})
        ledger.add_round(ids["schwimmen"], {"ended_by": "knock", "by": "Göran", "losers": ["Bo"]})
        ledger.add_round(ids["knaker"], {"events": [{"out": [p]} for p in PLAYERS[:4]]})
        ledger.add_round(ids["knaker"], {"dot": {"player": "Bo", "offence": "swap_face_down"}})
        return night.edit_token, night.id, ids


def words_of(html: str) -> str:
    """A page's text as a reader meets it: the text, and the values and placeholders of its fields."""
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    fields = " ".join(re.findall(r'\b(?:value|placeholder)="([^"]*)"', html))
    return re.sub(r"<[^>]+>", " ", html) + " " + fields


def money_points(text: str) -> list[str]:
    return [text[max(0, m.start() - 30):m.end() + 10] for m in POINT.finditer(text)]


def swedish_words(text: str, game: str | None = None) -> list[str]:
    allowed = GAME_TERMS.get(game or "", ())
    return [f"{m.group(0)!r} in …{text[max(0, m.start() - 40):m.end() + 30]}…" for w in GLOSSARY if w not in allowed
            for m in [re.search(rf"(?<!\w){w}(?!\w)", text)] if m]


def night_pages(night_id: int, ids: dict[str, int]) -> list[tuple[str, str | None]]:
    """Every page of the night a leader walks: (path, game)."""
    pages: list[tuple[str, str | None]] = [(f"/nights/{night_id}", None), (f"/nights/{night_id}/settlement", None),
                                           (f"/nights/{night_id}/matches/new", None)]
    for key, match_id in ids.items():
        game = "kul" if key == "kul2" else key
        pages += [(f"/matches/{match_id}", game), (f"/matches/{match_id}/rounds/1/void", game),
                  (f"/matches/{match_id}/table", game)]
    pages += [(f"/nights/{night_id}/matches/new?game={g}", None) for g in ("svangknack", "schwimmen", "knaker")]
    return pages


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_pages_write_money_with_a_comma_and_german_pages_no_swedish(client: Any, lang: str) -> None:
    token, night_id, ids = every_game_night(client.application)
    client.get(f"/e/{token}")
    client.get(f"/lang/{lang}")
    found = []
    for path, game in night_pages(night_id, ids):
        resp = client.get(path)
        assert resp.status_code == 200, path
        text = words_of(resp.get_data(as_text=True))
        found += [f"{path}: {hit}" for hit in money_points(text)]
        if lang == "de":
            found += [f"{path}: {hit}" for hit in swedish_words(text, game)]
    assert found == []


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_sheets_write_money_with_a_comma_and_german_sheets_no_swedish(client: Any, lang: str) -> None:
    token, night_id, ids = every_game_night(client.application)
    client.get(f"/e/{token}")
    client.get(f"/lang/{lang}")
    found = []
    sheets = [(f"/matches/{m}/protocol.pdf", "kul" if key == "kul2" else key) for key, m in ids.items()]
    for path, game in [*sheets, (f"/nights/{night_id}/settlement.pdf", None)]:
        resp = client.get(path)
        assert resp.status_code == 200, path
        text = pdftotext(resp.data)
        found += [f"{path}: {hit}" for hit in money_points(text)]
        if lang == "de":
            found += [f"{path}: {hit}" for hit in swedish_words(text, game)]
    assert found == []
    # The protocol's result table and pot: "49,00"-style amounts, the new stake too.
    text = pdftotext(client.get(f"/matches/{ids['svangknack']}/protocol.pdf").data)
    assert re.search(r"-?\d+,\d\d", text)


def test_matches_and_entries_are_numbered_as_the_table_counts_them(client: Any) -> None:
    token, night_id, ids = every_game_night(client.application)
    client.get(f"/e/{token}")
    client.get("/lang/sv")
    night = client.get(f"/nights/{night_id}").get_data(as_text=True)
    assert re.search(r">\s*Kul 1\s*<", night) and re.search(r">\s*Kul 2\s*<", night), night
    assert not re.search(r"#\d", words_of(night))
    kul2 = client.get(f"/matches/{ids['kul2']}").get_data(as_text=True)
    assert "<title>Kul 2" in kul2 and f"#{ids['kul2']}" not in words_of(kul2)
    # The close of Kul 2 is its 2nd entry: "Öppna igen…" opens a page that says it reopens the match.
    reopen = client.get(f"/matches/{ids['kul2']}/rounds/2/void").get_data(as_text=True)
    assert "<h1>Öppna partiet igen</h1>" in reopen and "<title>Stryk" not in reopen
    assert "<h1>Stryk spel 1</h1>" in client.get(f"/matches/{ids['schwimmen']}/rounds/1/void").get_data(as_text=True)
    assert "<h1>Stryk giv 1</h1>" in client.get(f"/matches/{ids['schloapfer']}/rounds/1/void").get_data(as_text=True)
    # Knaker: the dot after game 1 is the log's 2nd entry; it has no game number, and the next game is game 2.
    dot_page = client.get(f"/matches/{ids['knaker']}/rounds/2/void").get_data(as_text=True)
    assert "<h1>Stryk pricken för Bo</h1>" in dot_page
    knaker = client.get(f"/matches/{ids['knaker']}").get_data(as_text=True)
    shown = dict(re.findall(r'<li class="[^"]*" id="round-(\d+)">\s*<span class="seq">([^<]*)</span>', knaker))
    assert shown == {"1": "1", "2": "·"}, shown


def test_a_save_is_named_with_the_games_word_and_number(client: Any) -> None:
    from tests.web.test_pages import round_form

    token, _night_id, ids = every_game_night(client.application)
    client.get(f"/e/{token}")
    client.get("/lang/sv")

    def save(match_id: int, data: dict[str, str]) -> str:
        resp = client.post(f"/matches/{match_id}/rounds", data=round_form(client, match_id) | data)
        assert resp.status_code == 302, resp.get_data(as_text=True)[:2000]
        page = client.get(resp.headers["Location"]).get_data(as_text=True)
        flash = re.search(r'class="flash ok[^"]*"[^>]*>([^<]*)<', page)  # (the saved note above the form)
        assert flash is not None
        return flash.group(1).strip()

    # Knaker: a dot after game 1 (the log's 3rd entry), then game 2 (the log's 4th).
    assert save(ids["knaker"], {"dot": "2:swap_face_down"}) == "Prick för Cia sparad."
    fields = {f"kind_{p}": "out" for p in range(4)} | {f"step_{p}": str(p + 1) for p in range(4)}
    assert save(ids["knaker"], {"save": "game", **fields}) == "Spel 2 sparat."
    # Schwimmen: game 2.
    assert save(ids["schwimmen"], {"ended_by": "knock", "by": "Anna", "entry": "losers",
                                     "loser_2": "on"}) == "Spel 2 sparat."


def test_payment_amounts_are_prefilled_with_a_comma_and_taken_back(client: Any) -> None:
    token, night_id, _ids = every_game_night(client.application)
    client.get(f"/e/{token}")
    client.get("/lang/sv")
    html = client.get(f"/nights/{night_id}/settlement").get_data(as_text=True)
    form = re.search(r'<form[^>]*action="[^"]*/payments"[^>]*>(.*?)</form>', html, re.S)
    assert form is not None, html[:3000]
    fields = dict(re.findall(r'name="([^"]+)"[^>]*value="([^"]*)"', form.group(1)))
    assert re.fullmatch(r"\d+,\d\d", fields["amount"]), fields
    resp = client.post(f"/nights/{night_id}/payments", data=fields)
    assert resp.status_code == 302, resp.get_data(as_text=True)[:2000]
    from referee.models import Payment, db

    with client.application.app_context():
        paid = db.session.query(Payment).filter_by(night_id=night_id, kind="payment").all()
    digits = fields["amount"].replace(",", "")
    assert [p.amount for p in paid] == [int(digits)]


def test_the_settlement_sheet_is_in_the_nights_language_for_a_pdf_app(client: Any) -> None:
    """A night made on a Swedish phone: its settlement.pdf opened by a PDF app (no Accept-Language, no
    cookie, the view link's token) comes out in Swedish; ``?lang=`` and Accept-Language still choose."""
    sv = client.application.test_client()
    resp = sv.post("/nights/new", data={"name": "Fredag", "currency": "SEK", "players": "Anna\nBo\nCia"},
                   headers={"Accept-Language": "sv-SE,sv;q=0.9"})
    assert resp.status_code == 302
    night_id = int(resp.headers["Location"].rsplit("/", 1)[1])
    with client.application.app_context():
        night = ledger.get_night(night_id)
        assert night.language == "sv"
        ledger.add_round(ledger.create_match(night, "kul", ["Anna", "Bo", "Cia"], "Anna", "1.50").id,
                         {"last_trick": "Bo"})
        view = night.view_token
    pdf_app = client.application.test_client()  # no cookie, no language
    text = pdftotext(pdf_app.get(f"/nights/{night_id}/settlement.pdf?view={view}").data)
    assert "Avräkning: Fredag" in text, text[:500]
    assert not POINT.search(text), text[:800]
    assert "Settlement" not in text
    english = pdftotext(pdf_app.get(f"/nights/{night_id}/settlement.pdf?view={view}&lang=en").data)
    assert "Settlement: Fredag" in english
    german = pdftotext(pdf_app.get(f"/nights/{night_id}/settlement.pdf?view={view}",
                                   headers={"Accept-Language": "de-DE"}).data)
    assert "Abrechnung: Fredag" in german


def test_the_api_keeps_and_says_a_nights_language(client: Any) -> None:
    from tests.web.helpers import Api

    api = Api(client)
    made = api.new_night(["Anna", "Bo", "Cia"], language="de")
    assert made["language"] == "de"
    status, body = api.call("GET", f"/api/nights/{made['id']}")
    assert status == 200 and body["language"] == "de"
    status, body = api.call("POST", "/api/nights", {"name": "x", "currency": "SEK", "players": ["A", "B"],
                                                     "language": "fr"}, token=None)
    assert status == 400 and body["field"] == "language"
    resp = client.post("/api/nights", json={"name": "y", "currency": "SEK", "players": ["A", "B"]},
                       headers={"Accept-Language": "sv"})
    assert resp.status_code == 201 and resp.get_json()["language"] == "sv"
    match = api.new_match("kul", ["Anna", "Bo", "Cia"], stake="1.50")
    assert api.round(match["id"], {"last_trick": "Bo"})[0] == 201
    resp = client.get(f"/nights/{made['id']}/settlement.pdf", headers={"Authorization": f"Bearer {api.token}"})
    text = pdftotext(resp.data)
    assert "Abrechnung: Test night" in text, text[:500]
    assert not POINT.search(text)
