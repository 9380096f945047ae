"""Settling a night: payments, partial payments, voids, carried debts, details, the sheet."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.pdf_helpers import first_page_png, page_qr_codes, pdf_text
from tests.web.helpers import Api, dec


def kul_night(client: Any, currency: str = "SEK", players: list[str] | None = None, **extra: Any) -> tuple[Api, int]:
    """A night where Cia wins a Kul of four at 2.00 a head: everyone else owes Cia 2.00."""
    api = Api(client)
    names = players or ["Anna", "Bo", "Cia", "Dan"]
    api.new_night(names, currency=currency, **extra)
    m = api.new_match("kul", names, stake="2.00")
    for _ in range(3):
        api.round(m["id"], {"last_trick": "Cia"})
    return api, m["id"]


def settlement(api: Api, plan: str = "") -> dict[str, Any]:
    status, body = api.call("GET", f"/api/nights/{api.night['id']}/settlement" + (f"?plan={plan}" if plan else ""))
    assert status == 200, body
    return body


def pay(api: Api, payer: str, payee: str, amount: str, **kw: Any) -> tuple[int, Any]:
    return api.call("POST", f"/api/nights/{api.night['id']}/payments",
                    {"from": payer, "to": payee, "amount": amount}, **kw)


def test_partial_payment_leaves_the_rest_open_and_full_payments_settle(client: Any) -> None:
    api, _ = kul_night(client)
    body = settlement(api)
    assert len(body["transfers"]) == 3 and body["settled"] is False
    status, body = pay(api, "Anna", "Cia", "0.50")
    assert status == 201, body
    after = body["settlement"]
    assert after["balances"]["Anna"] == "-1.50" and after["balances"]["Cia"] == "5.50"
    assert {(t["from"], t["amount"]) for t in after["transfers"]} == {("Anna", "1.50"), ("Bo", "2.00"),
                                                                      ("Dan", "2.00")}
    assert after["result"]["Anna"] == "-2.00"  # the night's result is unchanged
    for payer, amount in (("Anna", "1.50"), ("Bo", "2.00"), ("Dan", "2.00")):
        assert pay(api, payer, "Cia", amount)[0] == 201
    final = settlement(api)
    assert final["transfers"] == [] and final["settled"] is True
    assert all(v == "0.00" for v in final["balances"].values())


@pytest.mark.parametrize("payer, payee, amount, status, key", [
    ("Bo", "Cia", "2.01", 400, "field"),      # more than is open (Anna, the first player, may: she leads)
    ("Cia", "Anna", "1.00", 400, "field"),    # Cia owes nothing
    ("Anna", "Anna", "1.00", 400, "field"),
    ("Anna", "Zed", "1.00", 400, "field"),
    ("Anna", "Cia", "-1.00", 400, "field"),
    ("Anna", "Cia", "0", 400, "field"),
    ("Anna", "Cia", 1.5, 400, "field"),
])
def test_bad_payments_are_refused_and_change_nothing(client: Any, payer: str, payee: str, amount: Any,
                                                     status: int, key: str) -> None:
    api, _ = kul_night(client)
    before = settlement(api)
    got, body = pay(api, payer, payee, amount)
    assert got == status and key in body, body
    assert settlement(api) == before


def test_payment_double_tap_and_void(client: Any) -> None:
    api, _ = kul_night(client)
    first = pay(api, "Bo", "Cia", "2.00", headers={"Idempotency-Key": "pay-1"})
    again = pay(api, "Bo", "Cia", "2.00", headers={"Idempotency-Key": "pay-1"})
    assert first[0] == again[0] == 201 and first[1]["payment"]["id"] == again[1]["payment"]["id"]
    body = settlement(api)
    assert len(body["payments"]) == 1 and body["balances"]["Bo"] == "0.00"
    pid = body["payments"][0]["id"]
    status, body = api.call("POST", f"/api/nights/{api.night['id']}/payments/{pid}/void", {"reason": "wrong"})
    assert status == 200
    s = body["settlement"]
    assert s["balances"]["Bo"] == "-2.00" and s["payments"][0]["void"] is True
    assert api.call("POST", f"/api/nights/{api.night['id']}/payments/{pid}/void", {})[0] == 400
    assert api.call("POST", f"/api/nights/{api.night['id']}/payments/999/void", {})[0] == 404


def test_view_token_cannot_pay(client: Any) -> None:
    api, _ = kul_night(client)
    status, _ = pay(api, "Bo", "Cia", "2.00", token=api.night["view_token"])
    assert status == 403


def test_leader_plan_goes_through_the_leader(client: Any) -> None:
    api, _ = kul_night(client, leader="Anna")
    body = settlement(api, "leader")
    assert body["plan"] == "leader"
    assert all("Anna" in (t["from"], t["to"]) for t in body["transfers"])
    total: dict[str, Decimal] = {}
    for t in body["transfers"]:
        total[t["from"]] = total.get(t["from"], Decimal(0)) - dec(t["amount"])
        total[t["to"]] = total.get(t["to"], Decimal(0)) + dec(t["amount"])
    assert {k: v for k, v in total.items() if v} == {"Bo": Decimal("-2.00"), "Dan": Decimal("-2.00"),
                                                     "Cia": Decimal("6.00"), "Anna": Decimal("-2.00")}


def test_debts_carried_to_the_next_night_of_the_group(client: Any) -> None:
    api, _ = kul_night(client, group="Fredagsgänget")
    pay(api, "Anna", "Cia", "2.00")
    later = Api(client)
    later.new_night(["Anna", "Bo", "Cia"], group_token=api.night["group_token"])
    status, body = api.call("POST", f"/api/nights/{api.night['id']}/carry", {"to_night": later.night["id"]})
    assert status == 200, body
    assert body["settlement"]["transfers"] == [] and body["settlement"]["balances"]["Bo"] == "0.00"
    opening = settlement(later)
    assert opening["opening"] == {"Bo": "-2.00", "Cia": "4.00", "Dan": "-2.00"}
    assert sorted((t["from"], t["to"], t["amount"]) for t in opening["transfers"]) == [
        ("Bo", "Cia", "2.00"), ("Dan", "Cia", "2.00")]
    # Dan was not at the later night's table: he is seated there to settle the debt
    assert "Dan" in later.call("GET", f"/api/nights/{later.night['id']}")[1]["players"]
    # carrying to an earlier night, or another group's night, is refused
    other = Api(client)
    other.new_night(["X", "Y"])
    assert api.call("POST", f"/api/nights/{later.night['id']}/carry", {"to_night": api.night["id"]},
                    token=later.token)[0] == 400
    assert api.call("POST", f"/api/nights/{api.night['id']}/carry", {"to_night": other.night["id"]})[0] == 400


def test_payment_details_validation(client: Any) -> None:
    api, _ = kul_night(client)
    url = f"/api/nights/{api.night['id']}/players/Cia/details"
    status, body = api.call("POST", url, {"swish": "070-123 45 67"})
    assert status == 200 and body["swish"] and body["bank"] is None
    status, body = api.call("POST", url, {"iban": "DE89 3704 0044 0532 0130 00", "holder": "Cia"})
    assert status == 200 and body["iban"] == "DE89370400440532013000" and body["bank"] == "Commerzbank"
    assert api.call("POST", url, {"iban": "DE89 3704 0044 0532 0130 01", "holder": "Cia"})[1]["field"] == "iban"
    assert api.call("POST", url, {"iban": "DE89370400440532013000"})[1]["field"] == "holder"
    assert api.call("POST", url, {"swish": "12345"})[1]["field"] == "swish"
    assert api.call("POST", f"/api/nights/{api.night['id']}/players/Zed/details", {"swish": ""})[0] == 400


def test_settlement_page_shows_swish_qr_and_marks_paid(client: Any) -> None:
    api, _ = kul_night(client)
    api.call("POST", f"/api/nights/{api.night['id']}/players/Cia/details", {"swish": "0701234567"})
    client.get(f"/e/{api.token}")
    html = client.get(f"/nights/{api.night['id']}/settlement").get_data(as_text=True)
    assert html.count("<svg") >= 3 and "Swish QR code" in html
    assert "Anna owes" in html
    resp = client.post(f"/nights/{api.night['id']}/payments",
                       data={"payer": "Anna", "payee": "Cia", "amount": "2.00", "form_token": "t1"})
    assert resp.status_code == 302
    client.post(f"/nights/{api.night['id']}/payments",
                data={"payer": "Anna", "payee": "Cia", "amount": "2.00", "form_token": "t1"})  # double tap
    assert len(settlement(api)["payments"]) == 1


def test_settlement_sheet_pdf(client: Any, artifacts: Path) -> None:
    api, _ = kul_night(client, place="Klubben", leader="Anna")
    api.call("POST", f"/api/nights/{api.night['id']}/players/Cia/details", {"swish": "0701234567"})
    resp = client.get(f"/nights/{api.night['id']}/settlement.pdf?view={api.night['view_token']}")
    assert resp.status_code == 200 and resp.mimetype == "application/pdf"
    text = pdf_text(resp.data)
    assert "Klubben" in text and "Game leader: Anna" in text
    body = settlement(api)
    for t in body["transfers"]:
        assert f"{t['from']} {t['to']} SEK\u00a02.00".replace("\u00a0", " ") in text.replace("\u00a0", " ")
    assert "Signatures" in text
    assert client.get(f"/nights/{api.night['id']}/settlement.pdf").status_code == 403
    first_page_png(resp.data, artifacts / "pdf" / "settlement.png")


# --- paying from one's own phone (issue 20) ------------------------------------

def viewer(client: Any, api: Api) -> Any:
    """A second phone that opened the night's view link: it sees the settlement, it cannot edit."""
    other = client.application.test_client()
    assert other.get(f"/v/{api.night['view_token']}").status_code == 302
    return other


