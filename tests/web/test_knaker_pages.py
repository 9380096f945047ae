"""Knaker's phone pages through the Flask test client (the no-JS form, as a phone without scripts posts it).

The match page has one form: a dot button (``dot = "<seat>:<offence>[:<n>]"``)
saves a dot round at once; "Save game" sends each player's ``kind_<seat>``,
``step_<seat>`` (round of play) and ``reason_<seat>``. Expected places,
points and money are worked out by hand from ``shared/rules/knaker.md`` part
A in the comments. Seats: Anna 0, Bo 1, Cia 2, Dan 3; Anna deals first.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from werkzeug.datastructures import MultiDict

from referee import ledger
from referee.models import Round, db
from referee.round_forms.knaker import parse
from tests.web.test_pages import create_match, create_night, round_form

SEATS = ["Anna", "Bo", "Cia", "Dan"]


def knaker(client: Any, payout: str = "none", stake: str = "") -> int:
    return create_match(client, create_night(client), game="knaker", stake=stake, opt_payout=payout)


def payloads(client: Any, match_id: int) -> list[dict[str, Any]]:
    with client.application.app_context():
        rows = db.session.query(Round).filter_by(match_id=match_id).order_by(Round.seq).all()
        return [r.payload for r in rows if not r.void]


def state(client: Any, match_id: int) -> Any:
    with client.application.app_context():
        return ledger.state_of(ledger.get_match(match_id))


def post(client: Any, match_id: int, data: dict[str, str]) -> Any:
    return client.post(f"/matches/{match_id}/rounds", data=round_form(client, match_id) | data)


def game(client: Any, match_id: int, **fields: str) -> Any:
    """Save a game from fields like ``kind_0="out", step_0="1"``."""
    return post(client, match_id, {"save": "game", **fields})


def row_of(html: str, name: str) -> str:
    """The player's card on the match page (up to the next card or the end of the list)."""
    found = re.search(rf'<li class="kn-player[^"]*" data-pos="\d" data-name="{name}".*?(?=<li class="kn-player|</ul>)',
                      html, re.S)
    assert found, html[:3000]
    return found.group(0)


def test_new_match_form_offers_knaker_with_its_options(client: Any) -> None:
    night_id = create_night(client)
    html = client.get(f"/nights/{night_id}/matches/new?game=knaker").get_data(as_text=True)
    assert '<option value="knaker" selected>Knaker</option>' in html
    assert "Payout" in html and "loser_pays" in html and "(KN-L)" in html
    assert "Double deck" in html and "(KN-17)" in html


def test_tie_and_loser_with_loser_pays(client: Any) -> None:
    match_id = knaker(client, payout="loser_pays", stake="2.00")
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert 'id="game-no">1<' in html and 'id="dealer">Anna<' in html and "last pays" in html
    # Round of play 1: Anna and Cia go out together (a tie, KN-7.3); round 2: Bo loses on a 2; Dan is left.
    resp = game(client, match_id, kind_0="out", step_0="1", kind_2="out", step_2="1",
                kind_1="lost", step_1="2", reason_1="two")
    assert resp.status_code == 302
    # The lost reason has no place in the engine's payload: it is not stored.
    assert payloads(client, match_id) == [{"events": [{"out": ["Anna", "Cia"]}, {"lost": ["Bo"]}]}]
    # Places: Anna 1, Cia 1 (shared), the next place 2 is skipped, Bo lost takes the worst (4),
    # Dan the one left (3). Points (players below): Anna 2, Cia 2, Dan 1, Bo 0.
    # loser_pays: Bo (last) pays 2.00 to each of the other three: Bo -6.00, others +2.00.
    st = state(client, match_id)
    assert dict(zip(st.players, st.last_game.places, strict=True)) == {"Anna": 1, "Bo": 4, "Cia": 1, "Dan": 3}
    assert dict(zip(st.players, st.balances, strict=True)) == {"Anna": 200, "Bo": -600, "Cia": 200, "Dan": 200}
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert 'id="game-no">2<' in html and 'id="dealer">Bo<' in html  # the deal moves one seat
    standings = re.findall(r'<tr data-name="(\w+)"><th>\w+</th><td class="num">(\d+)</td>\s*'
                           r'<td class="num[^"]*">([^<]+)</td>', html)
    assert [(n, int(p), m.replace("\xa0", " ")) for n, p, m in standings] == [
        ("Anna", 2, "SEK 2.00"), ("Cia", 2, "SEK 2.00"), ("Dan", 1, "SEK 2.00"), ("Bo", 0, "-SEK 6.00")]
    last = re.search(r'<ol class="kn-places" id="last-places">(.*?)</ol>', html, re.S).group(1)  # type: ignore[union-attr]
    assert re.findall(r'kn-place">(\d)\.</span> (\w+)', last) == [
        ("1", "Anna"), ("1", "Cia"), ("3", "Dan"), ("4", "Bo")]
    assert "Game: Anna = Cia out (same round) · Bo lost" in html  # the history line


