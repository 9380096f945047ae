"""What a screen reader is told by the pages themselves (issue 50, points 2 and 8), in Swedish and German.

The one live region outside ``<main>`` (what the live page swaps), the sentence a match page gives it for its
latest round (money as a sentence says it: no ",00" when whole, the fraction when there is one), the language
links' mark on the current language, and the "New player" field's label.
"""

from __future__ import annotations

import html
import re
from decimal import Decimal
from typing import Any

import pytest

from tests.web.helpers import Api

WORDS = {"sv": ("Runda 1: ", "pott {amount}\u00a0kr", "{name} ger", "Ny spelare"),
         "de": ("Runde 1: ", "Pott {amount}\u00a0SEK", "{name} gibt", "Neuer Spieler")}


def announce(page: str) -> str:
    found = re.search(r'<p id="live"[^>]*?data-announce="([^"]*)"', page)
    assert found, page[page.find("<main"):][:1500]
    return html.unescape(found.group(1))


@pytest.mark.parametrize("lang", ["sv", "de"])
@pytest.mark.parametrize(("stake", "amount"), [("3.00", "12"), ("0.99", "3,96")])
def test_the_latest_round_in_one_sentence_and_the_region_outside_main(client: Any, lang: str, stake: str,
                                                                      amount: str) -> None:
    api = Api(client)
    api.new_night(["Anna", "Bo", "Cia", "Dan"])
    m = api.new_match("svangknack", ["Anna", "Bo", "Cia", "Dan"], stake=stake)
    status, body = api.round(m["id"], {"participants": ["Bo"]})
    assert status == 201, body
    state = body["state"]  # Bo svängar alone: the pot is built anew
    assert Decimal(state["pot"]) == Decimal(stake) * 4
    client.get(f"/lang/{lang}")
    client.get(f"/v/{api.night['view_token']}")  # a guest's phone
    page = client.get(f"/matches/{m['id']}").get_data(as_text=True)
    head, pot, deals, _new = WORDS[lang]
    said = announce(page)
    assert said.startswith(head) and "Bo" in said, said
    assert pot.format(amount=amount) in said and deals.format(name=state["dealer"]) in said, said
    # the region: once, outside <main>, polite
    assert page.count('id="announce"') == 1
    region = page.index('id="announce"')
    assert region < page.index("<main>") or region > page.index("</main>")
    assert re.search(r'<div id="announce"[^>]*aria-live="polite"', page)


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_the_current_language_is_marked_and_new_player_has_a_label(client: Any, lang: str) -> None:
    api = Api(client)
    api.new_night(["Anna", "Bo"])
    client.get(f"/lang/{lang}")
    client.get(f"/e/{api.token}")  # the leader's phone: the night page with its player form
    text = client.get(f"/nights/{api.night['id']}").get_data(as_text=True)
    links = re.findall(r'<a href="/lang/(\w+)[^"]*" lang="\w+"([^>]*)>', text)
    assert [(code, "aria-current" in rest) for code, rest in links] == [(c, c == lang) for c in ("sv", "de", "en")]
    field = re.search(r'<input[^>]*name="name"[^>]*>', text)
    assert field, text
    field_id = re.search(r'id="([^"]+)"', field.group(0))
    assert field_id
    label = re.search(rf'<label for="{field_id.group(1)}">([^<]+)</label>', text)
    assert label and label.group(1).strip() == WORDS[lang][3], text
