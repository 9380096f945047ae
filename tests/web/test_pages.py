"""The phone pages through the Flask test client (forms, rights, errors)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from referee import ledger
from referee.models import Match, Round, db
from tests.conftest import make_app


def create_night(client: Any, players: str = "Anna\nBo\nCia\nDan") -> int:
    resp = client.post("/nights/new", data={"name": "Fredag", "currency": "SEK", "players": players})
    assert resp.status_code == 302, resp.get_data(as_text=True)
    return int(resp.headers["Location"].rsplit("/", 1)[1])


def create_match(client: Any, night_id: int, game: str = "svangknack", stake: str = "3.00",
                 seats: tuple[int, ...] = (0, 1, 2, 3), **extra: str) -> int:
    data = {"game": game, "dealer": "Anna", "stake": stake, "action": "create", **extra}
    for pos in seats:
        data[f"in_{pos}"] = "on"
        data[f"seat_{pos}"] = str(pos)
    resp = client.post(f"/nights/{night_id}/matches/new", data=data)
    assert resp.status_code == 302, resp.get_data(as_text=True)
    return int(resp.headers["Location"].rsplit("/", 1)[1])


def round_form(client: Any, match_id: int) -> dict[str, str]:
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    token = re.search(r'name="form_token" type="hidden" value="([^"]+)"', html)
    seq = re.search(r'name="expected_seq" type="hidden" value="([^"]+)"', html)
    assert token and seq, html[:2000]
    return {"form_token": token.group(1), "expected_seq": seq.group(1)}


def test_start_page_and_language_switch(client: Any) -> None:
    assert "New night" in client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    html = client.get("/", headers={"Accept-Language": "sv-SE,sv;q=0.9"}).get_data(as_text=True)
    assert "Ny spelkväll" in html
    client.get("/lang/de")
    assert "Neuer Spieleabend" in client.get("/", headers={"Accept-Language": "sv"}).get_data(as_text=True)


def test_night_form_errors_keep_input(client: Any) -> None:
    resp = client.post("/nights/new", data={"name": "Fredag", "currency": "SEK", "players": "Anna\nanna"})
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200 and "named twice" in html and "Fredag" in html
    resp = client.post("/nights/new", data={"name": "x" * 10_000, "currency": "SEK", "players": "A"})
    assert resp.status_code == 200
    with client.application.app_context():
        assert db.session.query(Match).count() == 0


def test_svangknack_round_in_few_taps(client: Any) -> None:
    night_id = create_night(client)
    match_id = create_match(client, night_id)
    page = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert 'id="svangare">Bo<' in page and 'id="dealer">Anna<' in page
    # The taps: Dan's tricks "1" (implies knocked), Bo's tricks "2", save.
    form = round_form(client, match_id) | {"tricks_3": "1", "tricks_1": "2"}
    resp = client.post(f"/matches/{match_id}/rounds", data=form)
    assert resp.status_code == 302
    with client.application.app_context():
        rounds = db.session.query(Round).filter_by(match_id=match_id).all()
        assert [r.payload["tricks"] for r in rounds] == [{"Bo": 2, "Dan": 1}]
        state = ledger.state_of(ledger.get_match(match_id))
        # pot 12: Bo +8, Dan +4 on top of the stakes; a fresh pot of 12 is built
        assert dict(zip(state.players, state.balances, strict=True)) == {
            "Anna": -600, "Bo": 200, "Cia": -600, "Dan": -200}


def test_double_tap_saves_once(client: Any) -> None:
    match_id = create_match(client, create_night(client))
    form = round_form(client, match_id)
    first = client.post(f"/matches/{match_id}/rounds", data=form)
    second = client.post(f"/matches/{match_id}/rounds", data=form)
    assert first.status_code == second.status_code == 302
    assert "already saved" in client.get(f"/matches/{match_id}").get_data(as_text=True)
    with client.application.app_context():
        assert db.session.query(Round).filter_by(match_id=match_id).count() == 1


def test_rule_error_is_shown_with_rule_and_form_kept(client: Any) -> None:
    match_id = create_match(client, create_night(client))
    form = round_form(client, match_id) | {"tricks_1": "2", "tricks_3": "2"}
    resp = client.post(f"/matches/{match_id}/rounds", data=form)
    html = resp.get_data(as_text=True)
    assert resp.status_code == 422 and "(SK-8)" in html
    assert re.search(r'name="tricks_3" value="2" checked', html)
    with client.application.app_context():
        assert db.session.query(Round).filter_by(match_id=match_id).count() == 0


def test_second_phone_with_stale_form_gets_conflict(client: Any, app: Any) -> None:
    match_id = create_match(client, create_night(client))
    stale = round_form(client, match_id)
    assert client.post(f"/matches/{match_id}/rounds", data=round_form(client, match_id)).status_code == 302
    resp = client.post(f"/matches/{match_id}/rounds", data=stale)
    assert resp.status_code == 409 and "just entered by someone else" in resp.get_data(as_text=True)
    resp = client.post(f"/matches/{match_id}/rounds", data=stale, headers={"Accept-Language": "sv"})
    assert resp.status_code == 409 and "Runda 1 fördes nyss in av någon annan" in resp.get_data(as_text=True)


def test_a_409_shows_my_taps_apart_and_the_form_empty(client: Any, app: Any) -> None:
    """Another phone saved round 1 first (issue 28, point 2): the taps are not put back in the form under the
    new roles; "mine is the next round" posts them as round 2 with a key of its own, checked by the rules."""
    match_id = create_match(client, create_night(client))
    stale = round_form(client, match_id) | {"tricks_2": "1", "tricks_1": "2", "said": "Cia 1 trick · Bo 2 tricks"}
    assert client.post(f"/matches/{match_id}/rounds", data=round_form(client, match_id)).status_code == 302
    resp = client.post(f"/matches/{match_id}/rounds", data=stale)
    html = resp.get_data(as_text=True)
    assert resp.status_code == 409 and 'id="stale-taps"' in html and "Cia 1 trick · Bo 2 tricks" in html
    form_html = html[html.index('id="round-form"'):]
    assert " checked" not in form_html.split("</form>")[0]  # the round form is empty
    box = html[html.index('id="stale-taps"'):html.index("</section>", html.index('id="stale-taps"'))]
    assert 'name="tricks_2" value="1"' in box and 'name="tricks_1" value="2"' in box and 'name="said"' not in box
    again = {k: v for k, v in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', box)}
    assert again["expected_seq"] == "2" and again["form_token"] != stale["form_token"]
    assert "enter it as round 2" in box
    assert client.post(f"/matches/{match_id}/rounds", data=again).status_code == 302
    with client.application.app_context():
        assert [r.seq for r in db.session.query(Round).filter_by(match_id=match_id)] == [1, 2]


def test_the_table_display_link_is_a_qr_code_that_lets_the_tablet_in(client: Any, app: Any) -> None:
    """Issue 28, point 7: the leader's match page shows the display's link as a QR code; a tablet without
    the view right is told how to get in; the link gives the right and opens the display."""
    match_id = create_match(client, create_night(client))
    html = client.get(f"/matches/{match_id}", headers={"Accept-Language": "sv"}).get_data(as_text=True)
    box = html[html.index('class="table-qr"'):]
    link = re.search(r'<input class="copy" readonly value="([^"]+)"', box)
    assert link and "<svg" in box.split("</details>")[0] and "Bordsvisning: skanna med surfplattan" in box
    path = link.group(1).removeprefix("http://localhost")
    assert path.startswith("/v/") and path.endswith(f"?next=/matches/{match_id}/table")
    tablet = app.test_client()
    refused = tablet.get(f"/matches/{match_id}/table", headers={"Accept-Language": "de"})
    assert refused.status_code == 403 and "QR-Code der Tischanzeige" in refused.get_data(as_text=True)
    opened = tablet.get(path)
    assert opened.status_code == 302 and opened.headers["Location"].endswith(f"/matches/{match_id}/table")
    assert tablet.get(f"/matches/{match_id}/table").status_code == 200
    # Only the display is a place to go: any other "next" leads to the night, as the plain link does.
    token = path.split("/")[2].split("?")[0]
    elsewhere = app.test_client().get(f"/v/{token}?next=//evil.example/")
    assert elsewhere.status_code == 302 and "/nights/" in elsewhere.headers["Location"]
    guest_html = tablet.get(f"/matches/{match_id}").get_data(as_text=True)
    assert 'class="table-qr"' not in guest_html  # the leader's page only


def test_view_link_reads_but_cannot_write(client: Any, app: Any) -> None:
    night_id = create_night(client)
    match_id = create_match(client, night_id)
    with app.app_context():
        night = ledger.get_night(night_id)
        view, edit = night.view_token, night.edit_token
    guest = app.test_client()
    assert guest.get(f"/nights/{night_id}").status_code == 403
    assert guest.get(f"/v/{view}").status_code == 302
    assert guest.get(f"/matches/{match_id}").status_code == 200
    assert 'id="round-form"' not in guest.get(f"/matches/{match_id}").get_data(as_text=True)
    assert guest.post(f"/matches/{match_id}/rounds", data={"form_token": "x", "expected_seq": "1"}).status_code == 403
    second_phone = app.test_client()
    second_phone.get(f"/e/{edit}")
    assert 'id="round-form"' in second_phone.get(f"/matches/{match_id}").get_data(as_text=True)
    assert guest.get("/e/not-a-token").status_code == 404


def test_void_and_close_through_pages(client: Any) -> None:
    night_id = create_night(client)
    match_id = create_match(client, night_id, game="kul", stake="2.00")
    for who in ("Anna", "Bo"):
        client.post(f"/matches/{match_id}/rounds", data=round_form(client, match_id) | {"last_trick": who})
    page = client.get(f"/matches/{match_id}/rounds/2/void").get_data(as_text=True)
    assert "Last trick: Bo" in page
    assert client.post(f"/matches/{match_id}/rounds/2/void", data={"reason": "misread"}).status_code == 302
    # Closing asks once more (issue 19): the first post only shows what will happen.
    first = client.post(f"/matches/{match_id}/close", data={"pot": "award", "to": "Anna"})
    assert first.status_code == 200 and "Close the match?" in first.get_data(as_text=True)
    assert "the pot went to Anna" in first.get_data(as_text=True)
    with client.application.app_context():
        assert not ledger.state_of(ledger.get_match(match_id)).finished
    assert client.post(f"/matches/{match_id}/close",
                       data={"pot": "award", "to": "Anna", "confirm": "yes"}).status_code == 302
    with client.application.app_context():
        state = ledger.state_of(ledger.get_match(match_id))
        assert state.finished and state.pot == 0
        assert dict(zip(state.players, state.balances, strict=True)) == {
            "Anna": 600, "Bo": -200, "Cia": -200, "Dan": -200}
    html = client.get(f"/nights/{night_id}/settlement").get_data(as_text=True)
    assert html.count("→") == 3


def test_new_match_rule_error_shown(client: Any) -> None:
    night_id = create_night(client)
    resp = client.post(f"/nights/{night_id}/matches/new",
                       data={"game": "svangknack", "dealer": "Anna", "stake": "1.00", "action": "create",
                             "in_0": "on", "in_1": "on", "in_2": "on"})
    assert resp.status_code == 200 and "(SK-2)" in resp.get_data(as_text=True)


def test_csrf_is_required_on_forms(tmp_path: Path) -> None:
    app = make_app(f"sqlite:///{tmp_path / 'csrf.sqlite3'}", tmp_path, WTF_CSRF_ENABLED=True)
    client = app.test_client()
    resp = client.post("/nights/new", data={"name": "N", "currency": "SEK", "players": "A"})
    assert resp.status_code == 400
    html = client.get("/nights/new").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html)
    assert token
    resp = client.post("/nights/new", data={"name": "N", "currency": "SEK", "players": "A",
                                            "csrf_token": token.group(1)})
    assert resp.status_code == 302


@pytest.mark.parametrize("path", ["/nights/999", "/matches/999", "/nights/999/settlement"])
def test_missing_things_are_404(client: Any, path: str) -> None:
    assert client.get(path).status_code == 404


def test_security_headers(client: Any) -> None:
    resp = client.get("/")
    csp = resp.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
    assert resp.headers["X-Content-Type-Options"] == "nosniff"
    assert resp.headers["Referrer-Policy"] == "same-origin"


def test_match_page_lists_latest_rounds_and_links_to_all(client: Any, app: Any) -> None:
    match_id = create_match(client, create_night(client))
    with app.app_context():
        for _ in range(30):
            state = ledger.state_of(ledger.get_match(match_id))
            ledger.add_round(match_id, {"participants": [state.players[(state.dealer + 1) % 4]]})
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert html.count('<li class="" id="round-') == 10 and 'id="round-30"' in html and 'id="round-20"' not in html
    assert "Show all 30 rounds" in html
    full = client.get(f"/matches/{match_id}?all=1").get_data(as_text=True)
    assert full.count('<li class="" id="round-') == 30


def test_any_iso_currency_with_its_minor_units(client: Any, app: Any) -> None:
    html = client.get("/nights/new", headers={"Accept-Language": "sv"}).get_data(as_text=True)
    assert '<option value="JPY">' in html and "japansk yen" in html.lower()
    resp = client.post("/nights/new", data={"name": "Tokyo", "currency": "JPY", "players": "A\nB\nC"})
    night_id = int(resp.headers["Location"].rsplit("/", 1)[1])
    with app.app_context():
        assert ledger.night_money(ledger.get_night(night_id)).digits == 0


def test_the_currency_list_offers_currencies_in_use_the_likely_ones_first(client: Any) -> None:
    import re

    html = client.get("/nights/new", headers={"Accept-Language": "sv"}).get_data(as_text=True)
    codes = re.findall(r'<option (?:selected )?value="([A-Z]{3})"', html)
    assert codes[:5] == ["SEK", "EUR", "NOK", "DKK", "CHF"]
    assert len(codes) == len(set(codes)) and {"JPY", "ISK", "PLN", "GBP", "USD"} <= set(codes)
    # Retired currencies, funds and metals are codes, not money at a card table (issue 28, point 10).
    assert not {"AFA", "DEM", "XAU", "XXX", "USN", "CHW"} & set(codes)
    assert "1927" not in html


def test_revoking_the_edit_link_logs_out_other_phones(client: Any, app: Any) -> None:
    night_id = create_night(client)
    match_id = create_match(client, night_id, game="kul", stake="1.00")
    with app.app_context():
        old_edit = ledger.get_night(night_id).edit_token
    second = app.test_client()
    second.get(f"/e/{old_edit}")
    assert 'name="last_trick"' in second.get(f"/matches/{match_id}").get_data(as_text=True)  # may enter deals
    assert second.post(f"/nights/{night_id}/players", data={"name": "Eva"}).status_code == 302
    # A new edit link asks once more (issue 19): the first post changes nothing.
    first = client.post(f"/nights/{night_id}/revoke", data={})
    assert first.status_code == 200 and "New edit link?" in first.get_data(as_text=True)
    assert second.post(f"/nights/{night_id}/players", data={"name": "Eve"}).status_code == 302
    assert client.post(f"/nights/{night_id}/revoke", data={"confirm": "yes"}).status_code == 302
    # the second phone lost its edit right; the old link opens nothing; the leader's phone keeps it
    assert second.post(f"/nights/{night_id}/players", data={"name": "Fia"}).status_code == 403
    assert 'name="last_trick"' not in second.get(f"/matches/{match_id}").get_data(as_text=True)
    assert app.test_client().get(f"/e/{old_edit}").status_code == 404
    assert client.post(f"/nights/{night_id}/players", data={"name": "Gun"}).status_code == 302
    with app.app_context():
        night = ledger.get_night(night_id)
        assert night.edit_token != old_edit and "Gun" in night.player_names and "Fia" not in night.player_names


def test_language_switch_goes_back_only_to_this_site(client: Any) -> None:
    """Issue 25.6: ``next`` is a path of this site, or the switch goes to ``/`` (never elsewhere, never a 500)."""
    for target in ("/%09/evil.com", "/%0A/evil.com", "/%0D/evil.com", "//evil.com", "/\\evil.com", "/%5Cevil.com",
                   "https://evil.com", "evil.com", "/ok%0Aset-cookie:x=1", "/ /evil.com"):
        resp = client.get(f"/lang/en?next={target}")
        assert resp.status_code == 302, target
        assert resp.headers["Location"] == "/", target
    # A NUL in any text of a URL is refused at the door before any view reads it (issue 45.5, referee/text_door.py).
    assert client.get("/lang/en?next=/%00").status_code == 400
    resp = client.get("/lang/de?next=/nights/3%3Fplan%3Dleader")
    assert resp.status_code == 302 and resp.headers["Location"] == "/nights/3?plan=leader"