def test_dots_are_saved_at_once_with_their_consequence(client: Any) -> None:
    match_id = knaker(client)
    # Bo swaps face-down cards: 2 dots (KN-16.2): still a warning (KN-16.8).
    assert post(client, match_id, {"dot": "1:swap_face_down"}).status_code == 302
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert "2 dots: warning" in row_of(html, "Bo") and "●●○○○" in row_of(html, "Bo")
    # Bo denies it and is found guilty: 1 more (KN-16.5) -> 3 dots: no ladders.
    assert post(client, match_id, {"dot": "1:denial"}).status_code == 302
    # Cia: another cheat, the leader gives 4 -> 4 dots: picks up the pile.
    assert post(client, match_id, {"dot": "2:other:4"}).status_code == 302
    # Dan points out a cheat as a spectator: 1 dot for the next game (KN-16.1), none now.
    assert post(client, match_id, {"dot": "3:spectator"}).status_code == 302
    assert payloads(client, match_id) == [
        {"dot": {"player": "Bo", "offence": "swap_face_down"}}, {"dot": {"player": "Bo", "offence": "denial"}},
        {"dot": {"player": "Cia", "offence": "other", "dots": 4}}, {"dot": {"player": "Dan", "offence": "spectator"}}]
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert "3 dots: no ladders" in row_of(html, "Bo")
    assert "4 dots: picks up the pile, no ladders" in row_of(html, "Cia")
    assert "no dots" in row_of(html, "Dan") and "+1 dot for the next game" in row_of(html, "Dan")
    assert "no dots" in row_of(html, "Anna")
    assert "Dots in this game" in html and "Cia: Another cheat (4 dots)" in html
    # The next game starts with Dan's carried dot and everyone else at zero (KN-16.1).
    assert game(client, match_id, kind_0="out", step_0="1", kind_1="out", step_1="2", kind_2="out",
                step_2="3").status_code == 302
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert "1 dot: warning" in row_of(html, "Dan") and "no dots" in row_of(html, "Bo")
    assert "Dots in this game" not in html


def test_five_dots_disqualify_and_the_result_must_say_so(client: Any) -> None:
    match_id = knaker(client)
    post(client, match_id, {"dot": "1:throw_last_card"})  # 3 dots (KN-16.2)
    post(client, match_id, {"dot": "1:swap_face_down"})  # +2 = 5: disqualified (KN-16.8)
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    bo = row_of(html, "Bo")
    assert "5 dots: disqualified" in bo and "kn-dq" in bo
    # Without scripts the disqualified player's select already says so.
    assert re.search(r'name="kind_1" class="kn-kind"[^>]*>.*?<option value="disqualified" selected>', bo, re.S)
    # A disqualified player gets no more in-game dots, so only the next-game offences are offered.
    assert 'value="1:spectator"' in bo and 'value="1:ordinary"' not in bo
    # A result that leaves Bo out of "disqualified" is refused (KN-16.8), next to the events, form kept.
    resp = game(client, match_id, kind_0="out", step_0="1", kind_1="lost", step_1="2", kind_2="out", step_2="3")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 422 and "(KN-16.8)" in html
    assert re.search(r'<p class="error" role="alert"[^>]*>[^<]*\(KN-16\.8\)\.</p>\s*<div class="savebar">', html)
    assert re.search(r'name="kind_1" class="kn-kind"[^>]*>.*?<option value="lost" selected>', html, re.S)
    assert re.search(r'name="step_2" class="kn-step">.*?<option value="3" selected>', html, re.S)
    assert len(payloads(client, match_id)) == 2  # the two dots only
    # Bo disqualified in round of play 1 takes the worst place (4); Anna out in 2 takes 1st,
    # Cia out in 3 takes 2nd, Dan is left: 3rd.
    resp = game(client, match_id, kind_1="disqualified", step_1="1", kind_0="out", step_0="2",
                kind_2="out", step_2="3")
    assert resp.status_code == 302
    assert payloads(client, match_id)[-1] == {"events": [{"disqualified": ["Bo"]}, {"out": ["Anna"]}, {"out": ["Cia"]}]}
    st = state(client, match_id)
    assert dict(zip(st.players, st.last_game.places, strict=True)) == {"Anna": 1, "Bo": 4, "Cia": 2, "Dan": 3}
    assert st.dots == (0, 0, 0, 0)  # dots start from zero in the next game