def pay_links(html: str) -> list[str]:
    import html as html_lib
    import re

    return [html_lib.unescape(h) for h in re.findall(r'<a class="button primary pay-button" href="([^"]+)"', html)]


def test_payer_sees_a_swish_pay_button_per_transfer(client: Any) -> None:
    from urllib.parse import parse_qs, urlsplit

    api, _ = kul_night(client)
    status, body = api.call("POST", f"/api/nights/{api.night['id']}/players/Cia/details",
                            {"swish": "+46 (0)70-123 45 67"})
    assert status == 200 and body["swish"] == "0701234567"  # stored in one normal form
    page = viewer(client, api).get(f"/nights/{api.night['id']}/settlement")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    links = pay_links(html)
    transfers = settlement(api)["transfers"]
    assert len(links) == len(transfers) == 3
    for link in links:
        parts = urlsplit(link)
        assert f"{parts.scheme}://{parts.netloc}{parts.path}" == "https://app.swish.nu/1/p/sw/"
        query = parse_qs(parts.query)
        assert query["sw"] == ["0701234567"] and query["amt"] == ["2.00"] and query["cur"] == ["SEK"]
        assert query["edit"] == ["msg"] and query["msg"][0].startswith(api.night["name"])
    assert "070-123 45 67" in html
    assert 'action="/nights/' not in html.split("Who pays whom")[1].split("</section>")[0]  # a viewer records nothing


