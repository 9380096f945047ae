"""Schloapfer's phone pages through the Flask test client, on SQLite and PostgreSQL.

The deal form in its variants (eyes, passed, the dealer winning without
play, turned trumps), its errors next to the field with the rule ID and the
form keeping what was typed, the X drawing, the eye counter and the way its
count is carried back. Every expected figure is worked out by hand from
``shared/rules/schloapfer.md`` in the comments.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from referee import ledger
from referee.models import Round, db

THREE = "Anna\nBo\nCia"
FOUR = "Anna\nBo\nCia\nDan"


def create_night(client: Any, players: str = THREE) -> int:
    resp = client.post("/nights/new", data={"name": "Jass", "currency": "SEK", "players": players})
    assert resp.status_code == 302, resp.get_data(as_text=True)
    return int(resp.headers["Location"].rsplit("/", 1)[1])


def create_match(client: Any, players: str = THREE, stake: str = "2.00", **options: str) -> int:
    night_id = create_night(client, players)
    data = {"game": "schloapfer", "dealer": "Anna", "stake": stake, "action": "create",
            **{f"opt_{k}": v for k, v in options.items()}}
    for pos in range(len(players.split())):
        data[f"in_{pos}"] = "on"
        data[f"seat_{pos}"] = str(pos)
    resp = client.post(f"/nights/{night_id}/matches/new", data=data)
    assert resp.status_code == 302, resp.get_data(as_text=True)
    return int(resp.headers["Location"].rsplit("/", 1)[1])


def page(client: Any, match_id: int, query: str = "") -> str:
    resp = client.get(f"/matches/{match_id}{query}")
    assert resp.status_code == 200
    return str(resp.get_data(as_text=True))


def tokens(client: Any, match_id: int) -> dict[str, str]:
    html = page(client, match_id)
    token = re.search(r'name="form_token" type="hidden" value="([^"]+)"', html)
    seq = re.search(r'name="expected_seq" type="hidden" value="([^"]+)"', html)
    assert token and seq, html[:2000]
    return {"form_token": token.group(1), "expected_seq": seq.group(1)}


def deal(client: Any, match_id: int, **fields: str) -> Any:
    return client.post(f"/matches/{match_id}/rounds", data=tokens(client, match_id) | fields)


def stored(client: Any, match_id: int) -> list[dict[str, Any]]:
    with client.application.app_context():
        rows = db.session.query(Round).filter_by(match_id=match_id).order_by(Round.seq).all()
        return [r.payload for r in rows]


def standing(client: Any, match_id: int) -> dict[str, tuple[int, int, int, str]]:
    """(points, rings, rings_total, status) per player, from the stored state."""
    with client.application.app_context():
        st = ledger.state_of(ledger.get_match(match_id))
        return {n: (st.points[i], st.rings[i], st.rings_total[i], st.status[i]) for i, n in enumerate(st.players)}


def form_rows(html: str) -> list[str]:
    return re.findall(r'<tr class="player-row[^"]*" data-name="([^"]+)"', html)


def drawn(html: str, seat: int) -> tuple[int, int, int]:
    """Struck arms (+ the struck centre), uncancelled and cancelled rings in a player's X."""
    fig = re.search(rf'<figure [^>]*id="x-{seat}">(.*?)</figure>', html, re.S)
    assert fig, html[:1000]
    svg = fig.group(1)
    struck = svg.count('class="arm struck"') + svg.count('class="centre struck"')
    cancelled = svg.count('class="ring cancelled"')
    return struck, svg.count('class="ring"'), cancelled


# --- the form --------------------------------------------------------------------

