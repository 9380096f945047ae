"""The Knaker referee page (issue 7) through the Flask test client, on SQLite and PostgreSQL.

The page keeps its whole state in the form (hidden ``pile``, ``lays``,
``history``), so each test posts what a phone without JavaScript would post and
reads back the hidden fields and the verdict. Expected verdicts are reasoned
from ``shared/rules/knaker.md`` part B in the comments; rule texts are the
engine's ``RULE_TEXT`` (the page's job is to show the text of the rule it cites).
"""

from __future__ import annotations

import html as htmllib
import json
import re
from typing import Any

import pytest

from referee.engine.knaker_pile import RULE_TEXT
from referee.models import Match, Night, Round, db

URL = "/referee/knaker"


# --- helpers -----------------------------------------------------------------------

def post(client: Any, **fields: Any) -> Any:
    """Post the form as a phone would: one source radio is always checked, by default the
    source of the lay being built (the page shows it that way)."""
    data = {k: v for k, v in fields.items() if v is not None}
    lays = data.get("lays", "")
    if "source" not in data and lays:
        data["source"] = lays.split(";")[-1].split(":")[0]
    return client.post(URL, data=data)


def hidden(page: str, name: str) -> str:
    m = re.search(rf'<input type="hidden" name="{name}"[^>]*value="([^"]*)"', page)
    assert m, f"no hidden {name}"
    return htmllib.unescape(m.group(1))


def by_id(page: str, ident: str) -> str:
    """The text of the element with this id (tags dropped, spaces squeezed); '' if absent."""
    m = re.search(rf'<(\w+)[^>]*\bid="{ident}"[^>]*>(.*?)</\1>', page, re.S)
    if not m:
        return ""
    return " ".join(htmllib.unescape(re.sub(r"<[^>]+>", " ", m.group(2))).split())


def state(page: str) -> tuple[str, str, list[list[str]]]:
    return hidden(page, "pile"), hidden(page, "lays"), json.loads(hidden(page, "history"))


def ask(client: Any, pile: str, lays: str, **fields: Any) -> str:
    resp = post(client, pile=pile, lays=lays, action="ask", **fields)
    assert resp.status_code == 200, resp.get_data(as_text=True)[:3000]
    return str(resp.get_data(as_text=True))


def nothing_stored(client: Any) -> None:
    with client.application.app_context():
        assert db.session.query(Night).count() == 0
        assert db.session.query(Match).count() == 0
        assert db.session.query(Round).count() == 0


# --- the page ----------------------------------------------------------------------

def test_empty_page_offers_the_picker_and_keeps_csp(client: Any) -> None:
    resp = client.get(URL)
    page = resp.get_data(as_text=True)
    assert resp.status_code == 200
    assert "no-store" in resp.headers["Cache-Control"]
    assert "script-src 'self'" in resp.headers["Content-Security-Policy"]
    # 13 ranks and the two jokers, the four suits, the two targets, the four sources, dots 0..5.
    assert len(re.findall(r'name="add" value="', page)) == 15
    assert re.findall(r'name="add" value="(X[RB])"', page) == ["XR", "XB"]
    assert len(re.findall(r'name="suit" value="[SHDC]"', page)) == 4
    assert re.findall(r'name="source" value="(\w+)"', page) == ["hand", "face_up", "face_down", "chance"]
    assert re.findall(r'name="dots" value="(\d)"', page) == ["0", "1", "2", "3", "4", "5"]
    for name in ("instick", "last_card", "double_deck", "no_insticks", "hexa_kajak"):
        assert f'name="{name}"' in page
    # CSP: no inline script or style in the page.
    assert not re.search(r"<script(?![^>]*\bsrc=)", page)
    assert "<style" not in page and " style=" not in page
    assert 'src="/static/js/knaker_referee.js?v=' in page and "css/knaker_referee.css" in page
    assert state(page) == ("", "", [])
    assert by_id(page, "kr-hint") and not by_id(page, "kr-answer")
    assert 'id="kr-undo" disabled' in page