def test_page_shows_exactly_the_decoded_payment_codes(client: Any, app: Any) -> None:
    """Each QR code on the page is the code the payments module made; decoded, it is the scheme's payload."""
    from referee import payment_qr
    from referee.ledger import paying
    from referee.models import Night, db
    from referee.web import pay
    from tests.engine.test_payment_codes import check_girocode, check_swish, decode_one

    for currency, details in (("SEK", {"swish": "070-123 45 67"}),
                              ("EUR", {"iban": "DE72 3702 0500 0009 7097 00", "holder": "Cia Åberg"})):
        api, _ = kul_night(client, currency=currency)
        assert api.call("POST", f"/api/nights/{api.night['id']}/players/Cia/details", details)[0] == 200
        html = viewer(client, api).get(f"/nights/{api.night['id']}/settlement").get_data(as_text=True)
        with app.app_context():
            night = db.session.get(Night, api.night["id"])
            cia = paying.player_details(night)["Cia"]
            message = f"{night.name} {night.date or night.created_at.date()}"
            transfers = settlement(api)["transfers"]
            assert len(transfers) == 3, transfers  # Anna, Bo and Dan each owe Cia 2.00: three codes to check
            for t in transfers:
                assert t["amount"] == "2.00"
                kind, code = pay.payment_qr(night, cia, 200)
                assert payment_qr.qr_svg(code) in html
                payload = decode_one(code)
                if currency == "SEK":
                    assert kind == "swish"
                    check_swish(payload, payee="0701234567", minor=200, message=message)
                else:
                    assert kind == "epc"
                    check_girocode(payload, name="Cia Åberg", iban="DE72370205000009709700", minor=200,
                                   text=message)
                assert t["to"] == "Cia"


def test_payer_sees_iban_and_amount_to_copy_for_euro(client: Any) -> None:
    import html as html_lib
    import re

    api, _ = kul_night(client, currency="EUR")
    api.call("POST", f"/api/nights/{api.night['id']}/players/Cia/details",
             {"iban": "at43 2011 1289 2684 7600", "holder": "Cia Åberg"})
    page = viewer(client, api)
    html = page.get(f"/nights/{api.night['id']}/settlement").get_data(as_text=True)
    assert pay_links(html) == []  # no app can be opened generically for a bank transfer
    copies = [html_lib.unescape(c) for c in re.findall(r'data-copy="([^"]*)"', html)]
    assert copies.count("AT432011128926847600") == 3 and copies.count("2.00") == 3
    assert html.count("AT43 2011 1289 2684 7600") == 3  # visible, selectable, in paper form
    assert "Erste Bank der oesterreichischen Sparkassen AG" in html  # the bank, from schwifty's registry
    # In German the amount is what a German banking app's field takes.
    page.get("/lang/de")
    html_de = page.get(f"/nights/{api.night['id']}/settlement").get_data(as_text=True)
    assert 'data-copy="2,00"' in html_de and "IBAN kopieren" in html_de