def test_deal_form_from_forehand_with_the_dealer_marked(client: Any) -> None:
    match_id = create_match(client)
    html = page(client, match_id)
    # Anna deals: forehand is Bo (her left), the dealer speaks last (SL-4).
    assert form_rows(html) == ["Bo", "Cia", "Anna"]
    assert 'name="pass_1"' in html and 'name="pass_2"' in html
    assert 'name="pass_0"' not in html  # the dealer must play (no turned trump)
    assert len(re.findall(r'name="eyes_\d" inputmode="numeric"', html)) == 3
    assert re.search(r'id="eyes-left-n" class="">152<', html)
    assert 'id="dealer">Anna<' in html and 'id="at-stake">1<' in html  # 3 players: 1 stroke (SL-5)
    assert 'id="pot"' not in html  # loser_pays has no pot on the table
    assert "/static/js/schloapfer.js" in html and "/static/css/schloapfer.css" in html
    assert f'href="/referee/schloapfer/eyes?match={match_id}&amp;pos=1"' in html


def test_a_deal_with_a_pass_and_two_strokes(client: Any) -> None:
    match_id = create_match(client, FOUR)
    assert 'id="at-stake">2<' in page(client, match_id)  # 4 players: 2 strokes (SL-5)
    # Forehand Bo 60, Cia passes, Dan 40, Anna (dealer) 30. All three who played
    # took 21 or more, so the two with most eyes, Bo and Dan, get one stroke each;
    # nobody gets a ring (SL-5, SL-7).
    resp = deal(client, match_id, eyes_1="60", pass_2="on", eyes_3=" 40 ", eyes_0="30")
    assert resp.status_code == 302
    assert stored(client, match_id) == [{"eyes": {"Anna": 30, "Bo": 60, "Dan": 40}}]
    assert standing(client, match_id) == {"Anna": (0, 0, 0, "in"), "Bo": (1, 0, 0, "in"),
                                          "Cia": (0, 0, 0, "in"), "Dan": (1, 0, 0, "in")}
    html = page(client, match_id)
    assert [drawn(html, s) for s in range(4)] == [(0, 0, 0), (1, 0, 0), (0, 0, 0), (1, 0, 0)]
    assert "Bo a stroke · Dan a stroke" in html
    assert form_rows(html) == ["Cia", "Dan", "Anna", "Bo"]  # Bo deals next, Cia is forehand


def test_the_dealer_wins_without_play(client: Any) -> None:
    match_id = create_match(client)
    # Bo and Cia pass; the dealer's eyes are left empty: the payload's 0 (SL-4).
    assert deal(client, match_id, pass_1="on", pass_2="on", eyes_0="").status_code == 302
    assert stored(client, match_id) == [{"eyes": {"Anna": 0}}]
    assert standing(client, match_id)["Anna"] == (1, 0, 0, "in")
    html = page(client, match_id)
    assert "Anna wins without play" in html
    assert drawn(html, 0) == (1, 0, 0)


def test_turned_trump_lets_the_dealer_pass(client: Any) -> None:
    match_id = create_match(client, turned_trump="on")
    html = page(client, match_id)
    assert 'name="pass_0"' in html  # SL-12: the dealer may pass too
    # Everybody passes: nobody scores, the deal moves on to Bo (SL-12).
    assert deal(client, match_id, pass_0="on", pass_1="on", pass_2="on").status_code == 302
    # Next deal (Bo deals): only Anna plays, with her count left empty: she wins
    # without play (SL-12 decision) and gets the stroke at stake.
    assert deal(client, match_id, pass_1="on", pass_2="on").status_code == 302
    assert stored(client, match_id) == [{"eyes": {}}, {"eyes": {"Anna": 0}}]
    assert standing(client, match_id) == {"Anna": (1, 0, 0, "in"), "Bo": (0, 0, 0, "in"), "Cia": (0, 0, 0, "in")}
    html = page(client, match_id)
    assert "Everybody passed; nobody scores" in html and "Anna wins without play" in html
    assert 'id="dealer">Cia<' in html