def test_tapping_cards_onto_the_pile_and_the_play(client: Any) -> None:
    # Target pile, suit hearts, rank 5 -> 5H on the pile; the empty state goes to the history.
    page = post(client, target="pile", suit="H", add="5").get_data(as_text=True)
    assert state(page) == ("5H", "", [["", ""]])
    assert by_id(page, "kr-pile") == "5♥"
    # Then the black joker, then spades 9 onto the pile (a joker ignores the suit).
    page = post(client, pile="5H", history=hidden(page, "history"), target="pile", suit="S", add="XB").get_data(
        as_text=True)
    page = post(client, pile="5H XB", history=hidden(page, "history"), target="pile", suit="S",
                add="9").get_data(as_text=True)
    assert state(page) == ("5H XB 9S", "", [["", ""], ["5H", ""], ["5H XB", ""]])
    assert by_id(page, "kr-pile") == "5♥ ★ 9♠"
    # Target the play: a diamonds jack starts the first lay, from the hand by default.
    page = post(client, pile="5H XB 9S", target="lay", suit="D", add="J").get_data(as_text=True)
    assert state(page)[:2] == ("5H XB 9S", "hand:JD")
    # A second tap joins the same lay (laid together); the red joker has no suit.
    page = post(client, pile="5H XB 9S", lays="hand:JD", target="lay", suit="D", add="xr").get_data(as_text=True)
    assert state(page)[:2] == ("5H XB 9S", "hand:JD XR")
    assert 'checked><span>the play' in page  # the target stays where it was
    nothing_stored(client)


def test_legal_play_shows_yes_the_rule_and_its_text(client: Any) -> None:
    # Three 5s on the pile, a fourth 5 laid: four of a rank in a row flip the pile and the
    # player lays again (KN-4.2).
    page = post(client, pile="5H 5S 5C", target="lay", suit="D", add="5").get_data(as_text=True)
    assert by_id(page, "kr-yes").startswith("✓")
    assert by_id(page, "kr-rule") == "KN-4.2"
    assert by_id(page, "kr-rule-text") == RULE_TEXT["KN-4.2"]
    assert "four 5s" in by_id(page, "kr-reason")
    assert "The pile flips." in page and "Lay again." in page


def test_illegal_play_shows_no_the_rule_and_its_text(client: Any) -> None:
    # A 5 on an 8: a card must be equal or higher (KN-3).
    page = ask(client, "8D", "hand:5H")
    assert by_id(page, "kr-yes").startswith("✗")
    assert 'class="kr-answer illegal"' in page
    assert by_id(page, "kr-rule") == "KN-3"
    assert by_id(page, "kr-rule-text") == RULE_TEXT["KN-3"]
    assert "equal or higher" in by_id(page, "kr-reason")
    # Trippelknug: three kings, a black ace may not follow (KN-14).
    page = ask(client, "KH KD KS", "hand:AS")
    assert by_id(page, "kr-rule") == "KN-14" and by_id(page, "kr-rule-text") == RULE_TEXT["KN-14"]


def test_lay_it_with_a_flip_empties_the_pile_and_undo_brings_it_back(client: Any) -> None:
    resp = post(client, pile="5H 5S 5C", lays="hand:5D", target="lay", action="lay")
    page = resp.get_data(as_text=True)
    assert resp.status_code == 200
    # The fourth 5 flips (KN-4.2): the pile is gone, the play is cleared.
    assert state(page) == ("", "", [["5H 5S 5C", "hand:5D"]])
    assert by_id(page, "kr-pile") == "empty"
    assert "Laid." in by_id(page, "kr-laid") and "The pile flips." in by_id(page, "kr-laid")
    resp = post(client, pile="", lays="", history=hidden(page, "history"), target="lay", action="undo")
    page = resp.get_data(as_text=True)
    assert resp.status_code == 200
    assert state(page) == ("5H 5S 5C", "hand:5D", [])
    assert by_id(page, "kr-rule") == "KN-4.2"  # the question is back, with its verdict


