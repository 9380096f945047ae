"""Money you can pay with (issue 26): every plan settles, currencies never mix, Settled is said rightly.

Both backends (the ``client`` fixture runs each test on SQLite and PostgreSQL).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.web.helpers import Api
from tests.web.test_settlement import kul_night, pay, settlement


def pay_by_plan(api: Api, plan: str, *, last_first: bool = False) -> list[tuple[str, str, str]]:
    """Pay the plan's transfers one by one, reading the plan again after each, until nothing is open."""
    paid: list[tuple[str, str, str]] = []
    for _ in range(20):
        transfers = settlement(api, plan)["transfers"]
        if not transfers:
            return paid
        t = transfers[-1] if last_first else transfers[0]
        status, body = pay(api, t["from"], t["to"], t["amount"])
        assert status == 201, body
        paid.append((t["from"], t["to"], t["amount"]))
    raise AssertionError(f"the plan never ends: {paid}")


@pytest.mark.parametrize("leader", ["Anna", "Jürgen Öst"])
@pytest.mark.parametrize("last_first", [False, True])
def test_leader_plan_is_paid_transfer_by_transfer_until_settled(client: Any, leader: str,
                                                                last_first: bool) -> None:
    """A playing leader (Anna, who owes 2.00 herself) and one who does not play; collect first or pay out first."""
    api, _ = kul_night(client, leader=leader)
    first = settlement(api, "leader")
    assert all(leader in (t["from"], t["to"]) for t in first["transfers"])
    paid = pay_by_plan(api, "leader", last_first=last_first)
    final = settlement(api, "leader")
    assert final["settled"] is True and final["transfers"] == []
    assert set(final["balances"].values()) == {"0.00"}
    assert sorted(paid) == sorted((t["from"], t["to"], t["amount"]) for t in first["transfers"])
    if leader == "Anna":
        assert sorted(paid) == [("Anna", "Cia", "6.00"), ("Bo", "Anna", "2.00"), ("Dan", "Anna", "2.00")]
    else:
        assert ("Jürgen Öst", "Cia", "6.00") in paid and len(paid) == 4
    assert settlement(api)["settled"] is True  # the same night, whichever plan one looks at


@pytest.mark.parametrize("payer, payee, amount", [
    ("Bo", "Anna", "2.01"),    # more than Bo owes, even to the leader
    ("Anna", "Cia", "6.01"),   # the leader pays out more than Cia is owed
    ("Cia", "Anna", "1.00"),   # Cia owes nothing
    ("Bo", "Dan", "1.00"),     # neither the leader nor anyone owed
])
def test_leader_plan_still_refuses_what_is_not_open(client: Any, payer: str, payee: str, amount: str) -> None:
    api, _ = kul_night(client, leader="Anna")
    before = settlement(api, "leader")
    status, body = pay(api, payer, payee, amount)
    assert status == 400 and body["field"] in ("amount", "to"), body
    assert settlement(api, "leader") == before


def test_a_leader_who_does_not_play_can_be_paid_and_nobody_else_who_does_not(client: Any) -> None:
    api, _ = kul_night(client, leader="Eva")
    status, body = pay(api, "Bo", "Eva", "2.00")
    assert status == 201, body
    assert body["settlement"]["balances"]["Eva"] == "-2.00"  # Eva holds Bo's 2.00 for Cia
    assert pay(api, "Bo", "Zed", "1.00")[0] == 400


def settlement_page(client: Any, api: Api, plan: str = "") -> str:
    client.get(f"/e/{api.token}")
    url = f"/nights/{api.night['id']}/settlement" + (f"?plan={plan}" if plan else "")
    return str(client.get(url).get_data(as_text=True))


@pytest.mark.parametrize("leader", ["Anna", "Eva Ström"])
def test_leader_plan_is_paid_on_the_page_until_settled(client: Any, leader: str) -> None:
    api, _ = kul_night(client, leader=leader)
    for i in range(6):
        html = settlement_page(client, api, "leader")
        forms = re.findall(r'name="payer" value="([^"]+)"><input type="hidden" name="payee" value="([^"]+)">'
                           r'\s*<input type="hidden" name="plan" value="leader">\s*'
                           r'<input name="amount" inputmode="decimal" value="([^"]+)"', html)
        if not forms:
            break
        # The leader passes money on: never "owes SEK -6.00" or "is owed SEK -2.00".
        assert not re.search(r"(owes|is owed) (-SEK|SEK -)", html.replace("\u00a0", " ")), html
        payer, payee, amount = (re.sub("&#39;", "'", f) for f in forms[0])
        resp = client.post(f"/nights/{api.night['id']}/payments",
                           data={"payer": payer, "payee": payee, "amount": amount, "plan": "leader",
                                 "form_token": f"leader-{i}"})
        assert resp.status_code == 302, resp.get_data(as_text=True)
        assert "plan=leader" in resp.headers["Location"]
    html = settlement_page(client, api, "leader")
    assert 'id="settled"' in html and settlement(api)["settled"] is True


