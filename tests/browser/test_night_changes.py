"""A phone that saw the night is told, on its next visit of the night page, what changed since (issue 46.2).

The phone (390×844, in Swedish or German) opens the night's view link and
sees the night; then a round is voided and a payment made through the API
(another phone, a script); on the phone's next visit the night page says
that the night changed since it last looked and lists both, in its
language. A visit after that says nothing: the phone has seen it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import LOCALES, PHONE, LiveServer, watch
from tests.web.helpers import Api

WORDS = {
    "sv": ("Kvällen har ändrats sedan du senast tittade.", "Strykning av runda 2 i parti 1 (Svängknack)",
           "Betalning: {payer} betalade {amount} till {payee}", "Fingeravtryck:"),
    "de": ("Der Abend hat sich geändert, seit du zuletzt geschaut hast.",
           "Streichung von Runde 2 in Partie 1 (Svängknack)", "Zahlung: {payer} → {payee}, {amount}",
           "Fingerabdruck:"),
}
POT = {"sv": "potten", "de": "Pot"}
AMOUNT = {"sv": "0,50 kr", "de": "0,50 SEK"}  # (white space folded)


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_the_night_page_lists_what_changed_since_this_phone_last_looked(live_server: LiveServer, browser: Any,
                                                                         artifacts: Path, lang: str) -> None:
    api = Api(live_server.app.test_client())
    night = api.new_night(["Anna", "Bo", "Cia", "Dan"])
    nid = night["id"]
    sk = api.new_match("svangknack", ["Anna", "Bo", "Cia", "Dan"], stake="3.00")["id"]
    for payload in ({"participants": ["Bo", "Dan"], "tricks": {"Bo": 2, "Dan": 1}},
                    {"participants": ["Cia", "Anna"], "tricks": {"Cia": 3, "Anna": 0}}):
        assert api.round(sk, payload)[0] == 201

    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True,
                                  locale=LOCALES[lang])
    context.set_default_timeout(10_000)
    try:
        phone = watch(context.new_page(), artifacts, f"night-changes-{lang}-")
        page = phone.page
        page.goto(f"{live_server.url}/v/{night['view_token']}")
        page.goto(f"{live_server.url}/lang/{lang}?next=/nights/{nid}")
        notice, void_line, pay_words, fp_label = WORDS[lang]
        seen = api.call("GET", f"/api/nights/{nid}")[1]["fingerprint"]
        page.get_by_text(fp_label).wait_for()
        assert seen[:16] in page.locator("p.fingerprint").inner_text()
        page.wait_for_function(f"localStorage.getItem('referee-night-seen-{nid}') !== null")
        assert page.locator(".night-changes").count() == 0  # a first visit: nothing to tell
        phone.shot("first-visit")

        status, _voided = api.call("POST", f"/api/matches/{sk}/rounds/2/void", {"reason": "fel"})
        assert status == 200, _voided
        pay = api.call("GET", f"/api/nights/{nid}/settlement")[1]["transfers"][0]
        parties = ("from", "to", "from_pot", "to_pot")  # a player each, or the open match's pot
        status, paid = api.call("POST", f"/api/nights/{nid}/payments",
                                {k: pay[k] for k in parties if k in pay} | {"amount": "0.50"})
        assert status == 201, paid
        payer = POT[lang] if pay.get("from_pot") else pay["from"]
        payee = POT[lang] if pay.get("to_pot") else pay["to"]

        page.goto(f"{live_server.url}/nights/{nid}")
        box = page.locator(".night-changes")
        box.wait_for()
        text = " ".join(box.inner_text().split())
        phone.shot("changed-since")
        assert notice in text
        lines = [" ".join(t.split()) for t in box.locator("li").all_inner_texts()]
        assert lines == [void_line, pay_words.format(payer=payer, amount=AMOUNT[lang], payee=payee)], lines
        now = api.call("GET", f"/api/nights/{nid}")[1]["fingerprint"]
        assert now != seen and now[:16] in page.locator("p.fingerprint").inner_text()

        page.goto(f"{live_server.url}/nights/{nid}")  # seen now: nothing more to tell
        page.get_by_text(fp_label).wait_for()
        page.wait_for_timeout(500)
        assert page.locator(".night-changes").count() == 0
        assert not phone.problems, phone.problems
    finally:
        context.close()