def test_lay_it_without_a_flip_moves_the_cards_onto_the_pile(client: Any) -> None:
    # A queen on a 9 (KN-3): the turn ends, so the next question is another player's and the
    # queen counts as laid by someone else (no "*").
    page = post(client, pile="9D", lays="hand:QC", action="lay").get_data(as_text=True)
    assert by_id(page, "kr-rule") == ""  # no play left to judge
    assert state(page)[:2] == ("9D QC", "")
    # A 2 on an ace (KN-5): the player lays again, so the 2 is marked as laid by the asker.
    page = post(client, pile="AH", lays="hand:2C", action="lay", last_card="").get_data(as_text=True)
    assert state(page)[:2] == ("AH 2C*", "")
    assert "Lay again." in by_id(page, "kr-laid")
    assert re.search(r'class="kr-card mine"[^>]*data-code="2C"', page)
    # Instick and last card are switched off after "Lay it" (the next question is a new turn).
    page = post(client, pile="5H", lays="hand:5S", instick="on", last_card="on", action="lay").get_data(
        as_text=True)
    # (An instick of a 5 on a 5 is legal, KN-11.)
    assert state(page)[:2] == ("5H 5S", "")
    assert not re.search(r'name="instick"[^>]*checked', page)
    assert not re.search(r'name="last_card"[^>]*checked', page)


def test_lay_it_refuses_an_illegal_play(client: Any) -> None:
    history = json.dumps([["", ""]])
    resp = post(client, pile="8D", lays="hand:5H", history=history, action="lay")
    page = resp.get_data(as_text=True)
    assert resp.status_code == 422
    assert by_id(page, "kr-refused")
    assert by_id(page, "kr-rule") == "KN-3" and by_id(page, "kr-rule-text") == RULE_TEXT["KN-3"]
    assert state(page) == ("8D", "hand:5H", [["", ""]])  # nothing moved, nothing added to undo
    nothing_stored(client)


def test_lay_it_needs_cards(client: Any) -> None:
    resp = post(client, pile="8D", lays="", action="lay")
    assert resp.status_code == 400
    assert "Tap the cards to be laid first" in by_id(resp.get_data(as_text=True), "kr-error")


def test_undo_steps_back_one_change_at_a_time(client: Any) -> None:
    page = post(client, target="pile", suit="C", add="3").get_data(as_text=True)
    page = post(client, pile="3C", history=hidden(page, "history"), target="pile", suit="C",
                add="4").get_data(as_text=True)
    page = post(client, pile="3C 4C", history=hidden(page, "history"), target="lay", suit="C",
                add="6").get_data(as_text=True)
    assert state(page) == ("3C 4C", "hand:6C", [["", ""], ["3C", ""], ["3C 4C", ""]])
    for expected in (("3C 4C", ""), ("3C", ""), ("", "")):
        page = post(client, pile=hidden(page, "pile"), lays=hidden(page, "lays"),
                    history=hidden(page, "history"), action="undo").get_data(as_text=True)
        assert state(page)[:2] == expected
    resp = post(client, action="undo", history="[]")
    assert resp.status_code == 400 and by_id(resp.get_data(as_text=True), "kr-error") == "Nothing to undo."


def test_undo_keeps_the_latest_forty_steps(client: Any) -> None:
    old = [["", f"hand:{n}"] for n in range(45)]  # (never read: only the latest is restored)
    page = post(client, history=json.dumps(old), target="pile", suit="H", add="A").get_data(as_text=True)
    history = state(page)[2]
    assert len(history) == 40 and history[-1] == ["", ""] and history[0] == ["", "hand:6"]