def test_giffelcheat_disqualifies_at_once(client: Any) -> None:
    match_id = knaker(client)
    assert post(client, match_id, {"dot": "3:giffelcheat"}).status_code == 302
    assert payloads(client, match_id) == [{"dot": {"player": "Dan", "offence": "giffelcheat"}}]
    dan = row_of(client.get(f"/matches/{match_id}").get_data(as_text=True), "Dan")
    assert "disqualified (giffelcheat)" in dan and "kn-dq" in dan


@pytest.mark.parametrize(("dot", "rule", "pos"), [
    pytest.param("2:denial", "KN-16.5", 2, id="KN-16.5-denial-without-a-cheat"),
    pytest.param("0:other:7", "KN-16.2", 0, id="KN-16.2-other-more-than-four"),
])
def test_refused_dot_is_shown_in_the_players_row(client: Any, dot: str, rule: str, pos: int) -> None:
    match_id = knaker(client)
    # What the leader had already set for the game's events stays as it was.
    resp = post(client, match_id, {"dot": dot, "kind_3": "out", "step_3": "1"})
    html = resp.get_data(as_text=True)
    assert resp.status_code == 422
    row = row_of(html, SEATS[pos])
    assert f"({rule})" in row and '<details class="kn-dot" open>' in row
    assert html.count('role="alert"') == 1
    assert re.search(r'name="kind_3" class="kn-kind">.*?<option value="out" selected>', html, re.S)
    assert payloads(client, match_id) == []


@pytest.mark.parametrize(("fields", "rule", "unplaced"), [
    pytest.param({"kind_0": "out", "step_0": "1"}, "KN-7.1", ["Bo", "Cia", "Dan"], id="KN-7.1-three-players-left"),
    pytest.param({}, "KN-7.1", SEATS, id="KN-7.1-nothing-tapped"),
])
def test_refused_game_is_shown_next_to_the_events(client: Any, fields: dict[str, str], rule: str,
                                                   unplaced: list[str]) -> None:
    match_id = knaker(client)
    resp = game(client, match_id, **fields)
    html = resp.get_data(as_text=True)
    assert resp.status_code == 422 and f"({rule})" in html
    shown = rf'<p class="error" role="alert"[^>]*>[^<]*\({re.escape(rule)}\)\.</p>\s*<div class="savebar">'
    assert re.search(shown, html)
    # The message names the players the result left unplaced, and their rows (only theirs) are marked.
    assert f"{len(unplaced)} players are not placed ({', '.join(unplaced)})" in html
    assert [name for name in SEATS if 'row-error"' in row_of(html, name).split(">", 1)[0]] == unplaced
    for key, value in fields.items():
        assert re.search(rf'name="{key}" class="kn-\w+">.*?<option value="{value}" selected>', html, re.S)
    assert payloads(client, match_id) == []


def test_out_and_lost_in_one_round_and_losers_sharing(client: Any) -> None:
    match_id = knaker(client, payout="pot", stake="1.00")
    # Round of play 1: Cia goes out and Anna loses; round 2: Bo and Dan lose together.
    resp = game(client, match_id, kind_2="out", step_2="1", kind_0="lost", step_0="1", reason_0="flip",
                kind_1="lost", step_1="2", kind_3="lost", step_3="2")
    assert resp.status_code == 302
    assert payloads(client, match_id) == [{"events": [{"out": ["Cia"]}, {"lost": ["Anna"]}, {"lost": ["Bo", "Dan"]}]}]
    # Cia 1st; Anna takes the worst free place, 4; Bo and Dan share the worst then free, 2-3: both 2.
    # Pot: everyone stakes 1.00, Cia takes 4.00: Cia +3.00, the others -1.00.
    st = state(client, match_id)
    assert dict(zip(st.players, st.last_game.places, strict=True)) == {"Anna": 4, "Bo": 2, "Cia": 1, "Dan": 2}
    assert dict(zip(st.players, st.balances, strict=True)) == {"Anna": -100, "Bo": -100, "Cia": 300, "Dan": -100}