# --- carries stay in one currency (26.5) ----------------------------------------

@pytest.mark.parametrize("other", ["EUR", "JPY"])
def test_debts_are_not_carried_to_a_night_in_another_currency(client: Any, other: str) -> None:
    api, _ = kul_night(client, group="Fredagsgänget")
    foreign = Api(client)
    foreign.new_night(["Anna", "Bo", "Cia", "Dan"], currency=other, group_token=api.night["group_token"])
    before, before_foreign = settlement(api), settlement(foreign)
    status, body = api.call("POST", f"/api/nights/{api.night['id']}/carry", {"to_night": foreign.night["id"]})
    assert status == 400 and body["field"] == "to_night", body
    assert "SEK" in str(body) and other in str(body)
    assert settlement(api) == before and settlement(foreign) == before_foreign  # nothing carried, nobody seated
    # The settlement page offers only the group's later nights in SEK; a forged form is refused the same way.
    same = Api(client)
    same.new_night(["Anna", "Bo"], group_token=api.night["group_token"])
    html = settlement_page(client, api)
    options = re.findall(r'<option value="(\d+)"', html)
    assert options == [str(same.night["id"])]
    resp = client.post(f"/nights/{api.night['id']}/carry", data={"to_night": foreign.night["id"]},
                       follow_redirects=True)
    assert other in resp.get_data(as_text=True) and settlement(api) == before
    # and to the night in SEK it goes
    assert api.call("POST", f"/api/nights/{api.night['id']}/carry", {"to_night": same.night["id"]})[0] == 200


def test_a_carried_pot_waits_for_a_night_in_its_own_currency(client: Any) -> None:
    first = Api(client)
    night1 = first.new_night(["Anna", "Bo", "Cia"], group="Fredagsgänget")
    m1 = first.new_match("svangknack", ["Anna", "Bo", "Cia"], stake="3.00")
    assert first.call("POST", f"/api/matches/{m1['id']}/close", {"pot": "carry"})[1]["state"]["carried"] == "9.00"
    for currency in ("EUR", "JPY"):
        other = Api(client)
        other.new_night(["Anna", "Bo", "Cia"], currency=currency, group_token=night1["group_token"])
        stake = "3" if currency == "JPY" else "3.00"
        state = other.new_match("svangknack", ["Anna", "Bo", "Cia"], stake=stake)["state"]
        assert state["carried_in"] in ("0", "0.00") and state["pot"] in ("9", "9.00"), state  # only its own antes
    krona = Api(client)
    krona.new_night(["Anna", "Bo", "Cia"], group_token=night1["group_token"])
    state = krona.new_match("svangknack", ["Anna", "Bo", "Cia"], stake="3.00")["state"]
    assert state["carried_in"] == "9.00" and state["pot"] == "18.00"


# --- GiroCodes only where SEPA reaches (26.3) -------------------------------------

@pytest.mark.parametrize("iban, why", [
    ("BR18 0036 0305 0000 1000 9795 493C 1", "BR is not in the SEPA scheme"),
    ("TR33 0006 1005 1978 6457 8413 26", "TR is not in the SEPA scheme"),
    ("SA03 8000 0000 6080 1016 7519", "SA is not in the SEPA scheme"),
    ("AE07 0331 2345 6789 0123 456", "AE is not in the SEPA scheme"),
    ("KZ86 125K ZT50 0410 0100", "KZ is not in the SEPA scheme"),
    ("CH93 0076 2011 6238 5295 7", "outside the EEA (here CH) a GiroCode needs the bank's BIC"),
])
def test_no_girocode_where_sepa_does_not_reach_but_the_iban_to_copy(client: Any, iban: str, why: str) -> None:
    api, _ = kul_night(client, currency="EUR")
    status, body = api.call("POST", f"/api/nights/{api.night['id']}/players/Cia/details",
                            {"iban": iban, "holder": "Cia Ölund"})
    assert status == 200, body  # a valid IBAN all the same: it can be paid from a bank
    html = settlement_page(client, api)
    assert "qr-box" not in html and "GiroCode)" not in html  # no code offered
    assert html.count(iban) == 3 and html.count('class="copy" data-copy="2.00"') == 3  # IBAN and amount to copy
    assert html.replace("&#39;", "'").count(why) == 3, html
    pdf = client.get(f"/nights/{api.night['id']}/settlement.pdf").data
    from tests.pdf_helpers import pdf_text
    assert "GiroCode" not in pdf_text(pdf)


