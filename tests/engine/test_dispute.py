"""Tests of the trick referee's dispute mode (one trick, one card, facts about the hand; issue 28 item 5).

Expected verdicts are read from ``shared/rules/svangknack.md`` SK-15 (and KU-3,
SL-14) in the comments. The property test checks the dispute against the
whole-deal referee given the witness cards as a shown hand: the same verdict
and rule, so the two modes never disagree.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.engine import BadInput, questions
from referee.engine import dispute as dp
from referee.engine import tricks as tr

P4 = ["Anna", "Bo", "Cia", "Dan"]


def ask(trick: str, card: str | None = None, known: tuple[str, ...] = (), game: str = "svangknack",
        trump: str | None = "H", leader: str = "Bo", players: list[str] | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"game": game, "players": players or P4, "leader": leader, "trick": trick.split(),
                            "known": list(known)}
    if card is not None:
        data["card"] = card
    if trump is not None:
        data["trump"] = trump
    return questions.answer("tricks/dispute", data)


def test_benefit_of_the_doubt_without_facts() -> None:
    # Bo leads K♦, Cia 5♦, Dan discards 3♣: with nothing known of Dan's hand the play stands (SK-15).
    out = ask("KD 5D 3C AD", "3C")
    assert out["legal"] is True and out["rule"] == "SK-15"
    assert out["player"] == "Dan" and out["position"] == 3 and out["order"] == ["Bo", "Cia", "Dan", "Anna"]
    assert out["winner"] == "Anna"  # A♦ is the highest of the suit led, no trump in the trick
    assert [f["id"] for f in out["facts"]] == ["suit", "trump"]  # no ♦ above K♦ is left but A♦, on the table


def test_had_the_suit_led_must_follow() -> None:
    # SK-15: "must follow suit ... else a lower card of the suit": Dan had a ♦.
    out = ask("KD 5D 3C AD", "3C", ("suit",))
    assert out["legal"] is False and out["rule"] == "SK-15"
    assert out["reason"] == "Dan had to follow suit with a ♦ (SK-15)."
    assert out["known"] == ["suit"]


def test_void_with_a_trump_must_trump() -> None:
    # SK-15: "if void in the suit, must trump".
    out = ask("KD 5D 3C AD", "3C", ("trump",))
    assert out["legal"] is False
    assert out["reason"] == "Dan had no diamonds and had to trump with a ♥ (SK-15)."


def test_forced_overtaking_with_a_higher_card() -> None:
    # Cia played 5♦ under 10♦ but had a higher ♦: forced overtaking (SK-15).
    out = ask("10D 5D", known=("higher",))
    assert out["legal"] is False
    assert out["reason"] == "Cia had to beat ten of diamonds with a higher ♦ (forced overtaking, SK-15)."
    assert out["winner"] is None  # the trick is not complete


def test_overtaking_a_trump_already_played() -> None:
    # Cia trumped with 9♥; Dan, void in ♦, trumped lower with 2♥ but had a higher trump.
    out = ask("KD 9H 2H", known=("higher_trump",))
    assert out["legal"] is False and "overtake the trump nine of hearts with a higher ♥" in out["reason"]
    assert ask("KD 9H 2H")["legal"] is True


def test_trumf_i_andra() -> None:
    # SK-15: the winner of the first trick must lead a trump to the second, if able.
    out = ask("KD 5D 3C AD", "KD", ("second",))
    assert out["legal"] is False and "trumf i andra" in out["reason"]
    lead = ask("KD 5D 3C AD", "KD")
    assert lead["legal"] is True and "any card may lead" in lead["reason"]
    assert [f["id"] for f in ask("2H", "2H")["facts"]] == []  # a trump led: nothing to argue


def test_kul_has_no_trump_facts() -> None:
    out = ask("KD 9C", game="kul", trump=None, leader="Anna", players=["Anna", "Bo", "Cia"])
    assert [f["id"] for f in out["facts"]] == ["suit", "higher"]
    assert ask("KD 9C", known=("suit",), game="kul", trump=None, leader="Anna",
               players=["Anna", "Bo", "Cia"])["rule"] == "KU-3"


def test_schloapfer_undertrumping_and_trumps_only() -> None:
    # SL-14: no undertrumping, unless the hand held only trumps.
    base = {"game": "schloapfer", "trump": "H", "players": ["A", "B", "C"], "leader": "A", "trick": ["KD", "9H", "7H"]}
    assert questions.answer("tricks/dispute", base)["legal"] is True
    out = questions.answer("tricks/dispute", base | {"known": ["side"]})
    assert out["legal"] is False
    assert out["reason"] == "C may not undertrump nine of hearts with seven of hearts (SL-14)."
    # Trumps led: following with any trump but the jack (the jack is never forced).
    led = questions.answer("tricks/dispute", base | {"trick": ["KH", "7D"], "known": ["trump"]})
    assert led["legal"] is False and "other than the jack" in led["reason"]


def test_a_fact_the_trick_made_pointless_is_dropped() -> None:
    # Cia followed with a higher ♦: "had ♦" changes nothing, so it is not offered and not applied.
    out = ask("5D KD", known=("suit",))
    assert out["legal"] is True and out["known"] == [] and out["facts"] == []


def test_translated() -> None:
    sv = {"%(player)s had to follow suit with %(better)s (%(rule)s).": "%(player)s måste bekänna med %(better)s "
          "(%(rule)s).", "a %(suit)s": "en %(suit)s"}
    out = questions.answer("tricks/dispute", {"game": "svangknack", "trump": "H", "players": P4, "leader": "Bo",
                                              "trick": ["KD", "5D", "3C"], "known": ["suit"]},
                           lambda t: sv.get(t, t))
    assert out["reason"] == "Dan måste bekänna med en ♦ (SK-15)."


@pytest.mark.parametrize(("change", "field"), [
    ({"trick": []}, "trick"), ({"trick": "KD"}, "trick"), ({"card": "AS"}, "card"), ({"known": ["psychic"]}, "known"),
    ({"trick": ["KD", "KD"]}, "tricks"), ({"trick": ["KD", "5D", "3C", "AD", "2S"]}, "tricks"),
    ({"leader": "Eve"}, "leader"), ({"extra": 1}, "extra"), ({"trick": ["1D"]}, "tricks"),
])
def test_bad_input_is_400(change: dict[str, Any], field: str) -> None:
    data = {"game": "svangknack", "trump": "H", "players": P4, "leader": "Bo", "trick": ["KD", "5D"]} | change
    with pytest.raises(BadInput) as err:
        questions.answer("tricks/dispute", data)
    assert err.value.field == field


CARDS = sorted(c.code for c in tr.DECKS["svangknack"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(CARDS), min_size=2, max_size=4, unique=True), st.sampled_from(["S", "H", "D", "C"]),
       st.data())
def test_agrees_with_the_whole_deal_referee(trick: list[str], trump: str, data: st.DataObject) -> None:
    """The dispute's verdict is the whole-deal referee's with the witnesses shown as the hand."""
    d = dp.parse_dispute({"game": "svangknack", "trump": trump, "players": P4, "leader": "Anna", "trick": trick})
    offered = [f for f in dp.facts(d) if f.id != "second"]
    chosen = data.draw(st.lists(st.sampled_from(offered), max_size=2, unique_by=lambda f: f.id)) if offered else []
    out = dp.judge_dispute(dp.Dispute(d.game, d.trump, d.players, d.leader, d.trick, d.card,
                                      tuple(f.id for f in chosen)))
    player = d.order()[d.position]
    whole = tr.verdict_json(tr.judge(tr.parse_deal({
        "game": "svangknack", "trump": trump, "players": P4, "leader": "Anna", "tricks": [trick],
        "hands": {player: [f.witness.code for f in chosen]} if chosen else {}})))
    assert out["legal"] == whole["legal"]
    if not whole["legal"]:
        assert (whole["player"], whole["rule"]) == (player, out["rule"])