def test_parse_orders_steps_and_puts_unnumbered_last() -> None:
    form = {"kind_0": "lost", "step_0": "", "kind_1": "out", "step_1": "2", "kind_2": "out", "step_2": "1",
            "kind_3": "bogus", "step_3": "1"}
    assert parse(MultiDict(form), {}, SEATS) == {"events": [{"out": ["Cia"]}, {"out": ["Bo"]}, {"lost": ["Anna"]}]}
    assert parse(MultiDict({"dot": "9:ordinary"}), {}, SEATS) == {"dot": {"player": "", "offence": "ordinary"}}
    assert parse(MultiDict({"dot": "1:other:x"}), {}, SEATS) == {
        "dot": {"player": "Bo", "offence": "other", "dots": "x"}}


def test_malformed_dot_is_refused_not_a_crash(client: Any) -> None:
    match_id = knaker(client)
    resp = post(client, match_id, {"dot": "9:ordinary"})
    assert resp.status_code == 422 and "not a player" in resp.get_data(as_text=True)
    resp = post(client, match_id, {"dot": "1:nonsense"})
    assert resp.status_code == 422 and "Unknown offence" in resp.get_data(as_text=True)
    assert payloads(client, match_id) == []


def test_games_table_void_guest_and_close(client: Any, app: Any) -> None:
    night_id = create_night(client)
    match_id = create_match(client, night_id, game="knaker", stake="", opt_payout="none")
    game(client, match_id, kind_0="out", step_0="1", kind_1="out", step_1="2", kind_2="out", step_2="3")
    post(client, match_id, {"dot": "0:ordinary"})
    game(client, match_id, kind_3="out", step_3="1", kind_2="lost", step_2="2", kind_1="out", step_1="3")
    # Game 1: Anna 1, Bo 2, Cia 3, Dan 4 (points 3 2 1 0). Game 2: Dan 1, Cia 4, Bo 2, Anna 3 (points 1 2 0 3).
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    table = re.search(r'<table class="kn-games" id="games-table">.*?</table>', html, re.S).group(0)  # type: ignore[union-attr]
    cells = [re.findall(r"<td class=\"num[^\"]*\">(\d+)</td>", tr) for tr in re.findall(r"<tr>.*?</tr>", table, re.S)]
    assert cells[1:] == [["1", "2", "3", "4"], ["3", "2", "4", "1"], ["4", "4", "1", "3"]]  # games, then points
    assert "Money" not in html  # payout none: standings only
    # Voiding game 1 leaves one game: Dan 1, Bo 2, Anna 3, Cia 4.
    confirm = client.get(f"/matches/{match_id}/rounds/1/void").get_data(as_text=True)
    assert "Game: Anna out · Bo out · Cia out" in confirm
    assert "Dot: Anna · Ordinary cheat" in client.get(f"/matches/{match_id}/rounds/2/void").get_data(as_text=True)
    assert client.post(f"/matches/{match_id}/rounds/1/void", data={"reason": "wrong game"}).status_code == 302
    html = client.get(f"/matches/{match_id}").get_data(as_text=True)
    table = re.search(r'<table class="kn-games" id="games-table">.*?</table>', html, re.S).group(0)  # type: ignore[union-attr]
    assert [re.findall(r"<td class=\"num[^\"]*\">(\d+)</td>", tr)
            for tr in re.findall(r"<tr>.*?</tr>", table, re.S)][1:] == [["3", "2", "4", "1"], ["1", "2", "0", "3"]]
    with app.app_context():
        view = ledger.get_night(night_id).view_token
    guest = app.test_client()
    guest.get(f"/v/{view}")
    page = guest.get(f"/matches/{match_id}").get_data(as_text=True)
    assert 'id="kn-form"' not in page and "Standings" in page and "no dots" in page
    assert client.post(f"/matches/{match_id}/close", data={"pot": "split", "confirm": "yes"}).status_code == 302
    assert state(client, match_id).finished
    page = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert 'id="kn-form"' not in page and "The match is closed." in page and "Match closed" in page