def test_rings_cancelled_and_the_pot(client: Any) -> None:
    match_id = create_match(client, scoring="pot")
    # pot scoring (SL-10): everyone pays 2.00 in: pot 6.00, each -2.00.
    html = page(client, match_id)
    assert re.search(r'id="pot">SEK\xa06\.00<', html)
    # D1 (Anna deals): Bo 60, Cia 12, Anna 80 -> Anna's stroke; Cia <21: a ring,
    # one more stake into the pot: pot 8.00, Cia -4.00.
    assert deal(client, match_id, eyes_1="60", eyes_2="12", eyes_0="80").status_code == 302
    # D2 (Bo deals): Cia 70, Anna 50, Bo 32 -> Cia's stroke cancels her ring (SL-8).
    assert deal(client, match_id, eyes_2="70", eyes_0="50", eyes_1="32").status_code == 302
    assert standing(client, match_id) == {"Anna": (1, 0, 0, "in"), "Bo": (0, 0, 0, "in"), "Cia": (0, 0, 1, "in")}
    html = page(client, match_id)
    assert re.search(r'id="pot">SEK\xa08\.00<', html)
    assert [drawn(html, s) for s in range(3)] == [(1, 0, 0), (0, 0, 0), (0, 0, 1)]  # Cia: one ring, struck through
    assert "Cia cancels a ring" in html
    balances = dict(re.findall(r"<tr><th>(\w+)</th><td[^>]*>([^<]+)</td></tr>", html))
    assert balances == {"Anna": "-SEK\xa02.00", "Bo": "-SEK\xa02.00", "Cia": "-SEK\xa04.00"}


def test_a_finished_player_is_not_in_the_form(client: Any) -> None:
    match_id = create_match(client)
    # Five deals where Anna takes 100 eyes and the others 26: five strokes for
    # Anna, no rings. Dealers: Anna, Bo, Cia, Anna, Bo; Cia deals next.
    for _ in range(5):
        assert deal(client, match_id, eyes_0="100", eyes_1="26", eyes_2="26").status_code == 302
    assert standing(client, match_id)["Anna"] == (5, 0, 0, "finished")
    html = page(client, match_id)
    assert form_rows(html) == ["Bo", "Cia"]  # forehand: after Cia comes Anna, finished, so Bo
    assert 'id="dealer">Cia<' in html and 'name="eyes_0"' not in html
    assert drawn(html, 0) == (5, 0, 0) and 'class="centre struck"' in html
    # A count sent for Anna anyway is not read: she takes no part (SL-13).
    assert deal(client, match_id, eyes_0="50", eyes_1="80", eyes_2="22").status_code == 302
    assert stored(client, match_id)[-1] == {"eyes": {"Bo": 80, "Cia": 22}}


# --- errors: next to the field, with the rule ID; nothing stored; what was typed kept

@pytest.mark.parametrize(("fields", "rule", "expected"), [
    pytest.param({"eyes_1": "100", "eyes_2": "60", "eyes_0": "10"}, "SL-13",
                 "Eyes must add up to at most 152; you entered 170", id="SL-13-sum"),
    pytest.param({"eyes_1": "151", "eyes_2": "0", "eyes_0": "0"}, "SL-13", "151 eyes", id="SL-13-151"),
    pytest.param({"eyes_1": "153", "eyes_2": "0", "eyes_0": "0"}, "SL-13", "from 0 to 152", id="SL-13-range"),
    pytest.param({"eyes_1": "80", "eyes_2": "72", "pass_0": "on"}, "SL-13", "must always play",
                 id="SL-13-dealer"),
    pytest.param({"pass_1": "on", "pass_2": "on", "eyes_0": "35"}, "SL-4", "wins without play", id="SL-4"),
])
def test_rule_error_next_to_the_eyes(client: Any, fields: dict[str, str], rule: str, expected: str) -> None:
    match_id = create_match(client)
    resp = deal(client, match_id, **fields)
    html = resp.get_data(as_text=True)
    assert resp.status_code == 422
    errors = re.findall(r'<p class="error" role="alert"[^>]*>([^<]+)</p>', html)
    assert len(errors) == 1 and expected in errors[0], errors
    assert f"({rule})" in errors[0]
    # Just above the eyes table; the count of eyes left is in the save bar below it (issue 19).
    assert html.index(errors[0]) < html.index('class="sl-eyes"') < html.index('id="eyes-left"')
    for key, value in fields.items():  # the form keeps what was typed
        if key.startswith("eyes_"):
            assert f'name="{key}" inputmode="numeric"' in html
            assert re.search(rf'name="{key}"[^>]*\n?[^>]*value="{value}"', html), key
        elif key != "pass_0":
            assert re.search(rf'name="{key}" checked', html), key
    assert stored(client, match_id) == []


