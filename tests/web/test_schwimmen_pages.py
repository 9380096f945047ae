"""Schwimmen / 31 phone pages through the Flask test client (SQLite and PostgreSQL).

The round form in each of its variants (losers, values, cards, Feuer with
nothing entered), its errors next to the field with the rule ID and the form
keeping what was tapped (nothing stored), the lives display, the winner, the
history line, and the hand-value referee page.

Every expected figure is worked out by hand from shared/rules/schwimmen.md in
the comments (SW-2: A 11, K Q J 10, numbers face value; SW-3: best suit total,
three of a kind 30½, Feuer 32).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from referee import ledger
from referee.models import Round, db
from tests.web.test_pages import create_night, round_form

PLAYERS = "Anna\nBo\nCia"


def new_match(client: Any, stake: str = "1.00", **options: str) -> int:
    """A Schwimmen match for Anna, Bo, Cia (seat order), Anna deals, through the new-match form."""
    night_id = create_night(client, PLAYERS)
    data = {"game": "schwimmen", "dealer": "Anna", "stake": stake, "action": "create",
            "opt_deck": "32", "opt_feuer": "on", "opt_lives": "3"} | {f"opt_{k}": v for k, v in options.items()}
    if options.get("feuer") == "off":
        del data["opt_feuer"]
    for pos in range(3):
        data[f"in_{pos}"] = "on"
        data[f"seat_{pos}"] = str(pos)
    resp = client.post(f"/nights/{night_id}/matches/new", data=data)
    assert resp.status_code == 302, resp.get_data(as_text=True)
    return int(resp.headers["Location"].rsplit("/", 1)[1])


def post(client: Any, match_id: int, **fields: str) -> Any:
    return client.post(f"/matches/{match_id}/rounds", data=round_form(client, match_id) | fields)


def stored(client: Any, match_id: int) -> list[dict[str, Any]]:
    with client.application.app_context():
        rows = db.session.scalars(db.select(Round).where(Round.match_id == match_id).order_by(Round.seq))
        return [r.payload for r in rows]


def players(client: Any, match_id: int) -> dict[str, tuple[int, bool, bool]]:
    """name -> (lives, swimming, out) from the stored state."""
    with client.application.app_context():
        st = ledger.state_of(ledger.get_match(match_id))
        return {n: (st.lives[i], st.swimming[i], st.out[i]) for i, n in enumerate(st.players)}


def errors(html: str) -> list[str]:
    shown = re.findall(r'<p class="error" role="alert"[^>]*>(.*?)</p>', html, re.S)
    return [re.sub(r"\s+", " ", e).strip() for e in shown]


def no_inline_code(html: str) -> None:
    """The CSP forbids inline style attributes, <style> blocks and inline scripts."""
    assert " style=" not in html and "<style" not in html
    assert not re.search(r"<script(?![^>]*\bsrc=)", html)


# --- the form in its variants --------------------------------------------------

def test_page_shows_lives_and_form(client: Any) -> None:
    match_id = new_match(client)
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    no_inline_code(html)
    assert 'id="round-form"' in html and 'data-deck="32"' in html
    # three lives each = three burning matches per player, none burnt
    assert html.count('class="sw-match"') == 9 and 'class="sw-match lost"' not in html
    # knock is preselected; Feuer can be chosen (option on); losers is the default path
    assert re.search(r'name="ended_by" value="knock" checked', html)
    assert 'value="feuer"' in html
    assert re.search(r'name="entry" value="losers" id="entry-losers" class="sw-mode" checked', html)
    # the picker holds the 32 cards of the Skat deck only (SW-1)
    cards = re.findall(r'class="sw-card[^"]*" data-card="([^"]+)"', html)
    assert len(cards) == 32 and "6C" not in cards and "2H" not in cards and "AD" in cards
    # 3 players x 1.00 SEK into the pot (SW-9)
    assert 'id="pot">SEK\u00a03.00</strong>' in html
    assert f"/referee/schwimmen/value?deck=32&amp;feuer=on&amp;m={match_id}" in html
    # without JavaScript the picker stays hidden and the cards are typed
    assert 'class="sw-picker deck-32" hidden' in html and 'placeholder="AC KC 9C"' in html


def test_losers_path_in_three_taps(client: Any) -> None:
    match_id = new_match(client)
    # taps: "by Anna", "Bo lost", Save (knock is preselected)
    resp = post(client, match_id, ended_by="knock", by="Anna", entry="losers", loser_1="on")
    assert resp.status_code == 302
    assert stored(client, match_id) == [{"ended_by": "knock", "by": "Anna", "losers": ["Bo"]}]
    assert players(client, match_id) == {"Anna": (3, False, False), "Bo": (2, False, False),
                                         "Cia": (3, False, False)}
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert "Game 1: Anna knocked" in html and "Lost a life: <strong>Bo</strong>" in html
    assert 'data-name="Bo" data-lives="2"' in html and html.count('class="sw-match lost"') == 1
    assert "Anna knocked · lost a life: Bo" in html  # the history line


def test_values_path(client: Any) -> None:
    match_id = new_match(client)
    # Anna 30½ (typed with a comma), Bo 24, Cia 31: Bo is lowest and loses (SW-6 lowest)
    resp = post(client, match_id, ended_by="31", by="Cia", entry="points",
                points_0="30,5", points_1="24", points_2="31", loser_2="on")  # a stray tap on another tab is ignored
    assert resp.status_code == 302
    assert stored(client, match_id) == [{"ended_by": "31", "by": "Cia",
                                         "points": {"Anna": 30.5, "Bo": 24, "Cia": 31}}]
    assert players(client, match_id)["Bo"] == (2, False, False)
    assert players(client, match_id)["Cia"] == (3, False, False)
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert "Cia: 31 (Schnauz)" in html
    assert re.search(r"<th>Anna</th><td class=\"num\">30½</td>", html)
    assert "Cia: 31 (Schnauz) · Anna 30½, Bo 24, Cia 31" in html


def test_cards_path_typed_in_any_notation(client: Any) -> None:
    match_id = new_match(client)
    # Anna ♣A K 9 = 11+10+9 = 30; Bo ♦8 ♦7 ♥9: diamonds 15 beat hearts 9 -> 15;
    # Cia ♠10 J Q = 30. Bo is lowest and loses a life.
    resp = post(client, match_id, ended_by="knock", by="Anna", entry="hands",
                hand_0="A♣ K♣ 9♣", hand_1="8d, 7d 9h", hand_2="TSJSQS")
    assert resp.status_code == 302, errors(resp.get_data(as_text=True))
    assert stored(client, match_id) == [{"ended_by": "knock", "by": "Anna", "hands": {
        "Anna": ["AC", "KC", "9C"], "Bo": ["8D", "7D", "9H"], "Cia": ["10S", "JS", "QS"]}}]
    assert players(client, match_id)["Bo"] == (2, False, False)
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    # each hand's value and why, hearts and diamonds in red
    assert "♣ A K 9 = 30" in html and "♠ Q J 10 = 30" in html
    assert '<span class="suit-red">♦</span> 8 7 = 15' in html
    assert "Anna knocked · Anna 30, Bo 15, Cia 30" in html


def test_feuer_with_nothing_entered(client: Any) -> None:
    match_id = new_match(client)
    resp = post(client, match_id, ended_by="feuer", by="Cia", entry="losers")
    assert resp.status_code == 302
    assert stored(client, match_id) == [{"ended_by": "feuer", "by": "Cia"}]
    # SW-5: every other player loses one life
    assert players(client, match_id) == {"Anna": (2, False, False), "Bo": (2, False, False),
                                         "Cia": (3, False, False)}
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert "Cia: Feuer · every other player loses a life" in html


def test_feuer_off_hides_the_choice(client: Any) -> None:
    match_id = new_match(client, feuer="off")
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert 'value="feuer"' not in html and "feuer=off" in html


def test_swimming_going_under_and_winner(client: Any) -> None:
    match_id = new_match(client, stake="1.00", lives="1")
    # lives 1: Bo loses -> 0 lives, swims; loses again -> under (SW-7)
    assert post(client, match_id, ended_by="knock", by="Anna", loser_1="on").status_code == 302
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert re.search(r'class="sw-player swimming\s+" data-name="Bo"', html) and "schwimmt" in html
    assert post(client, match_id, ended_by="knock", by="Anna", loser_1="on").status_code == 302
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert re.search(r'class="sw-player\s+out\s+" data-name="Bo"', html) and "untergegangen" in html
    assert "Went under: <strong>Bo</strong>" in html
    # Bo takes no part any more: no fields for seat 1
    assert 'name="loser_1"' not in html and 'name="hand_1"' not in html and 'value="Bo" required' not in html
    assert post(client, match_id, ended_by="knock", by="Cia", loser_0="on").status_code == 302
    assert post(client, match_id, ended_by="knock", by="Cia", loser_0="on").status_code == 302
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    # Cia is the last player in: she takes the pot of 3 x 1.00 = 3.00 (SW-8, SW-9)
    assert "Cia wins the match and the pot." in html and 'id="round-form"' not in html
    # balances: Cia -1.00 + 3.00 = +2.00; Anna and Bo -1.00 each
    assert '<th>Cia</th><td class="pos">SEK\u00a02.00</td>' in html
    assert '<th>Anna</th><td class="neg">-SEK\u00a01.00</td>' in html
    assert '<th>Bo</th><td class="neg">-SEK\u00a01.00</td>' in html


def test_everyone_under_at_once_survives_together(client: Any) -> None:
    match_id = new_match(client, lives="1")
    # game 1: all three lose (equal lowest, SW-6 all_lose) and swim; game 2: all three go under
    # at once: with all_survive (SW-8) they are the winners and share the pot of 3.00 -> 1.00 each
    for _ in range(2):
        resp = post(client, match_id, ended_by="knock", by="Anna", entry="points",
                    points_0="20", points_1="20", points_2="20")
        assert resp.status_code == 302, errors(resp.get_data(as_text=True))
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert "Anna, Bo, Cia survive together and share the pot." in html
    assert '<strong id="winner-name">Anna, Bo, Cia</strong>' in html and 'id="round-form"' not in html
    assert html.count('<td class="">SEK\u00a00.00</td>') == 3  # -1.00 + 1.00 each


def test_jass_deck_picker_and_direction(client: Any) -> None:
    match_id = new_match(client, deck="36")
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    cards = re.findall(r'class="sw-card[^"]*" data-card="([^"]+)"', html)
    assert len(cards) == 36 and "6H" in cards and "5H" not in cards  # A K Q J 10 9 8 7 6 (SW-1)
    assert "counter-clockwise" in html and 'class="sw-picker deck-36"' in html
    # 36 cards: the deal passes counter-clockwise, from Anna to the previous seat, Cia
    assert post(client, match_id, ended_by="knock", by="Anna", loser_1="on").status_code == 302
    assert 'id="dealer">Cia</strong>' in client.get(f"/matches/{match_id}").get_data(as_text=True)


# --- errors next to the field, form kept, nothing stored ------------------------

def _between(html: str, message: str, before: str, after: str) -> None:
    at = html.index(message)
    assert html.rindex(before, 0, at) >= 0 and html.index(after, at) > at, (before, after)


#: Markers around the entry group: the error stands between the tabs and the first panel.
ENTRY_GROUP = ('id="entry-hands"', 'class="sw-panel sw-panel-losers"')

ERROR_CASES = [
    pytest.param({"entry": "points", "points_0": "23", "points_1": "24", "points_2": "31"},
                 "SW-4", "worth 23", ENTRY_GROUP,
                 [r'name="points_0" inputmode="decimal" list="sw-values" autocomplete="off"\s+value="23"',
                  r'name="entry" value="points" id="entry-points" class="sw-mode" checked'],
                 id="SW-4-value-no-hand-makes"),
    pytest.param({"entry": "hands", "hand_0": "AC KC 9C", "hand_1": "AC 7D 8D", "hand_2": "QS JS 10S"},
                 "SW-10", "appears in more than one hand", ENTRY_GROUP,
                 [r'name="hand_1" value="AC 7D 8D"'], id="SW-10-card-twice"),
    pytest.param({"entry": "hands", "hand_0": "AC KC 9C", "hand_1": "6D 7D 8D", "hand_2": "QS JS 10S"},
                 "SW-10", "not a card of the 32-card deck", ENTRY_GROUP,
                 [r'name="hand_1" value="6D 7D 8D"'], id="SW-10-card-not-in-deck"),
    pytest.param({"ended_by": "31", "entry": "points", "points_0": "30", "points_1": "24", "points_2": "31"},
                 "SW-10", "ended the game with 31 but holds 30", ENTRY_GROUP,
                 [r'name="ended_by" value="31" checked'], id="SW-10-31-not-held"),
    pytest.param({"entry": "losers"}, "SW-6", "name at least one loser",
                 ENTRY_GROUP, [], id="SW-6-no-loser"),
    pytest.param({"entry": "hands", "hand_0": "AS AH AD", "hand_1": "7D 8D 9H", "hand_2": "QS JS 10S"},
                 "SW-5", "holds Feuer", ('name="ended_by"', "<legend>By whom?</legend>"),
                 [r'name="hand_0" value="AS AH AD"'], id="SW-5-feuer-must-end-the-game"),
    pytest.param({"entry": "hands", "hand_0": "AC KC 9C", "hand_1": "7D XY 9H", "hand_2": "QS JS 10S"},
                 None, "is not a card", ('id="hand-1"', 'id="hand-2"'),
                 [r'id="hand-1" name="hand_1" value="7D XY 9H"[^>]*aria-invalid="true"'],
                 id="bad-card-next-to-its-hand"),
    pytest.param({"entry": "points", "points_0": "abc", "points_1": "24", "points_2": "31"},
                 None, "must be a number", ('id="points-0"', 'id="points-1"'),
                 [r'value="abc"'], id="bad-value-next-to-its-field"),
    pytest.param({"by": ""}, None, "Tap who ended the game.", ('name="by"', "<legend>Result</legend>"), [],
                 id="who-ended-missing"),
]


@pytest.mark.parametrize(("fields", "rule", "text", "around", "kept"), ERROR_CASES)
def test_error_next_to_field_and_form_kept(client: Any, fields: dict[str, str], rule: str | None, text: str,
                                           around: tuple[str, str], kept: list[str]) -> None:
    match_id = new_match(client)
    data = {"ended_by": "knock", "by": "Anna"} | fields
    resp = post(client, match_id, **data)
    html = resp.get_data(as_text=True)
    assert resp.status_code == 422
    shown = errors(html)
    assert len(shown) == 1 and text in shown[0], shown
    if rule:
        assert f"({rule})" in shown[0]
    _between(html, text, *around)
    for pattern in kept:
        assert re.search(pattern, html), pattern
    if data.get("by"):
        assert re.search(r'name="by" value="Anna" required checked', html)
    assert stored(client, match_id) == []
    no_inline_code(html)


def test_typed_hands_show_their_values_after_an_error(client: Any) -> None:
    """Without JavaScript the server shows each entered hand's value when the form comes back."""
    match_id = new_match(client)
    resp = post(client, match_id, ended_by="31", by="Bo", entry="hands",
                hand_0="AC KC 9C", hand_1="7D 8D 9H", hand_2="QS JS 10S")
    html = resp.get_data(as_text=True)
    # Bo claims 31 but holds ♦ 8 7 = 15 (SW-10)
    assert resp.status_code == 422 and "Bo ended the game with 31 but holds 15 (SW-10)." in errors(html)
    assert '<output class="sw-live" for="hand-0">♣ A K 9 = 30</output>' in html
    assert '<output class="sw-live" for="hand-1"><span class="suit-red">♦</span> 8 7 = 15</output>' in html


