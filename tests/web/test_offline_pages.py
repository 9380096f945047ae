"""What the phone's offline queue needs from the server (issue 15), through the Flask test client.

The service worker is served from the root with the shell's versioned URLs;
every page carries the queue's hook; a queued entry resent with its key
(``form_token``) is one write for every queued kind (round, void, close,
payment, a payment's void), and the page after a saved entry names its key so that the phone
strikes it from its queue.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest

from referee import ledger
from referee.models import Payment, Round, db
from tests.web.test_pages import create_match, create_night, round_form


def test_the_service_worker_is_served_from_the_root_with_the_shell(client: Any) -> None:
    resp = client.get("/sw.js")
    assert resp.status_code == 200
    assert resp.mimetype == "text/javascript"
    assert resp.headers["Service-Worker-Allowed"] == "/"
    assert resp.headers["Cache-Control"] == "private, no-store"  # the browser always checks for a new worker
    text = resp.get_data(as_text=True)
    shell = json.loads(re.search(r"^const SHELL = (.*);$", text, re.M).group(1))  # type: ignore[union-attr]
    version = re.search(r'^const VERSION = "([0-9a-f]{12})";$', text, re.M)
    assert version
    # Every shell file is named by its content hash, so the worker may keep it for good; and each is there.
    assert all(re.fullmatch(r"/static/[\w./-]+\?v=[0-9a-f]{12}", url) for url in shell), shell
    for needed in ("css/app.css", "css/offline.css", "js/app.js", "js/offline.js", "js/live.js", "manifest.json"):
        assert any(url.startswith(f"/static/{needed}?v=") for url in shell), needed
    for url in shell:
        assert client.get(url).status_code == 200, url
    assert "addEventListener(\"fetch\"" in text


def test_every_page_has_the_queue_hook_and_no_inline_script(client: Any) -> None:
    night_id = create_night(client)
    match_id = create_match(client, night_id)
    for path in ("/", f"/nights/{night_id}", f"/matches/{match_id}", f"/nights/{night_id}/settlement"):
        html = client.get(path).get_data(as_text=True)
        assert 'id="offline"' in html and 'data-sw="/sw.js"' in html, path
        assert re.search(r'<script src="/static/js/offline\.js\?v=[0-9a-f]{12}" defer>', html), path
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), path  # CSP: no inline scripts
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert f'data-night="{night_id}"' in html and f'data-match="{match_id}"' in html


def test_a_resent_round_is_one_round_and_the_next_page_names_its_key(client: Any) -> None:
    match_id = create_match(client, create_night(client))
    form = round_form(client, match_id) | {"form_token": "q-0123456789abcdef"}
    assert client.post(f"/matches/{match_id}/rounds", data=form).status_code == 302
    assert 'data-done="q-0123456789abcdef"' in client.get(f"/matches/{match_id}").get_data(as_text=True)
    # Still said on a later page (the live table may have fetched the page in between).
    assert 'data-done="q-0123456789abcdef"' in client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert client.post(f"/matches/{match_id}/rounds", data=form).status_code == 302  # resent: the same round
    later = round_form(client, match_id) | {"form_token": "q-later"}
    assert client.post(f"/matches/{match_id}/rounds", data=later).status_code == 302
    assert 'data-done="q-later q-0123456789abcdef"' in client.get(f"/matches/{match_id}").get_data(as_text=True)
    with client.application.app_context():
        keys = [r.idempotency_key for r in db.session.query(Round).filter_by(match_id=match_id).order_by(Round.seq)]
        assert keys == ["q-0123456789abcdef", "q-later"]  # the resent one counted once


def test_a_refused_entry_page_names_the_key_it_answers(client: Any) -> None:
    match_id = create_match(client, create_night(client))
    form = round_form(client, match_id) | {"form_token": "q-refused", "tricks_3": "1"}
    resp = client.post(f"/matches/{match_id}/rounds", data=form)
    html = resp.get_data(as_text=True)
    assert resp.status_code == 422 and "(SK-8)" in html
    assert 'data-posted="q-refused"' in html and 'data-done=""' in html  # refused: not among the saved


def test_a_resent_void_and_close_are_made_once(client: Any) -> None:
    night_id = create_night(client)
    match_id = create_match(client, night_id, game="kul", stake="2.00")
    for who in ("Anna", "Bo", "Cia"):
        client.post(f"/matches/{match_id}/rounds", data=round_form(client, match_id) | {"last_trick": who})
    void = {"reason": "misread", "form_token": "q-void"}
    for _ in range(2):  # the second is the queue sending it again: answered as the first, not "already void"
        resp = client.post(f"/matches/{match_id}/rounds/2/void", data=void)
        assert resp.status_code == 302, resp.get_data(as_text=True)
    assert "Round 2 is void" in client.get(f"/matches/{match_id}").get_data(as_text=True)
    # Without a key (no JavaScript), voiding a void round is still refused as before.
    assert client.post(f"/matches/{match_id}/rounds/2/void", data={"reason": "again"}).status_code == 422
    close = {"pot": "award", "to": "Anna", "form_token": "q-close", "confirm": "yes"}  # as the queue sends it
    for _ in range(2):
        resp = client.post(f"/matches/{match_id}/close", data=close)
        assert resp.status_code == 302, resp.get_data(as_text=True)
    with client.application.app_context():
        match = ledger.get_match(match_id)
        kinds = [(r.kind, r.void) for r in match.rounds]
        assert kinds == [("round", False), ("round", True), ("round", False), ("close", False)]
        state = ledger.state_of(match)
        assert state.finished and sum(state.balances) == 0


def night_to_settle(client: Any) -> int:
    """A night whose Kul pot went to Anna: Bo, Cia and Dan owe her their stakes."""
    night_id = create_night(client)
    match_id = create_match(client, night_id, game="kul", stake="2.00")
    client.post(f"/matches/{match_id}/rounds", data=round_form(client, match_id) | {"last_trick": "Anna"})
    client.post(f"/matches/{match_id}/close", data={"pot": "award", "to": "Anna", "confirm": "yes"})
    return night_id


def test_a_resent_payment_is_one_payment(client: Any) -> None:
    night_id = night_to_settle(client)
    pay = {"payer": "Bo", "payee": "Anna", "amount": "2.00", "form_token": "q-pay"}
    for _ in range(2):
        assert client.post(f"/nights/{night_id}/payments", data=pay).status_code == 302
    with client.application.app_context():
        assert db.session.query(Payment).filter_by(night_id=night_id).count() == 1


def test_a_resent_payment_void_is_one_void_and_a_refusal_is_never_a_redirect(client: Any) -> None:
    """The queue sends with fetch, which follows a redirect: a refused entry must answer 422, not 302."""
    night_id = night_to_settle(client)
    pay = {"payer": "Bo", "payee": "Anna", "amount": "2.00", "form_token": "q-pay"}
    assert client.post(f"/nights/{night_id}/payments", data=pay).status_code == 302
    with client.application.app_context():
        pid = db.session.query(Payment).filter_by(night_id=night_id).one().id
    void = {"reason": "typo", "confirm": "yes", "form_token": "q-void"}
    for _ in range(2):  # the queue's resend of the same entry (its answer was lost): done once, answered saved
        resp = client.post(f"/nights/{night_id}/payments/{pid}/void", data=void)
        assert resp.status_code == 302 and resp.headers["Location"].endswith(f"/nights/{night_id}/settlement")
    assert "The payment is void." in client.get(f"/nights/{night_id}/settlement").get_data(as_text=True)
    # Another key for the same payment: it is void already, so refused with the reason, on the page, as a 422.
    again = client.post(f"/nights/{night_id}/payments/{pid}/void", data=void | {"form_token": "q-void-2"})
    assert again.status_code == 422
    assert re.search(rf'class="flash error" role="alert">Payment {pid} is already void', again.get_data(as_text=True))
    bad = client.post(f"/nights/{night_id}/payments", data=pay | {"amount": "-1", "form_token": "q-bad"})
    assert bad.status_code == 422 and 'class="flash error" role="alert"' in bad.get_data(as_text=True)
    with client.application.app_context():
        rows = db.session.query(Payment).filter_by(night_id=night_id).all()
        assert [(r.void, r.void_reason) for r in rows] == [(True, "typo")]


@pytest.mark.parametrize("lang", ["en", "sv", "de"])
def test_the_phone_reads_a_round_form_as_the_page_does(client: Any, lang: str) -> None:
    """``round/form`` (the engine in the phone, issue 16): the page's parser and rules, same words, same state."""
    from referee.engine.records import dump
    from referee.engine.spec import spec
    from referee.offline import browser

    match_id = create_match(client, create_night(client))
    client.get(f"/lang/{lang}")
    with client.application.app_context():
        match = ledger.get_match(match_id)
        data = {"game": "svangknack", "digits": 2, "state": dict(match.snapshot.state),
                "players": list(match.seats)}
    bad = {"tricks_3": "1"}  # Dan 1 trick, Bo (svängare) none: 1 of 3 tricks
    resp = client.post(f"/matches/{match_id}/rounds", data=round_form(client, match_id) | bad)
    shown = re.search(r'<p class="error" role="alert"[^>]*>([^<]*)</p>', resp.get_data(as_text=True))
    assert resp.status_code == 422 and shown
    status, body = browser.answer("round/form", data | {"form": bad}, lang)
    assert (status, body["rule"]) == (422, "SK-8")
    assert body["error"] == html.unescape(shown.group(1))

    good = {"tricks_3": "1", "tricks_1": "2"}
    status, body = browser.answer("round/form", data | {"form": good}, lang)
    assert status == 200 and body["legal"] is True
    assert client.post(f"/matches/{match_id}/rounds", data=round_form(client, match_id) | good).status_code == 302
    with client.application.app_context():
        match = ledger.get_match(match_id)
        state = ledger.state_of(match)
        assert body["snapshot"] == dump(state) == match.snapshot.state
        assert body["state"] == spec("svangknack").state_json(state, ledger.night_money(match.night))