def test_girocode_outside_the_eea_carries_the_bic(client: Any, app: Any) -> None:
    from referee import payment_qr
    from referee.ledger import paying
    from referee.models import Night, db
    from referee.web import pay
    from tests.engine.test_payment_codes import check_girocode, decode_one

    api, _ = kul_night(client, currency="EUR")
    api.call("POST", f"/api/nights/{api.night['id']}/players/Cia/details",
             {"iban": "GB29 NWBK 6016 1331 9268 19", "holder": "Cia Ölund"})
    html = settlement_page(client, api)
    assert html.count("Bank QR code (GiroCode)") == 3 and "no-code" not in html
    with app.app_context():
        night = db.session.get(Night, api.night["id"])
        kind, code = pay.payment_qr(night, paying.player_details(night)["Cia"], 200)
        assert kind == "epc" and payment_qr.qr_svg(code) in html
        check_girocode(decode_one(code), name="Cia Ölund", iban="GB29NWBK60161331926819", minor=200,
                       text=f"{night.name} {night.date or night.created_at.date()}", bic="NWBKGB2LXXX")


def test_girocode_inside_the_eea_needs_no_bic() -> None:
    from referee.payment_codes import girocode_bic, girocode_refusal

    assert girocode_bic("DE72 3702 0500 0009 7097 00") == "" and girocode_bic("NO93 8601 1117 947") == ""
    assert girocode_refusal("EUR", "AT43 2011 1289 2684 7600") is None
    refusal = girocode_refusal("SEK", "AT43 2011 1289 2684 7600")
    assert refusal is not None and "euros only" in str(refusal) and "SEK" in str(refusal)


# --- the sheet says what each code pays to (26.4) ----------------------------------

def test_the_sheet_prints_each_payees_number_or_iban_beside_the_code(client: Any, artifacts: Any) -> None:
    from tests.pdf_helpers import first_page_png, pdf_text

    api = Api(client)
    names = ["Åsa", "Björn", "Jürgen", "Dan", "Eva"]
    api.new_night(names, currency="EUR")
    for winner in ("Jürgen", "Åsa", "Dan"):  # three Kuls: Jürgen, Åsa and Dan win one each, Björn and Eva lose
        m = api.new_match("kul", names, stake="2.00")
        for _ in range(3):
            api.round(m["id"], {"last_trick": winner})
    details = {"Jürgen": {"iban": "GB29 NWBK 6016 1331 9268 19", "holder": "Jürgen Öst"},
               "Åsa": {"iban": "DE72 3702 0500 0009 7097 00", "holder": "Åsa Ström"},
               "Dan": {"iban": "BR18 0036 0305 0000 1000 9795 493C 1", "holder": "Dan Brasil"}}
    for name, d in details.items():
        assert api.call("POST", f"/api/nights/{api.night['id']}/players/{name}/details", d)[0] == 200
    payees = {t["to"] for t in settlement(api)["transfers"]}
    assert payees == {"Jürgen", "Åsa", "Dan"}
    pdf = client.get(f"/nights/{api.night['id']}/settlement.pdf?view={api.night['view_token']}").data
    first_page_png(pdf, artifacts / "pdf" / "settlement-details.png")
    text = pdf_text(pdf)
    assert "IBAN GB29 NWBK 6016 1331 9268 19 BIC NWBKGB2LXXX Jürgen Öst" in text  # outside the EEA: with BIC
    assert "IBAN DE72 3702 0500 0009 7097 00 Åsa Ström" in text
    assert "IBAN BR18 0036 0305 0000 1000 9795 493C 1 Dan Brasil" in text  # no code, but the IBAN to pay to
    assert text.count("GiroCode (EPC)") == len([t for t in settlement(api)["transfers"] if t["to"] != "Dan"])