def test_void_page_shows_the_game(client: Any) -> None:
    match_id = new_match(client)
    post(client, match_id, ended_by="knock", by="Anna", loser_1="on")
    page = client.get(f"/matches/{match_id}/rounds/1/void").get_data(as_text=True)
    assert "Anna knocked · lost a life: Bo" in page
    assert client.post(f"/matches/{match_id}/rounds/1/void", data={"reason": "misread"}).status_code == 302
    assert players(client, match_id)["Bo"] == (3, False, False)


def test_new_match_form_offers_schwimmen_with_option_texts(client: Any) -> None:
    night_id = create_night(client, PLAYERS)
    html = client.get(f"/nights/{night_id}/matches/new?game=schwimmen").get_data(as_text=True)
    assert '<option value="schwimmen" selected>' in html
    assert "Swiss Jass deck" in html and "Every lost life also costs the stake into the pot (SW-9)." in html


# --- the hand-value referee page -----------------------------------------------

@pytest.mark.parametrize(("query", "value", "why", "rule"), [
    ("deck=32&card=AC&card=KC&card=9C", "30", "♣ A K 9 = 30", "SW-2, SW-3"),  # 11+10+9
    ("deck=32&card=AH&card=KH&card=10H", "31", '<span class="suit-red">♥</span> A K 10 = 31', "Schnauz"),
    ("deck=32&card=7S&card=7H&card=7D", "30½", "7 7 7 (three of a kind) = 30½", "30½ (SW-3)"),
    ("deck=32&card=AS&card=AH&card=AD", "32", "A A A (Feuer) = 32", "SW-3, SW-5"),
    ("deck=32&feuer=off&card=AS&card=AH&card=AD", "30½", "A A A (three of a kind) = 30½", "without Feuer"),
    ("deck=36&cards=6C+7C+8H", "13", "♣ 7 6 = 13", "SW-2, SW-3"),  # typed; 6+7 = 13 beats hearts 8
    ("deck=52&card=2D&card=3D&card=4S", "5", '<span class="suit-red">♦</span> 3 2 = 5', "SW-2, SW-3"),
], ids=["SW-3-suit", "SW-3-31", "SW-3-three-of-a-kind", "SW-5-feuer", "SW-3-feuer-off", "SW-1-36-typed",
        "SW-1-52"])