@pytest.mark.parametrize("typed", ["4x", "", "-"], ids=["SL-13-garbled", "SL-13-empty", "SL-13-sign"])
def test_a_count_that_is_no_number_is_shown_in_its_row(client: Any, typed: str) -> None:
    match_id = create_match(client)
    resp = deal(client, match_id, eyes_1=typed, eyes_2="50", eyes_0="50")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 422
    error = "Type the eyes Bo took, a whole number from 0 to 152, or tap passed (SL-13)."
    assert html.count('role="alert"') == 1 and error in html
    # In Bo's row: after his row, before Cia's.
    assert html.index('data-name="Bo"') < html.index(error) < html.index('data-name="Cia"')
    assert re.search(r'name="eyes_2"[^>]*\n?[^>]*value="50"', html)
    assert stored(client, match_id) == []


def test_the_eye_counter_result_prefills_the_form(client: Any) -> None:
    match_id = create_match(client)
    html = page(client, match_id, "?eyes_1=45&pass_2=on")
    assert re.search(r'name="eyes_1"[^>]*\n?[^>]*value="45"', html)
    assert re.search(r'name="pass_2" checked', html)
    assert re.search(r'name="eyes_2"[^>]*\n?[^>]*value="" [^>]*disabled', html)
    assert re.search(r'id="eyes-left-n" class="">107<', html)  # 152 - 45
    # Anna's "count" link carries the other rows along.
    link = re.search(r'<a class="sl-count" href="([^"]+)"[^>]*Anna', html)
    assert link is not None
    query = parse_qs(urlsplit(link.group(1).replace("&amp;", "&")).query)
    assert query == {"match": [str(match_id)], "pos": ["0"], "eyes_1": ["45"], "pass_2": ["on"]}


def test_history_summary_void_and_close(client: Any) -> None:
    match_id = create_match(client, scoring="pot")
    assert deal(client, match_id, pass_1="on", pass_2="on").status_code == 302
    void_page = client.get(f"/matches/{match_id}/rounds/1/void").get_data(as_text=True)
    assert '<p class="round-summary">Anna wins without play</p>' in void_page
    assert client.post(f"/matches/{match_id}/rounds/1/void", data={"reason": "misdeal"}).status_code == 302
    assert standing(client, match_id)["Anna"] == (0, 0, 0, "in")
    # Close, the pot of 6.00 split three ways: 2.00 back to each, all square.
    resp = client.post(f"/matches/{match_id}/close", data={"pot": "split", "to": "Anna", "confirm": "yes"})
    assert resp.status_code == 302
    html = page(client, match_id)
    assert 'id="round-form"' not in html and 'id="end">The match is closed.<' in html
    assert "Closed: the pot was split among all players" in html and "misdeal" in html
    assert html.count("SEK\xa00.00") >= 4  # three balances and the pot


# --- the eye counter ---------------------------------------------------------------

def counter(client: Any, data: dict[str, Any] | None = None, query: str = "") -> tuple[int, str]:
    if data is None:
        resp = client.get(f"/referee/schloapfer/eyes{query}")
    else:
        resp = client.post("/referee/schloapfer/eyes", data=data)
    return resp.status_code, resp.get_data(as_text=True)