def test_next_lay_clear_play_and_empty_pile(client: Any) -> None:
    # (5, 5) from the hand, then "next lay", the face-up source and (6, 8): KN-6.1 lets face-up
    # cards extend the combination begun from the hand; 5 5 6 8 is a ladder skipping the 7 (KN-12.2).
    page = post(client, pile="4D", lays="hand:5H 5S", action="new_lay").get_data(as_text=True)
    assert state(page)[:2] == ("4D", "hand:5H 5S;hand:")
    assert "next lay: tap its cards" in by_id(page, "kr-lays")
    page = post(client, pile="4D", lays="hand:5H 5S;hand:", source="face_up", target="lay", suit="H",
                add="6").get_data(as_text=True)
    page = post(client, pile="4D", lays=hidden(page, "lays"), source="face_up", target="lay", suit="D",
                add="8").get_data(as_text=True)
    assert state(page)[:2] == ("4D", "hand:5H 5S;face_up:6H 8D")
    assert by_id(page, "kr-rule") == "KN-12.2" and by_id(page, "kr-yes").startswith("✓")
    # "Next lay" twice does not stack empty lays.
    page = post(client, pile="4D", lays="hand:5H;hand:", action="new_lay").get_data(as_text=True)
    assert state(page)[:2] == ("4D", "hand:5H;hand:")
    page = post(client, pile="4D", lays="hand:5H 5S;face_up:6H 8D", action="clear_lays").get_data(as_text=True)
    assert state(page) == ("4D", "", [["4D", "hand:5H 5S;face_up:6H 8D"]])
    page = post(client, pile="4D", lays="hand:5H", action="clear_pile").get_data(as_text=True)
    assert state(page) == ("", "hand:5H", [["4D", "hand:5H"]])
    # An empty pile takes anything (KN-3).
    assert by_id(page, "kr-rule") == "KN-3" and by_id(page, "kr-yes").startswith("✓")


def test_the_offending_lay_is_marked(client: Any) -> None:
    # A 5 from the hand, then a face-up 9 that extends nothing: KN-6.1, the second lay.
    page = ask(client, "4D", "hand:5H;face_up:9H")
    assert by_id(page, "kr-rule") == "KN-6.1"
    assert re.search(r'<li class="bad"><span class="kr-src">face-up', page)
    assert "Lay 2 breaks it." in page


def test_a_turn_of_several_combinations_lists_each(client: Any) -> None:
    # A 2 on an ace (KN-5, lay again), then a 5 on the 2 (anything goes on a 2, KN-5).
    page = ask(client, "AH", "hand:2C;hand:5D")
    assert by_id(page, "kr-rule") == "KN-5"
    steps = re.findall(r'<span class="kr-step-lays">Lay (\d)</span> <strong>([\w.-]+)</strong>', page)
    assert steps == [("1", "KN-5"), ("2", "KN-5")]


@pytest.mark.parametrize(("fields", "legal", "rule", "shown"), [
    pytest.param({"pile": "5H", "lays": "hand:5S", "instick": "on"}, True, "KN-11", "An instick",
                 id="KN-11 instick of the same rank"),
    pytest.param({"pile": "5H", "lays": "hand:6S", "instick": "on"}, False, "KN-11", "same rank",
                 id="KN-11 instick of another rank"),
    pytest.param({"pile": "4D", "lays": "face_up:4C", "instick": "on"}, False, "KN-6.1", "Face-up",
                 id="KN-6.1 no face-up instick"),
    pytest.param({"pile": "4D", "lays": "chance:5C 5D"}, False, "KN-3.2", "chance",
                 id="KN-3.2 a chance is one card"),
    pytest.param({"pile": "4D", "lays": "face_down:5C 5D"}, False, "KN-6.2", "one at a time",
                 id="KN-6.2 face-down one at a time"),
    pytest.param({"pile": "9D", "lays": "hand:QC", "last_card": "on"}, True, "KN-3", "Out",
                 id="KN-7 last card: out"),
    pytest.param({"pile": "AH", "lays": "hand:2C", "last_card": "on"}, True, "KN-5", "Lost",
                 id="KN-7 last card a 2: lost"),
    pytest.param({"pile": "4D", "lays": "hand:5H 6S 8D", "dots": "3"}, False, "KN-16.8", "ladders",
                 id="KN-16.8 no ladders from the 3rd dot"),
    pytest.param({"pile": "4D", "lays": "hand:5H 6S 8D", "dots": "2"}, True, "KN-12.2", "ladder",
                 id="KN-12.2 a ladder with 2 dots"),
    pytest.param({"pile": "4D", "lays": "hand:5H", "dots": "5"}, False, "KN-16.8", "disqualified",
                 id="KN-16.8 disqualified at the 5th dot"),
    pytest.param({"pile": "XR XB XB XR XB", "lays": "hand:XB", "double_deck": "on"}, True, "KN-17.2.6",
                 "hexa kajak", id="KN-17.2.6 six kajaks with a double deck"),
    pytest.param({"pile": "XR XB", "lays": "hand:7H"}, False, "KN-10.1", "double knäker",
                 id="KN-10.1 no 7 on a double knäker"),
    pytest.param({"pile": "5H", "lays": "hand:5S", "instick": "on", "no_insticks": "on"}, False, "KN-10.3",
                 "no insticks", id="KN-10.3 handicap: no insticks"),
])
def test_each_toggle_reaches_the_verdict(client: Any, fields: dict[str, str], legal: bool, rule: str,
                                         shown: str) -> None:
    page = ask(client, **fields)
    assert by_id(page, "kr-yes").startswith("✓" if legal else "✗")
    assert by_id(page, "kr-rule") == rule
    assert by_id(page, "kr-rule-text") == RULE_TEXT[rule]
    assert shown.lower() in by_id(page, "kr-answer").lower()
    # The toggles keep what was tapped.
    for name in ("instick", "last_card", "double_deck", "no_insticks"):
        if fields.get(name) == "on":
            assert re.search(rf'name="{name}"[^>]*checked', page)
    assert re.search(rf'name="dots" value="{fields.get("dots", "0")}" checked', page)