def test_round_form_refuses_what_is_no_form() -> None:
    from referee.offline import browser

    base = {"game": "svangknack", "digits": 2, "state": {}, "players": ["Anna"], "form": {}}
    assert browser.answer("round/form", base | {"game": "poker"})[0] == 400
    assert browser.answer("round/form", base | {"form": {"tricks_0": 3}})[0] == 400
    assert browser.answer("round/form", base | {"players": "Anna"})[0] == 400
    assert browser.answer("round/form", [])[0] == 400


def test_a_busy_database_leaves_the_entry_in_the_queue(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 503 answers no entry: the page names no key, so the phone keeps it and sends it again."""
    match_id = create_match(client, create_night(client))
    form = round_form(client, match_id) | {"form_token": "q-busy"}

    def busy(*_args: Any, **_kwargs: Any) -> Any:
        raise ledger.Unavailable("database is locked")

    monkeypatch.setattr(ledger, "add_round", busy)
    resp = client.post(f"/matches/{match_id}/rounds", data=form)
    html = resp.get_data(as_text=True)
    assert resp.status_code == 503 and 'id="offline"' in html
    assert 'data-posted=""' in html and "q-busy" not in html


def test_a_page_fetched_in_the_background_leaves_the_flash_to_the_next_page(client: Any) -> None:
    match_id = create_match(client, create_night(client))
    assert client.post(f"/matches/{match_id}/rounds", data=round_form(client, match_id)).status_code == 302
    for header in ("X-Live", "X-Keep"):  # the live table's refresh, the service worker keeping the page
        assert "Round 1 saved" not in client.get(f"/matches/{match_id}", headers={header: "1"}).get_data(as_text=True)
    assert "Round 1 saved" in client.get(f"/matches/{match_id}").get_data(as_text=True)


def test_background_fetches_and_static_files_leave_the_session_cookie_alone(client: Any) -> None:
    """An answer that ends after a form's post must not put back the cookie from before it (its flash, its key)."""
    match_id = create_match(client, create_night(client))
    assert "Set-Cookie" in client.get(f"/matches/{match_id}").headers  # the permanent session, refreshed
    for header in ("X-Live", "X-Keep"):
        assert "Set-Cookie" not in client.get(f"/matches/{match_id}", headers={header: "1"}).headers
    assert "Set-Cookie" not in client.get("/static/js/offline.js").headers
    assert "Set-Cookie" not in client.get("/api/openapi.json").headers
    # The browser's check for a new worker, sent as a form is tapped (so it can end after the post's answer).
    assert "Set-Cookie" not in client.get("/sw.js").headers
    assert "Set-Cookie" not in client.get("/sw.js", headers={"Sec-Fetch-Mode": "same-origin"}).headers
    # Browsers name a navigation: only that refreshes the cookie unasked, whoever passes it on.
    assert "Set-Cookie" not in client.get(f"/matches/{match_id}", headers={"Sec-Fetch-Mode": "cors"}).headers
    assert "Set-Cookie" in client.get(f"/matches/{match_id}", headers={"Sec-Fetch-Mode": "navigate"}).headers


def test_a_late_answer_from_before_a_post_leaves_its_flash(client: Any) -> None:
    """The trick referee's round lost its "Round 1 saved" in CI: the worker check's answer came after the post's."""
    match_id = create_match(client, create_night(client))
    form = round_form(client, match_id)
    before = client.get_cookie("session")
    assert before is not None
    assert client.post(f"/matches/{match_id}/rounds", data=form).status_code == 302
    after = client.get_cookie("session")
    assert after is not None and after.value != before.value
    late = client.get("/sw.js", headers={"Cookie": f"session={before.value}", "Sec-Fetch-Mode": "same-origin"})
    assert late.status_code == 200 and "Set-Cookie" not in late.headers
    assert client.get_cookie("session").value == after.value
    assert "Round 1 saved" in client.get(f"/matches/{match_id}").get_data(as_text=True)


@pytest.mark.parametrize(("game", "extra"), [
    ("svangknack", {}), ("kul", {}), ("schloapfer", {"options": {"scoring": "pot"}}), ("schwimmen", {}),
    ("knaker", {"options": {"payout": "pot"}})])
def test_every_box_the_phone_projects_names_a_key_of_the_engines_state(client: Any, game: str,
                                                                       extra: dict[str, Any]) -> None:
    """``data-expect`` (static/js/offline_check.js) reads the state ``round/form`` answers: each key must be there."""
    from referee.engine.spec import spec
    from tests.web.helpers import Api

    api = Api(client)
    api.new_night(["Anna", "Bo", "Cia"])
    match_id = int(api.new_match(game, ["Anna", "Bo", "Cia"], stake="3.00", **extra)["id"])
    client.get(f"/e/{api.token}")
    page = client.get(f"/matches/{match_id}").get_data(as_text=True)
    boxes = re.findall(r'<strong data-expect="(\w+)"( data-expect-as="(\w+)")?', page)
    assert boxes, game
    with client.application.app_context():
        match = ledger.get_match(match_id)
        view = spec(game).state_json(ledger.state_of(match), ledger.night_money(match.night))
    for key, _as, kind in boxes:
        assert key in view, (game, key)
        assert kind != "money" or isinstance(view[key], str), (game, key)
        assert kind != "count" or isinstance(view[key], list), (game, key)