def test_hand_value_page(client: Any, query: str, value: str, why: str, rule: str) -> None:
    html = client.get(f"/referee/schwimmen/value?{query}").get_data(as_text=True)
    no_inline_code(html)
    assert f'<div class="sw-big" id="sw-value">{value}</div>' in html
    assert f'<div class="sw-why"><span id="sw-explain" aria-hidden="true">{why}</span>' in html
    assert rule in html
    fragment = client.get(f"/referee/schwimmen/value?{query}&fragment=1").get_data(as_text=True)
    assert "<html" not in fragment and f'id="sw-value">{value}<' in fragment


def test_hand_value_page_deck_and_errors(client: Any) -> None:
    html = client.get("/referee/schwimmen/value?deck=36").get_data(as_text=True)
    cards = re.findall(r'name="card" value="([^"]+)"', html)
    assert len(cards) == 36 and "6C" in cards and "5C" not in cards
    assert "7–11, 13–31, 30½, 32 (SW-4)" in html  # 6+7 = 13 is the lowest two-card suit total with sixes
    html = client.get("/referee/schwimmen/value?deck=32&card=6C&card=7C&card=8C").get_data(as_text=True)
    assert "six of clubs is not a card of the 32-card deck (SW-10)." in errors(html)
    html = client.get("/referee/schwimmen/value?card=AC&card=KC").get_data(as_text=True)
    assert "2 of 3 cards chosen." in html and not errors(html)
    html = client.get("/referee/schwimmen/value?deck=32&m=7").get_data(as_text=True)
    assert '<a href="/matches/7">← Back to the match</a>' in html and 'name="m" value="7"' in html
    html = client.get("/referee/schwimmen/value?deck=99&card=ZZ").get_data(as_text=True)
    assert "is not a card" in errors(html)[0]  # an unknown deck falls back to 32