def test_outcome_names_its_rule(client: Any) -> None:
    # Going out on a 7 with no 2 beneath it is allowed (KN-13.4).
    page = ask(client, "9D", "hand:7C", last_card="on")
    assert "Out · KN-13.4" in by_id(page, "kr-outcome") and RULE_TEXT["KN-13.4"] in page


def test_source_toggle_belongs_to_the_lay_being_built(client: Any) -> None:
    page = ask(client, "4D", "hand:5C", source="chance")
    assert state(page)[1] == "chance:5C"
    assert 'name="source" value="chance" checked' in page
    # A chance on a 4: a 5 is higher (KN-3).
    assert by_id(page, "kr-rule") == "KN-3"


# --- bad input: a clear message, never a 500, nothing changes ------------------------

@pytest.mark.parametrize(("fields", "message", "kept"), [
    pytest.param({"pile": "5H", "target": "pile", "suit": "H", "add": "5"}, "5H appears 2 times", ("5H", ""),
                 id="KN-1 a card twice in one deck"),
    pytest.param({"pile": "5H", "target": "lay", "suit": "H", "add": "5"}, "5H appears 2 times", ("5H", ""),
                 id="KN-1 a card of the pile laid again"),
    pytest.param({"pile": "XR", "target": "pile", "add": "XR"}, "XR appears 2 times", ("XR", ""),
                 id="KN-1 one red joker in one deck"),
    pytest.param({"pile": "5H", "target": "pile", "suit": "S", "add": "10"}, "A 10 flips the pile", ("5H", ""),
                 id="KN-4.1 no 10 lies on a pile"),
    pytest.param({"pile": "5H", "target": "pile", "add": "Z"}, "is not a rank", ("5H", ""),
                 id="a rank no button has"),
    pytest.param({"pile": "5H", "target": "pile", "action": "type", "typed": "6H ZZ"}, "is not a card",
                 ("5H", ""), id="a typed card that is none"),
    pytest.param({"pile": "5H", "target": "pile", "action": "type", "typed": "  "}, "Type cards like",
                 ("5H", ""), id="nothing typed"),
    pytest.param({"pile": "5H", "lays": "hand:6H", "hexa_kajak": "on", "action": "ask"}, "only with a double deck",
                 ("5H", "hand:6H"), id="KN-17.2.6 the hexa handicap needs a double deck"),
    pytest.param({"pile": "5H 10S", "action": "ask"}, "A 10 flips the pile", ("5H 10S", ""),
                 id="KN-4.1 a pile holding a 10"),
    pytest.param({"pile": "XR XB XB XR", "action": "ask"}, "XR appears 2 times", ("XR XB XB XR", ""),
                 id="KN-17 four jokers need the double deck"),
])
def test_bad_cards_give_a_message_and_change_nothing(client: Any, fields: dict[str, str], message: str,
                                                     kept: tuple[str, str]) -> None:
    history = json.dumps([["", ""]])
    resp = post(client, history=history, **fields)
    page = resp.get_data(as_text=True)
    assert resp.status_code == 400
    assert message in by_id(page, "kr-error")
    assert state(page) == (*kept, [["", ""]])
    nothing_stored(client)