def test_the_sheet_prints_the_swish_number_beside_the_code(client: Any) -> None:
    from tests.pdf_helpers import pdf_text

    api, _ = kul_night(client)
    api.call("POST", f"/api/nights/{api.night['id']}/players/Cia/details", {"swish": "+46701234567"})
    text = pdf_text(client.get(f"/nights/{api.night['id']}/settlement.pdf?view={api.night['view_token']}").data)
    assert text.count("Swish 070-123 45 67") == 3


# --- Settled said rightly (26.6) ---------------------------------------------------

def test_settled_says_carried_and_a_night_of_carried_debts_settles_once_paid(client: Any) -> None:
    api, _ = kul_night(client, group="Fredagsgänget")
    later = Api(client)
    later.new_night(["Anna", "Bo", "Cia", "Dan"], group_token=api.night["group_token"])
    assert settlement(later)["settled"] is False  # nothing at all yet: not "settled"
    assert api.call("POST", f"/api/nights/{api.night['id']}/carry", {"to_night": later.night["id"]})[0] == 200
    html = settlement_page(client, api)
    assert 'id="settled"' in html and "everybody has paid" not in html
    assert f"Settled: what was open is carried to night {later.night['id']} (Test night)." in html
    assert f'href="/nights/{later.night["id"]}/settlement"' in html

    assert settlement(later)["settled"] is False  # the carried debts are open there
    assert 'id="settled"' not in settlement_page(client, later)
    pay_by_plan(later, "")
    assert settlement(later)["settled"] is True
    html = settlement_page(client, later)
    assert "Settled: everybody has paid." in html and "carried to" not in html


# --- a protocol link on every match page and the night page (26.7) ---------------------

def test_every_match_page_and_the_night_page_link_the_protocol(client: Any) -> None:
    api = Api(client)
    players = ["Åsa", "Björn", "Jürgen"]
    api.new_night(players)
    matches = [api.new_match(game, players, stake="3.00") for game in ("svangknack", "kul", "schwimmen", "knaker",
                                                                       "schloapfer")]
    client.get(f"/e/{api.token}")
    night = client.get(f"/nights/{api.night['id']}").get_data(as_text=True)
    for m in matches:
        link = f'href="/matches/{m["id"]}/protocol.pdf"'
        assert link in night, m["game"]
        page = client.get(f"/matches/{m['id']}").get_data(as_text=True)
        assert page.count(link) == 1 and "Score protocol (PDF)" in page, m["game"]
        resp = client.get(f"/matches/{m['id']}/protocol.pdf")
        assert resp.status_code == 200 and resp.mimetype == "application/pdf", m["game"]


# --- the Svängknack round form: 0 tapped is played and bet (26.8) -----------------------

def test_zero_tricks_tapped_is_a_player_who_played_and_goes_bet(client: Any) -> None:
    """Bo (svängare) takes all three tricks; Dan tapped 0 without the knock toggle: Dan played, Dan is bet (SK-9)."""
    from referee import ledger
    from referee.models import Round, db
    from tests.web.test_pages import create_match, create_night, round_form

    match_id = create_match(client, create_night(client, "Anna\nBo\nJürgen\nDan"))
    form = round_form(client, match_id) | {"tricks_1": "3", "tricks_3": "0"}
    resp = client.post(f"/matches/{match_id}/rounds", data=form)
    assert resp.status_code == 302, resp.get_data(as_text=True)  # not an SK-7 refusal
    with client.application.app_context():
        rounds = db.session.query(Round).filter_by(match_id=match_id).all()
        assert [(r.payload["participants"], r.payload["tricks"]) for r in rounds] == [
            (["Bo", "Dan"], {"Bo": 3, "Dan": 0})]
        state = ledger.state_of(ledger.get_match(match_id))
        balances = dict(zip(state.players, state.balances, strict=True))
        # pot 12 won by Bo; Dan bet: pays 12 into the next pot (SK-9), which Bo, dealing next, adds 3 to (SK-6)
        assert balances == {"Anna": -300, "Bo": 600, "Jürgen": -300, "Dan": -1500}


def test_a_night_paid_through_a_leader_who_does_not_play_exports_and_imports(client: Any) -> None:
    api, _ = kul_night(client, leader="Jürgen Öst")
    pay_by_plan(api, "leader")
    status, exported = api.call("GET", f"/api/nights/{api.night['id']}/export.json")
    assert status == 200
    status, body = api.call("POST", "/api/import", exported, token=None)
    assert status == 201, body
    again = Api(client)
    again.night, again.token = body, body["edit_token"]
    assert settlement(again)["settled"] is True and settlement(again)["paid"] == settlement(api)["paid"]