def total(html: str) -> str:
    found = re.search(r'id="eyes-total">([^<]+)<', html)
    assert found
    return found.group(1)


def test_eye_counter_counts_with_the_trump_values(client: Any) -> None:
    status, html = counter(client)
    assert status == 200 and total(html) == "–"
    assert len(re.findall(r'name="card" value="', html)) == 36
    assert len(re.findall(r'name="trump" value="', html)) == 4
    assert "Carry into the deal form" not in html
    # K Q J 10 9 of spades with spades trumps: 4 + 3 + 20 + 10 + 14 = 51 (SL-2).
    pile = ["KS", "QS", "JS", "10S", "9S"]
    status, html = counter(client, {"trump": "S", "card": pile})
    assert status == 200 and total(html) == "51"
    assert re.search(r'data-card="JS">20<', html) and re.search(r'data-card="9S">14<', html)
    assert re.search(r'value="JS" checked', html)
    # The same pile with hearts trumps: 4 + 3 + 2 + 10 + 0 = 19.
    assert total(counter(client, {"trump": "h", "card": pile})[1]) == "19"
    # The whole deck is 152 whatever the trump.
    deck = [r + s for s in "SHDC" for r in ("6", "7", "8", "9", "10", "J", "Q", "K", "A")]
    for trump in "SHDC":
        assert total(counter(client, {"trump": trump, "card": deck})[1]) == "152"


@pytest.mark.parametrize(("data", "expected"), [
    pytest.param({"card": ["AS"]}, "Pick the trump suit first (SL-2).", id="SL-2-no-trump"),
    pytest.param({"trump": "S", "card": ["5S"]}, "not in the 36-card Jass deck", id="SL-2-deck"),
    pytest.param({"trump": "S", "card": ["AS", "as"]}, "listed twice", id="SL-2-twice"),
])
def test_eye_counter_errors(client: Any, data: dict[str, Any], expected: str) -> None:
    status, html = counter(client, data)
    assert status == 422 and expected in html and total(html) == "–"


def test_eye_counter_carries_the_count_back(client: Any, app: Any) -> None:
    match_id = create_match(client)
    # Opened from Bo's row with Anna's 30 typed and Cia passed; A♦ 10♦ K♦ with
    # diamonds trumps: 11 + 10 + 4 = 25.
    status, html = counter(client, {"match": str(match_id), "pos": "1", "eyes_0": "30", "pass_2": "on",
                                    "trump": "D", "card": ["AD", "10D", "KD"]})
    assert status == 200 and total(html) == "25"
    links = re.findall(r'<a class="button carry( primary)?" data-param="eyes_(\d)"[^>]*\n\s*href="([^"]+)"', html)
    assert [(bool(p), seat) for p, seat, _ in links] == [(True, "1"), (False, "0"), (False, "2")]
    queries = {seat: parse_qs(urlsplit(href.replace("&amp;", "&")).query) for _, seat, href in links}
    assert all(urlsplit(href).path == f"/matches/{match_id}" for _, _, href in links)
    assert queries["1"] == {"eyes_0": ["30"], "pass_2": ["on"], "eyes_1": ["25"]}
    assert queries["2"] == {"eyes_0": ["30"], "eyes_2": ["25"]}  # carried to Cia: her "passed" is dropped
    # Following the link fills Bo's row.
    href = links[0][2].replace("&amp;", "&").split("#")[0]
    form = client.get(href).get_data(as_text=True)
    assert re.search(r'name="eyes_1"[^>]*\n?[^>]*value="25"', form)
    assert re.search(r'id="eyes-left-n" class="">97<', form)  # 152 - 30 - 25
    # Another phone without rights counts too, but sees nothing of the match.
    other = app.test_client()
    status, html = counter(other, None, f"?match={match_id}&pos=1")
    assert status == 200 and "Carry into the deal form" not in html and f"#{match_id}" not in html