def test_typed_cards_are_added_together(client: Any) -> None:
    page = post(client, pile="4D", target="lay", action="type", typed="5h, 5s 7c").get_data(as_text=True)
    assert state(page)[:2] == ("4D", "hand:5H 5S 7C")
    # A 7 inside a set of 5s makes two ranks: no combination (KN-3.1).
    assert by_id(page, "kr-rule") == "KN-3.1"


@pytest.mark.parametrize("fields", [
    pytest.param({"pile": "QQ"}, id="a pile card that is none"),
    pytest.param({"lays": "pocket:5H"}, id="an unknown source"),
    pytest.param({"lays": "5H"}, id="a lay without source"),
    pytest.param({"lays": "hand:5H*"}, id="a laid card marked as on the pile"),
    pytest.param({"pile": "5H " * 1500}, id="far too many cards"),
])
def test_unreadable_state_starts_afresh_with_a_message(client: Any, fields: dict[str, str]) -> None:
    resp = post(client, action="ask", **fields)
    page = resp.get_data(as_text=True)
    assert resp.status_code == 400
    assert "could not be read" in by_id(page, "kr-error")
    assert state(page) == ("", "", [])


@pytest.mark.parametrize("fields", [
    pytest.param({"history": "not json", "action": "undo"}, id="history not JSON"),
    pytest.param({"history": '{"a": 1}', "action": "undo"}, id="history not a list"),
    pytest.param({"history": '[[1, 2], ["x"]]', "action": "undo"}, id="history entries of the wrong kind"),
    pytest.param({"dots": "abc", "target": "sideways", "suit": "Z", "source": "sleeve", "action": "ask"},
                 id="toggles no control can send"),
])
def test_odd_fields_fall_back_to_defaults(client: Any, fields: dict[str, str]) -> None:
    resp = post(client, pile="5H", **fields)
    page = resp.get_data(as_text=True)
    assert resp.status_code in (200, 400)
    assert "Something went wrong" not in page
    assert hidden(page, "pile") == "5H"
    assert 'name="dots" value="0" checked' in page


def test_a_stale_history_entry_is_reported_not_crashed(client: Any) -> None:
    resp = post(client, pile="5H", history=json.dumps([["QQ", ""]]), action="undo")
    assert resp.status_code == 400
    assert "is not a card" in by_id(resp.get_data(as_text=True), "kr-error")


# --- the script's verdict endpoint --------------------------------------------------

def test_verdict_fragment_for_the_script(client: Any) -> None:
    resp = client.post(f"{URL}/verdict", data={"pile": "5H 5S 5C", "lays": "hand:5D"})
    body = resp.get_json()
    assert resp.status_code == 200 and body["ok"] is True and body["error"] is None
    assert by_id(body["verdict"], "kr-rule") == "KN-4.2"
    assert by_id(body["board"], "kr-pile") == "5♥ 5♠ 5♣"
    # The source toggle moves onto the lay being built here as well.
    body = client.post(f"{URL}/verdict", data={"pile": "4D", "lays": "hand:5C", "source": "chance"}).get_json()
    assert "chance" in by_id(body["board"], "kr-lays")


@pytest.mark.parametrize(("fields", "message"), [
    pytest.param({"pile": "5H 5H"}, "5H appears 2 times", id="KN-1 a card twice"),
    pytest.param({"pile": "5H", "lays": "hand:5H"}, "5H appears 2 times", id="KN-1 a pile card laid"),
    pytest.param({"pile": "7C 10H"}, "10", id="KN-4.1 a 10 on the pile"),
    pytest.param({"pile": "##"}, "not a card", id="not a card"),
])
def test_verdict_fragment_refuses_impossible_cards(client: Any, fields: dict[str, str], message: str) -> None:
    resp = client.post(f"{URL}/verdict", data=fields)
    body = resp.get_json()
    assert resp.status_code == 200 and body["ok"] is False
    assert message in body["error"] and message in by_id(body["verdict"], "kr-error")