def test_payment_details_page_names_the_bank(client: Any) -> None:
    api, _ = kul_night(client)
    api.call("POST", f"/api/nights/{api.night['id']}/players/Cia/details",
             {"iban": "SE45 5000 0000 0583 9825 7466", "holder": "Cia"})
    client.get(f"/e/{api.token}")
    html = client.get(f"/nights/{api.night['id']}/players/Cia/details").get_data(as_text=True)
    assert "Bank: SEB" in html


@pytest.mark.parametrize(("lang", "says"), [
    ("de", "Eine IBAN aus DE hat 22 Zeichen, diese hat 21."),
    ("sv", "En IBAN från DE har 22 tecken, den här har 21."),
    ("en", "An IBAN from DE has 22 characters, this one has 21."),
])
def test_payment_detail_errors_in_the_leaders_language(client: Any, lang: str, says: str) -> None:
    api, _ = kul_night(client)
    status, body = api.call("POST", f"/api/nights/{api.night['id']}/players/Cia/details",
                            {"iban": "DE89 3704 0044 0532 0130 0", "holder": "Cia"},
                            headers={"Accept-Language": lang})
    assert status == 400 and body["field"] == "iban"
    assert says in str(body), body


def sheet_codes(pdf: bytes, tmp_path: Path) -> list[str]:
    """Every QR code printed on the settlement sheet, read back with zbar from the rendered pages."""
    import shutil
    import subprocess

    from PIL import Image

    from tests.components import missing
    from tests.engine.test_payment_codes import zbar_read

    if shutil.which("pdftoppm") is None:
        missing("pdftoppm (Debian package poppler-utils)")
    (tmp_path / "sheet.pdf").write_bytes(pdf)
    subprocess.run(["pdftoppm", "-png", "-r", "300", str(tmp_path / "sheet.pdf"), str(tmp_path / "page")],
                   check=True)
    found: list[str] = []
    for page in sorted(tmp_path.glob("page*.png")):
        found += [data.decode("utf-8") for data in zbar_read(Image.open(page).convert("L"))]
    return found


def night_message(app: Any, night_id: int) -> str:
    """What a payment of this night says: its name and date (independently of paying.payment_message)."""
    from referee.models import Night, db

    with app.app_context():
        night = db.session.get(Night, night_id)
        return f"{night.name} {night.date or night.created_at.date()}"


@pytest.mark.parametrize("currency", ["SEK", "EUR"])
def test_settlement_sheet_codes_decode_to_the_schemes_payloads(client: Any, app: Any, tmp_path: Path,
                                                               currency: str) -> None:
    """The printed sheet's payment codes, scanned from the PDF, say exactly what Swish 6.1 / EPC069-12 ask."""
    from tests.engine.test_payment_codes import check_girocode, check_swish

    api, _ = kul_night(client, currency=currency, place="Klubben")
    details = {"swish": "076-987 65 43"} if currency == "SEK" else {"iban": "LI21 0881 0000 2324 013A A",
                                                                     "holder": "Cia Åberg"}
    assert api.call("POST", f"/api/nights/{api.night['id']}/players/Cia/details", details)[0] == 200
    pdf = client.get(f"/nights/{api.night['id']}/settlement.pdf?view={api.night['view_token']}").data
    codes = sheet_codes(pdf, tmp_path)
    payment = [c for c in codes if not c.startswith("http")]
    assert len(payment) == len(settlement(api)["transfers"]) == 3
    assert len(codes) == 4  # and the link to the online record
    message = night_message(app, api.night["id"])
    for payload in payment:
        if currency == "SEK":
            check_swish(payload, payee="0769876543", minor=200, message=message)
        else:
            check_girocode(payload, name="Cia Åberg", iban="LI21088100002324013AA", minor=200, text=message)


def test_settlement_sheet_qr_codes_scan(client: Any, tmp_path: Path) -> None:
    """The sheet's QR codes (PNG images, one pixel a module, drawn unsmoothed) read back as printed."""
    from referee.payment_codes import swish_payload

    api, _ = kul_night(client, players=["Anna", "Bo", "Cia", "Dan", "Eva"])
    api.call("POST", f"/api/nights/{api.night['id']}/players/Cia/details", {"swish": "0701234567"})
    resp = client.get(f"/nights/{api.night['id']}/settlement.pdf?view={api.night['view_token']}")
    codes = page_qr_codes(resp.data, 1, tmp_path, dpi=200)
    from referee.models import Night, db

    with client.application.app_context():
        night = db.session.get(Night, api.night["id"])
        assert night is not None
        message = f"{night.name} {night.date or night.created_at.date()}"
    assert codes.count(swish_payload("0701234567", 200, message)) == 4  # everybody else pays Cia 2.00
    assert any(code.endswith(f"/v/{api.night['view_token']}") for code in codes), codes  # the online record
    assert len(codes) == 5
