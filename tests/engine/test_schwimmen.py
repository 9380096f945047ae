"""Schwimmen / 31 (SW-1 .. SW-10): hand values, lives, money, entry checks.

SW-11 (dealing and exchanging) is table-only: no money or entry depends on it,
so it has no test. Expected values are computed by hand or by the brute-force
references below, written independently of the engine.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from referee.engine import BadInput, RuleViolation
from referee.engine import schwimmen as sw
from referee.engine.cards import parse_card
from referee.engine.money import Money
from referee.engine.records import describe_options, dump, load, parse_options

M = Money(2)
P3 = ("Anna", "Bo", "Cia")

# --- independent references --------------------------------------------------

REF_RANKS = {
    32: ["A", "K", "Q", "J", "10", "9", "8", "7"],
    36: ["A", "K", "Q", "J", "10", "9", "8", "7", "6"],
    52: ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"],
}
REF_SUITS_HIGH_FIRST = ["C", "S", "H", "D"]  # clubs > spades > hearts > diamonds (SW-6)


def ref_card_value(rank: str) -> int:
    if rank == "A":
        return 11
    if rank in ("K", "Q", "J"):
        return 10
    return int(rank)


def ref_deck(deck: int) -> list[str]:
    return [r + s for s in "CSHD" for r in REF_RANKS[deck]]


def ref_hand(codes: list[str] | tuple[str, ...], feuer: bool = True) -> tuple[float, str, str]:
    """(value as float, kind, suit-or-rank) of three card codes, straight from SW-2/SW-3."""
    ranks = [c[:-1] for c in codes]
    if ranks[0] == ranks[1] == ranks[2]:
        if ranks[0] == "A" and feuer:
            return 32.0, "feuer", "A"
        return 30.5, "three_of_a_kind", ranks[0]
    per_suit = {"C": 0, "S": 0, "H": 0, "D": 0}
    for c in codes:
        per_suit[c[-1]] += ref_card_value(c[:-1])
    best = max(per_suit.values())
    suit = next(s for s in REF_SUITS_HIGH_FIRST if per_suit[s] == best)
    return float(best), ("31" if best == 31 else "suit"), suit


def ref_beats(a: tuple[float, str, str], b: tuple[float, str, str], ties: str) -> bool:
    """Whether hand a is strictly better than hand b (SW-6)."""
    if a[0] != b[0]:
        return a[0] > b[0]
    if ties == "all_lose" or a[2] == b[2]:
        return False
    if a[1] in ("suit", "31"):
        return REF_SUITS_HIGH_FIRST.index(a[2]) < REF_SUITS_HIGH_FIRST.index(b[2])
    order = REF_RANKS[52]
    return order.index(a[2]) < order.index(b[2])


def ref_losers(hands: dict[str, tuple[float, str, str]], ties: str, losers: str) -> set[str]:
    names = list(hands)
    if losers == "lowest":
        return {p for p in names if not any(ref_beats(hands[p], hands[q], ties) for q in names)}
    best = {p for p in names if not any(ref_beats(hands[q], hands[p], ties) for q in names)}
    above = [p for p in names if hands[p][0] > 20]
    lowest_above = {p for p in above if not any(ref_beats(hands[p], hands[q], ties) for q in above)}
    return {p for p in names if hands[p][0] <= 20 or p in lowest_above} - best


# --- helpers -----------------------------------------------------------------

def new(players: tuple[str, ...] = P3, stake: int = 100, dealer: str | None = None, **opts: Any) -> sw.State:
    return sw.start(players, dealer or players[0], stake, parse_options(sw.Options, opts))


def play(state: sw.State, payload: dict[str, Any]) -> sw.State:
    return sw.apply(state, sw.parse_round(state, payload, M))


def rejects(state: sw.State, payload: dict[str, Any], rule: str) -> RuleViolation:
    rnd = sw.parse_round(state, payload, M)
    before = dump(state)
    with pytest.raises(RuleViolation) as info:
        sw.apply(state, rnd)
    assert info.value.rule == rule, info.value.message
    assert f"({rule})" in info.value.message
    found = sw.check(state, rnd)
    assert found is not None and found.rule == rule
    assert dump(state) == before
    return info.value


def knock(by: str, **entry: Any) -> dict[str, Any]:
    return {"ended_by": "knock", "by": by, **entry}


def cards(*codes: str) -> list[Any]:
    return [parse_card(c) for c in codes]


def js(state: sw.State) -> dict[str, Any]:
    return sw.state_json(state, M)


# --- SW-2 / SW-3 / SW-4: the hand referee ------------------------------------

@pytest.mark.parametrize("deck", [32, 36, 52])
@pytest.mark.parametrize("feuer", [True, False])
def test_SW_3_every_hand_of_every_deck_matches_brute_force(deck: int, feuer: bool) -> None:
    parsed = {c: parse_card(c) for c in ref_deck(deck)}
    for combo in itertools.combinations(ref_deck(deck), 3):
        hv = sw.rate([parsed[c] for c in combo], feuer)
        value, kind, key = ref_hand(combo, feuer)
        assert (hv.value, hv.kind) == (value, kind), combo
        assert (hv.suit if kind in ("suit", "31") else hv.rank) == key, combo


@pytest.mark.parametrize("deck", [32, 36, 52])
@pytest.mark.parametrize("feuer", [True, False])
def test_SW_4_possible_values_are_exactly_the_values_of_some_hand(deck: int, feuer: bool) -> None:
    expected = {ref_hand(c, feuer)[0] for c in itertools.combinations(ref_deck(deck), 3)}
    got = [h / 2 for h in sw.possible_values(deck, feuer)]
    assert got == sorted(expected)


def test_SW_4_digest_list_for_the_32_card_deck() -> None:
    listed = [*range(8, 12), *range(15, 22), *range(24, 32), 30.5]
    assert [h / 2 for h in sw.possible_values(32, True)] == sorted([*listed, 32])
    assert [h / 2 for h in sw.possible_values(32, False)] == sorted(listed)
    assert 26 not in sw.possible_values(32) and 44 not in sw.possible_values(32)  # 13 and 22


@given(st.sampled_from([32, 36, 52]), st.data())
@settings(max_examples=200)
def test_SW_3_property_random_hand_value(deck: int, data: st.DataObject) -> None:
    combo = data.draw(st.lists(st.sampled_from(ref_deck(deck)), min_size=3, max_size=3, unique=True))
    feuer = data.draw(st.booleans())
    hv = sw.hand_value(cards(*combo), deck, feuer)
    assert hv.value == ref_hand(combo, feuer)[0]
    assert hv.half_points in sw.possible_values(deck, feuer)


@pytest.mark.parametrize(("codes", "value", "kind", "suit"), [
    (["QH", "10H", "JD"], 20, "suit", "H"),          # seed 003 example
    (["AC", "KC", "9C"], 30, "suit", "C"),           # seed 003 example, API.md
    (["7D", "7H", "7S"], 30.5, "three_of_a_kind", None),
    (["AD", "KD", "10D"], 31, "31", "D"),
    (["10H", "JH", "AH"], 31, "31", "H"),            # conformance
    (["AC", "AD", "AH"], 32, "feuer", None),
    (["AC", "7S", "8H"], 11, "suit", "C"),           # SW-2: ace 11
    (["KS", "QS", "7D"], 20, "suit", "S"),           # SW-2: pictures 10
    (["9D", "8D", "7H"], 17, "suit", "D"),           # SW-2: face value
    (["KC", "KS", "7H"], 10, "suit", "C"),           # equal suits: the higher suit scores
], ids=lambda v: str(v))
def test_SW_2_SW_3_worked_examples(codes: list[str], value: float, kind: str, suit: str | None) -> None:
    hv = sw.hand_value(cards(*codes), 32)
    assert sw.value_json(hv) == {"value": value, "kind": kind, "suit": suit}
    assert type(sw.value_json(hv)["value"]) is (float if value == 30.5 else int)


def test_SW_3_feuer_off_three_aces_are_thirty_and_a_half() -> None:
    hv = sw.hand_value(cards("AC", "AD", "AH"), 32, feuer=False)
    assert (hv.value, hv.kind) == (30.5, "three_of_a_kind")


@pytest.mark.parametrize(("deck", "codes"), [
    (32, ["6C", "7C", "8C"]), (32, ["2C", "7C", "8C"]), (36, ["5C", "7C", "8C"]), (52, ["XR", "7C", "8C"]),
    (32, ["7C", "8C"]), (32, ["7C", "8C", "9C", "10C"]), (32, ["7C", "7C", "8C"]),
], ids=["SW-10 six-in-32", "SW-10 two-in-32", "SW-10 five-in-36", "SW-10 joker", "SW-10 two-cards",
        "SW-10 four-cards", "SW-10 twice"])
def test_SW_10_referee_rejects_what_is_not_a_hand(deck: int, codes: list[str]) -> None:
    with pytest.raises(RuleViolation) as info:
        sw.hand_value(cards(*codes), deck)
    assert info.value.rule == "SW-10"


def test_SW_3_six_counts_in_the_36_and_52_decks() -> None:
    assert sw.hand_value(cards("6C", "7C", "8C"), 36).value == 21
    assert sw.hand_value(cards("2C", "3C", "4C"), 52).value == 9


def test_SW_3_explain() -> None:
    assert sw.explain(cards("AC", "KC", "9C")) == "♣ A K 9 = 30"
    assert sw.explain(cards("QH", "10H", "JD")) == "♥ Q 10 = 20"
    assert sw.explain(cards("7D", "7H", "7S")) == "7 7 7 (three of a kind) = 30½"
    assert sw.explain(cards("AD", "AH", "AS")) == "A A A (Feuer) = 32"


def test_SW_3_parse_value_request() -> None:
    got = sw.parse_value_request({"cards": ["10h", "JH", "AH"], "deck": 32})
    assert got == (tuple(cards("10H", "JH", "AH")), 32, True)
    assert sw.parse_value_request({"cards": ["AC", "AD", "AH"], "feuer": False})[1:] == (32, False)
    for bad in ({"cards": ["ZZ"]}, {"cards": "AC"}, {"cards": ["AC"], "deck": 40}, {"cards": ["AC"], "deck": True},
                {"deck": 32}, {"cards": ["AC"], "extra": 1}, {"cards": ["AC"], "feuer": "yes"}, []):
        with pytest.raises(BadInput):
            sw.parse_value_request(bad)


# --- options -----------------------------------------------------------------

def test_options_defaults_and_bad_values() -> None:
    o = parse_options(sw.Options, {})
    assert (o.deck, o.feuer, o.ties, o.losers, o.lives, o.simultaneous_out, o.pay_per_life) == (
        32, True, "all_lose", "lowest", 3, "all_survive", False)
    for bad in ({"deck": 40}, {"deck": "32"}, {"feuer": 1}, {"ties": "x"}, {"losers": "x"}, {"lives": 0},
                {"lives": 11}, {"simultaneous_out": "x"}, {"pay_per_life": "no"}, {"stake": 1}):
        with pytest.raises(BadInput):
            parse_options(sw.Options, bad)
    assert all(d["doc"] for d in describe_options(sw.Options))


# --- SW-1 players, deck, direction -------------------------------------------

@pytest.mark.parametrize("n", [1, 10], ids=["SW-1 one", "SW-1 ten"])
def test_SW_1_player_count(n: int) -> None:
    with pytest.raises(RuleViolation) as info:
        new(tuple(f"P{i}" for i in range(n)))
    assert info.value.rule == "SW-1"


@pytest.mark.parametrize("n", [2, 9])
def test_SW_1_two_to_nine_players(n: int) -> None:
    s = new(tuple(f"P{i}" for i in range(n)))
    assert s.pot == 100 * n and js(s)["dealer"] == "P0"


def test_SW_1_deal_moves_clockwise_or_counter_clockwise_with_36() -> None:
    names = ("Anna", "Bo", "Cia", "Dan")
    s = play(new(names), knock("Bo", losers=["Cia"]))
    assert js(s)["dealer"] == "Bo" and js(s)["direction"] == "clockwise"
    s = play(new(names, deck=36), knock("Bo", losers=["Cia"]))
    assert js(s)["dealer"] == "Dan" and js(s)["direction"] == "counter-clockwise"


def test_SW_1_deal_skips_players_who_are_out() -> None:
    s = new(("Anna", "Bo", "Cia"), lives=1)
    s = play(s, knock("Anna", losers=["Bo"]))   # Bo swims; Bo deals next
    s = play(s, knock("Anna", losers=["Bo"]))   # Bo goes under while dealing
    assert js(s)["players"]["Bo"]["out"] is True
    assert js(s)["dealer"] == "Cia"
    s = play(s, knock("Anna", losers=["Anna"]))
    assert js(s)["dealer"] == "Anna"  # Cia -> (Anna); Bo skipped after Anna


def test_start_rejects_unknown_dealer_and_negative_stake() -> None:
    with pytest.raises(BadInput):
        sw.start(P3, "Dan", 0, sw.Options())
    with pytest.raises(RuleViolation) as info:
        sw.start(P3, "Anna", -1, sw.Options())
    assert info.value.rule == "SW-9"


# --- SW-5 ending a game ------------------------------------------------------

HANDS = {"Anna": ["AC", "KC", "9C"], "Bo": ["7D", "7H", "7S"], "Cia": ["QH", "10H", "JD"]}


def test_SW_5_knock_hands_lowest_loses() -> None:
    s = play(new(), knock("Anna", hands=HANDS))
    out = js(s)
    assert out["values"] == {"Anna": 30, "Bo": 30.5, "Cia": 20}
    assert out["losers"] == ["Cia"] and out["players"]["Cia"]["lives"] == 2
    assert out["explanations"]["Anna"] == "♣ A K 9 = 30"


def test_SW_5_thirty_one_held() -> None:
    hands = {"Anna": ["AD", "KD", "10D"], "Bo": ["7C", "8C", "9H"], "Cia": ["QH", "JH", "7S"]}
    s = play(new(), {"ended_by": "31", "by": "Anna", "hands": hands})
    assert js(s)["losers"] == ["Bo"]


@pytest.mark.parametrize("entry", [
    {"hands": HANDS}, {"points": {"Anna": 30, "Bo": 30.5, "Cia": 20}},
], ids=["SW-10 31 not held (hands)", "SW-10 31 not held (points)"])
def test_SW_10_claimed_31_must_be_held(entry: dict[str, Any]) -> None:
    rejects(new(), {"ended_by": "31", "by": "Anna", **entry}, "SW-10")


def test_SW_5_feuer_every_other_player_loses() -> None:
    hands = {"Anna": ["AC", "AD", "AH"], "Bo": ["7D", "8D", "9D"], "Cia": ["KS", "QS", "10S"]}
    for entry in ({"hands": hands}, {"points": {"Anna": 32, "Bo": 24, "Cia": 30}}, {"losers": ["Bo", "Cia"]}, {}):
        s = play(new(), {"ended_by": "feuer", "by": "Anna", **entry})
        assert js(s)["losers"] == ["Bo", "Cia"], entry
        assert [js(s)["players"][p]["lives"] for p in P3] == [3, 2, 2]


@pytest.mark.parametrize("entry", [
    {"hands": {"Anna": ["AC", "AD", "KH"], "Bo": ["7D", "8D", "9D"], "Cia": ["KS", "QS", "10S"]}},
    {"points": {"Anna": 31, "Bo": 24, "Cia": 30}},
], ids=["SW-10 feuer not held (hands)", "SW-10 feuer not held (points)"])
def test_SW_10_claimed_feuer_must_be_held(entry: dict[str, Any]) -> None:
    rejects(new(), {"ended_by": "feuer", "by": "Anna", **entry}, "SW-10")


@pytest.mark.parametrize("losers", [["Bo"], ["Anna", "Bo", "Cia"], []])
def test_SW_5_feuer_losers_are_everyone_else(losers: list[str]) -> None:
    rejects(new(), {"ended_by": "feuer", "by": "Anna", "losers": losers}, "SW-5")


def test_SW_5_no_feuer_when_the_option_is_off() -> None:
    rejects(new(feuer=False), {"ended_by": "feuer", "by": "Anna"}, "SW-5")
    rejects(new(feuer=False), knock("Anna", points={"Anna": 32, "Bo": 20, "Cia": 20}), "SW-4")
    hands = {"Anna": ["AC", "AD", "AH"], "Bo": ["7D", "8D", "9D"], "Cia": ["KS", "QS", "10S"]}
    s = play(new(feuer=False), knock("Cia", hands=hands))  # three aces are 30½ and fine in a knock game
    assert js(s)["values"]["Anna"] == 30.5 and js(s)["losers"] == ["Bo"]


@pytest.mark.parametrize("entry", [
    {"hands": {"Anna": ["AC", "AD", "AH"], "Bo": ["7D", "8D", "9D"], "Cia": ["KS", "QS", "10S"]}},
    {"points": {"Anna": 20, "Bo": 32, "Cia": 20}},
], ids=["SW-5 feuer shown at once (hands)", "SW-5 feuer shown at once (points)"])
def test_SW_5_feuer_held_in_a_knock_game(entry: dict[str, Any]) -> None:
    rejects(new(), knock("Cia", **entry), "SW-5")


# --- SW-6 losers -------------------------------------------------------------

def test_SW_6_all_lose_ties() -> None:
    s = play(new(), knock("Anna", points={"Anna": 20, "Bo": 20, "Cia": 25}))
    assert js(s)["losers"] == ["Anna", "Bo"]
    s = play(new(), knock("Anna", points={"Anna": 20, "Bo": 20, "Cia": 20}))
    assert js(s)["losers"] == ["Anna", "Bo", "Cia"]


def test_SW_6_higher_hand_suit_order() -> None:
    # 20 in clubs beats 20 in spades beats 20 in hearts (clubs > spades > hearts > diamonds)
    hands = {"Anna": ["KC", "QC", "7D"], "Bo": ["KS", "QS", "8D"], "Cia": ["KH", "QH", "9D"]}
    assert js(play(new(ties="higher_hand"), knock("Anna", hands=hands)))["losers"] == ["Cia"]
    assert js(play(new(), knock("Anna", hands=hands)))["losers"] == ["Anna", "Bo", "Cia"]
    hands = {"Anna": ["KH", "QH", "7C"], "Bo": ["KD", "QD", "8C"]}
    assert js(play(new(("Anna", "Bo"), ties="higher_hand"), knock("Anna", hands=hands)))["losers"] == ["Bo"]


def test_SW_6_higher_hand_same_suit_all_lose() -> None:
    hands = {"Anna": ["KC", "QC", "7D"], "Bo": ["JC", "10C", "8D"], "Cia": ["AS", "KS", "9D"]}
    assert js(play(new(ties="higher_hand"), knock("Anna", hands=hands)))["losers"] == ["Anna", "Bo"]


def test_SW_6_higher_hand_thirty_and_a_half_by_rank() -> None:
    hands = {"Anna": ["7D", "7H", "7S"], "Bo": ["QD", "QH", "QS"], "Cia": ["AC", "KC", "QC"]}
    assert js(play(new(ties="higher_hand"), knock("Cia", hands=hands)))["losers"] == ["Anna"]


def test_SW_6_higher_hand_with_tied_values_needs_cards() -> None:
    rejects(new(ties="higher_hand"), knock("Anna", points={"Anna": 20, "Bo": 20, "Cia": 25}), "SW-6")
    # a tie that decides nothing is fine
    s = play(new(ties="higher_hand"), knock("Anna", points={"Anna": 25, "Bo": 25, "Cia": 20}))
    assert js(s)["losers"] == ["Cia"]


NAMES5 = ("Anna", "Bo", "Cia", "Dan", "Eva")


@pytest.mark.parametrize(("points", "losers"), [
    ({"Anna": 15, "Bo": 20, "Cia": 21, "Dan": 27, "Eva": 30.5}, ["Anna", "Bo", "Cia"]),
    ({"Anna": 15, "Bo": 20, "Cia": 21, "Dan": 21, "Eva": 30.5}, ["Anna", "Bo", "Cia", "Dan"]),
    ({"Anna": 15, "Bo": 20, "Cia": 19, "Dan": 18, "Eva": 24}, ["Anna", "Bo", "Cia", "Dan"]),  # best never loses
    ({"Anna": 15, "Bo": 20, "Cia": 19, "Dan": 18, "Eva": 11}, ["Anna", "Cia", "Dan", "Eva"]),  # nobody above 20
    ({"Anna": 25, "Bo": 25, "Cia": 25, "Dan": 25, "Eva": 25}, []),                            # all best
], ids=["SW-6 twenty_or_less", "SW-6 twenty_or_less tie above", "SW-6 best only above 20",
        "SW-6 all at 20 or less", "SW-6 all tie"])
def test_SW_6_twenty_or_less(points: dict[str, float], losers: list[str]) -> None:
    s = play(new(NAMES5, losers="twenty_or_less"), knock("Eva", points=points))
    assert js(s)["losers"] == losers


def test_SW_6_losers_entry_checks() -> None:
    rejects(new(), knock("Anna", losers=[]), "SW-6")
    rejects(new(losers="twenty_or_less"), knock("Anna", losers=list(P3)), "SW-6")
    assert js(play(new(losers="twenty_or_less"), knock("Anna", losers=[])))["losers"] == []
    assert js(play(new(), knock("Anna", losers=list(P3))))["losers"] == list(P3)


# --- SW-7 lives / SW-8 winner / SW-9 money -----------------------------------

def test_SW_7_lives_swimming_and_going_under() -> None:
    s = new(("Anna", "Bo"), lives=2, stake=0)
    s = play(s, knock("Anna", losers=["Bo"]))
    assert js(s)["players"]["Bo"] == {"lives": 1, "swimming": False, "out": False}
    s = play(s, knock("Anna", losers=["Bo"]))
    assert js(s)["players"]["Bo"] == {"lives": 0, "swimming": True, "out": False}
    assert not s.finished
    s = play(s, knock("Anna", losers=["Bo"]))
    assert js(s)["players"]["Bo"] == {"lives": 0, "swimming": False, "out": True}
    assert js(s)["went_under"] == ["Bo"]


@pytest.mark.parametrize("lives", [1, 3, 10])
def test_SW_7_lives_option(lives: int) -> None:
    s = new(lives=lives)
    assert js(s)["players"]["Bo"]["lives"] == lives
    for _ in range(lives):
        s = play(s, knock("Anna", losers=["Bo"]))
    assert js(s)["players"]["Bo"] == {"lives": 0, "swimming": True, "out": False}


def test_SW_10_out_players_take_no_part() -> None:
    s = new(lives=1)
    s = play(s, knock("Anna", losers=["Bo"]))
    s = play(s, knock("Anna", losers=["Bo"]))  # Bo is out
    rejects(s, knock("Bo", losers=["Anna"]), "SW-10")
    rejects(s, knock("Anna", losers=["Bo"]), "SW-10")
    rejects(s, knock("Anna", points={"Anna": 20, "Bo": 20, "Cia": 21}), "SW-10")
    rejects(s, knock("Anna", hands={**HANDS}), "SW-10")
    s2 = play(s, knock("Anna", points={"Anna": 20, "Cia": 21}))
    assert js(s2)["values"] == {"Anna": 20, "Cia": 21}


def test_SW_8_last_player_wins_and_takes_the_pot() -> None:
    s = new(("Anna", "Bo", "Cia"), stake=150, lives=1)
    for loser in ("Bo", "Bo", "Cia", "Cia"):
        s = play(s, knock("Anna", losers=[loser]))
    out = js(s)
    assert out["finished"] is True and out["winner"] == "Anna" and out["winners"] is None
    assert out["balances"] == {"Anna": "3.00", "Bo": "-1.50", "Cia": "-1.50"} and out["pot"] == "0.00"
    v = rejects(s, knock("Anna", losers=["Anna"]), "SW-8")
    assert "over" in v.message


def test_SW_8_all_survive_share_the_pot_with_remainder_from_the_dealers_left() -> None:
    names = ("Anna", "Bo", "Cia", "Dan")
    s = new(names, stake=1, lives=1, dealer="Cia")  # pot 4 minor units
    s = play(s, knock("Bo", losers=["Anna"]))      # Anna swims; Dan deals next
    s = play(s, knock("Bo", losers=["Anna"]))      # Anna out; Anna deals next... skipped -> Bo
    s = play(s, knock("Bo", losers=["Bo", "Cia", "Dan"]))   # all swim
    assert js(s)["dealer"] == "Cia"
    s = play(s, knock("Bo", losers=["Bo", "Cia", "Dan"]))   # all three go under at once
    out = js(s)
    assert out["finished"] and out["winner"] is None and out["winners"] == ["Bo", "Cia", "Dan"]
    # pot 4 among 3: 1 each, the extra unit to the first of them left of the dealer (Cia) -> Dan
    assert out["balances"] == {"Anna": "-0.01", "Bo": "0.00", "Cia": "0.00", "Dan": "0.01"}
    assert all(out["players"][p] == {"lives": 0, "swimming": True, "out": False} for p in ("Bo", "Cia", "Dan"))


def test_SW_8_stechen_deciding_game() -> None:
    s = new(("Anna", "Bo"), stake=100, lives=1, simultaneous_out="stechen")
    s = play(s, knock("Anna", losers=["Anna", "Bo"]))
    s = play(s, knock("Anna", losers=["Anna", "Bo"]))
    assert not s.finished and js(s)["winners"] is None
    assert js(s)["players"]["Anna"] == {"lives": 0, "swimming": True, "out": False}
    s = play(s, knock("Anna", losers=["Bo"]))
    assert js(s)["winner"] == "Anna" and js(s)["balances"] == {"Anna": "1.00", "Bo": "-1.00"}


def test_SW_9_stake_into_the_pot() -> None:
    out = js(new(stake=250))
    assert out["pot"] == "7.50" and set(out["balances"].values()) == {"-2.50"}
    out = js(new(stake=0))
    assert out["pot"] == "0.00"


def test_SW_9_pay_per_life_including_going_under() -> None:
    s = new(("Anna", "Bo"), stake=100, lives=1, pay_per_life=True)
    s = play(s, knock("Anna", losers=["Bo"]))
    assert js(s)["pot"] == "3.00" and js(s)["balances"]["Bo"] == "-2.00"
    s = play(s, knock("Anna", losers=["Anna"]))
    s = play(s, knock("Anna", losers=["Bo"]))  # Bo goes under: pays, then Anna takes the pot
    assert js(s)["winner"] == "Anna"
    assert js(s)["balances"] == {"Anna": "3.00", "Bo": "-3.00"} and js(s)["pot"] == "0.00"
    s = play(new(("Anna", "Bo"), stake=100), knock("Anna", losers=["Bo"]))
    assert js(s)["pot"] == "2.00"  # without pay_per_life nothing more


def test_SW_9_close_split_award_carry() -> None:
    names = ("Anna", "Bo", "Cia", "Dan")
    s = new(names, stake=1, lives=1, dealer="Bo")
    s = play(s, knock("Anna", losers=["Anna"]))
    s = play(s, knock("Bo", losers=["Anna"]))  # Anna out, pot 4 units, dealer now Dan
    split = sw.close(s, "split", None)
    # 4 among Bo, Cia, Dan: extra unit to the first left of Dan -> Bo (Anna is out)
    assert js(split)["balances"] == {"Anna": "-0.01", "Bo": "0.01", "Cia": "0.00", "Dan": "0.00"}
    assert split.finished and split.pot == 0
    award = sw.close(s, "award", "Cia")
    assert js(award)["balances"]["Cia"] == "0.03" and award.pot == 0
    carry = sw.close(s, "carry", None)
    assert carry.pot == 4 and carry.carried and carry.finished
    with pytest.raises(BadInput):
        sw.close(s, "award", None)
    with pytest.raises(BadInput):
        sw.close(s, "award", "Eva")
    with pytest.raises(BadInput):
        sw.close(s, "burn", None)
    with pytest.raises(RuleViolation) as info:
        sw.close(split, "split", None)
    assert info.value.rule == "SW-8"
    rejects(carry, knock("Bo", losers=["Bo"]), "SW-8")
    assert sw.close(new(stake=0), "whatever", None).finished


# --- SW-10 entry checks ------------------------------------------------------

@pytest.mark.parametrize(("hands", "why"), [
    ({**HANDS, "Cia": ["6H", "10H", "JD"]}, "not in deck"),
    ({**HANDS, "Cia": ["XR", "10H", "JD"]}, "joker"),
    ({**HANDS, "Cia": ["QH", "10H"]}, "two cards"),
    ({**HANDS, "Cia": ["QH", "10H", "JD", "8D"]}, "four cards"),
    ({**HANDS, "Cia": ["QH", "QH", "JD"]}, "twice in a hand"),
    ({**HANDS, "Cia": ["AC", "10H", "JD"]}, "twice across hands"),
    ({"Anna": HANDS["Anna"], "Bo": HANDS["Bo"]}, "missing player"),
], ids=lambda v: f"SW-10 {v}" if isinstance(v, str) else "")
def test_SW_10_hand_checks(hands: dict[str, list[str]], why: str) -> None:
    rejects(new(), knock("Anna", hands=hands), "SW-10")


def test_SW_10_deck_36_and_52_accept_their_cards() -> None:
    hands = {"Anna": ["6C", "7C", "8C"], "Bo": ["6D", "6H", "6S"], "Cia": ["AH", "9D", "7S"]}
    assert js(play(new(deck=36), knock("Anna", hands=hands)))["losers"] == ["Cia"]
    hands = {**hands, "Cia": ["2H", "3D", "4S"]}
    rejects(new(deck=36), knock("Anna", hands=hands), "SW-10")
    assert js(play(new(deck=52), knock("Anna", hands=hands)))["values"]["Cia"] == 4


@pytest.mark.parametrize(("deck", "value"), [
    (32, 13), (32, 22), (32, 12), (32, 29.5), (32, 7), (32, 33), (32, 0), (36, 12), (52, 2), (52, -3),
], ids=lambda v: f"SW-4 {v}")
def test_SW_4_impossible_values_rejected(deck: int, value: float) -> None:
    rejects(new(deck=deck), knock("Anna", points={"Anna": value, "Bo": 30, "Cia": 30.5}), "SW-4")


@pytest.mark.parametrize(("deck", "value"), [(36, 22), (36, 13), (52, 12), (52, 3)])
def test_SW_4_values_possible_for_other_decks(deck: int, value: int) -> None:
    s = play(new(deck=deck), knock("Anna", points={"Anna": value, "Bo": 30, "Cia": 30.5}))
    assert js(s)["losers"] == ["Anna"]


@pytest.mark.parametrize("payload", [
    {"ended_by": "knock", "by": "Anna"},
    {"ended_by": "31", "by": "Anna"},
    {"ended_by": "knock", "by": "Anna", "losers": ["Bo"], "points": {"Anna": 20}},
    {"ended_by": "knock", "by": "Eva", "losers": ["Bo"]},
    {"ended_by": "knock", "losers": ["Bo"]},
    {"ended_by": "quit", "by": "Anna", "losers": ["Bo"]},
    {"ended_by": "knock", "by": "Anna", "losers": ["Bo"], "extra": 1},
    {"ended_by": "knock", "by": "Anna", "losers": ["Eva"]},
    {"ended_by": "knock", "by": "Anna", "losers": ["Bo", "Bo"]},
    {"ended_by": "knock", "by": "Anna", "losers": "Bo"},
    {"ended_by": "knock", "by": "Anna", "hands": {"Anna": ["ZZ", "KC", "9C"]}},
    {"ended_by": "knock", "by": "Anna", "hands": {"Anna": "AC KC 9C"}},
    {"ended_by": "knock", "by": "Anna", "points": {"Anna": 30.25}},
    {"ended_by": "knock", "by": "Anna", "points": {"Anna": "30"}},
    {"ended_by": "knock", "by": "Anna", "points": {"Anna": True}},
    {"ended_by": "knock", "by": "Anna", "points": {"Anna": float("nan")}},
    {"ended_by": "knock", "by": "Anna", "points": {"Anna": 10**9}},
    {"ended_by": "knock", "by": "Anna", "points": ["Anna", 30]},
    {"ended_by": 31, "by": "Anna", "losers": ["Bo"]},
])
def test_SW_10_malformed_payloads_are_bad_input(payload: dict[str, Any]) -> None:
    with pytest.raises(BadInput):
        sw.parse_round(new(), payload, M)


@pytest.mark.parametrize("payload", [
    knock("Anna", hands=HANDS),
    knock("Cia", points={"Anna": 30, "Bo": 30.5, "Cia": 20}),
    {"ended_by": "31", "by": "Bo", "losers": ["Anna", "Cia"]},
    {"ended_by": "feuer", "by": "Anna"},
    {"ended_by": "feuer", "by": "Anna", "losers": ["Bo", "Cia"]},
])
def test_SW_10_round_json_roundtrip(payload: dict[str, Any]) -> None:
    s = new()
    rnd = sw.parse_round(s, payload, M)
    again = sw.parse_round(s, sw.round_json(rnd, M), M)
    assert again == rnd
    assert load(sw.Round, dump(rnd)) == rnd
    if "points" in payload:
        assert sw.round_json(rnd, M)["points"] == payload["points"]


def test_SW_10_cards_lower_case_and_names_in_seat_order() -> None:
    s = new()
    rnd = sw.parse_round(s, knock("Anna", hands={"Cia": ["qh", "10h", "jd"], "Anna": HANDS["Anna"],
                                                 "Bo": HANDS["Bo"]}), M)
    assert sw.round_json(rnd, M)["hands"] == {"Anna": ["AC", "KC", "9C"], "Bo": ["7D", "7H", "7S"],
                                             "Cia": ["QH", "10H", "JD"]}


# --- API shape ---------------------------------------------------------------

def test_conformance_shape() -> None:
    s = new(P3, stake=100)
    out = js(s)
    assert out["values"] is None and out["losers"] == [] and out["winner"] is None and out["game_no"] == 0
    s = play(s, {"ended_by": "knock", "by": "Cia", "losers": ["Anna"]})
    out = js(s)
    assert out["players"]["Anna"] == {"lives": 2, "swimming": False, "out": False}
    assert out["dealer"] == "Bo" and out["finished"] is False and out["pot"] == "3.00"
    assert out["values"] == {"Anna": None, "Bo": None, "Cia": None} and out["game_no"] == 1
    assert load(sw.State, dump(s)) == s


# --- Hypothesis: random matches ----------------------------------------------

OPTIONS = st.fixed_dictionaries({
    "deck": st.sampled_from([32, 36, 52]), "feuer": st.booleans(),
    "ties": st.sampled_from(["all_lose", "higher_hand"]), "losers": st.sampled_from(["lowest", "twenty_or_less"]),
    "lives": st.integers(1, 3), "simultaneous_out": st.sampled_from(["all_survive", "stechen"]),
    "pay_per_life": st.booleans(),
})


class Model:
    """A plain reference of SW-7, SW-8, SW-9 and the deal, fed with each game's losers."""

    def __init__(self, names: tuple[str, ...], dealer: str, stake: int, opts: dict[str, Any]) -> None:
        self.names, self.stake, self.opts = names, stake, opts
        self.lives = dict.fromkeys(names, opts["lives"])
        self.swimming = dict.fromkeys(names, False)
        self.out = dict.fromkeys(names, False)
        self.paid = dict.fromkeys(names, stake)
        self.dealer = dealer
        self.winner: str | None = None
        self.winners: list[str] | None = None

    def playing(self) -> list[str]:
        return [p for p in self.names if not self.out[p]]

    def game(self, losers: set[str]) -> None:
        playing = self.playing()
        under = []
        for p in losers:
            if self.opts["pay_per_life"]:
                self.paid[p] += self.stake
            if self.lives[p]:
                self.lives[p] -= 1
                self.swimming[p] = self.lives[p] == 0
            else:
                self.out[p], self.swimming[p] = True, False
                under.append(p)
        left = [p for p in playing if not self.out[p]]
        if not left:
            for p in under:
                self.out[p], self.swimming[p] = False, True
            if self.opts["simultaneous_out"] == "all_survive":
                self.winners = sorted(under, key=self.names.index)
        elif len(left) == 1:
            self.winner = left[0]
        step = -1 if self.opts["deck"] == 36 else 1
        k = self.names.index(self.dealer)
        for _ in self.names:
            k = (k + step) % len(self.names)
            if not self.out[self.names[k]]:
                self.dealer = self.names[k]
                break

    def check(self, s: sw.State) -> None:
        out = sw.state_json(s, M)
        assert sum(s.balances) + s.pot == 0
        for p in self.names:
            assert out["players"][p] == {"lives": self.lives[p], "swimming": self.swimming[p], "out": self.out[p]}
        assert out["dealer"] == self.dealer
        assert out["winner"] == self.winner and out["winners"] == self.winners
        assert s.finished == (self.winner is not None or self.winners is not None)
        total = sum(self.paid.values())
        got = {p: s.balances[i] for i, p in enumerate(self.names)}
        if self.winner is not None:
            assert s.pot == 0
            assert got == {p: (total if p == self.winner else 0) - self.paid[p] for p in self.names}
        elif self.winners is not None:
            assert s.pot == 0
            shares = {p: got[p] + self.paid[p] for p in self.names}
            assert sum(shares.values()) == total
            assert all(shares[p] == 0 for p in self.names if p not in self.winners)
            assert max(shares[p] for p in self.winners) - min(shares[p] for p in self.winners) <= 1
        else:
            assert s.pot == total and got == {p: -self.paid[p] for p in self.names}


@given(st.data(), OPTIONS, st.integers(2, 6), st.integers(0, 7))
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_SW_property_random_matches(data: st.DataObject, opts: dict[str, Any], n: int, stake: int) -> None:
    names = tuple(f"P{i}" for i in range(n))
    dealer = data.draw(st.sampled_from(names))
    s = new(names, stake=stake, dealer=dealer, **opts)
    model = Model(names, dealer, stake, opts)
    model.check(s)
    for _ in range(data.draw(st.integers(1, 12))):
        if s.finished:
            with pytest.raises(RuleViolation) as info:
                play(s, knock(names[0], losers=[]))
            assert info.value.rule == "SW-8"
            break
        playing = [p for i, p in enumerate(names) if not s.out[i]]
        deal = ref_deck(opts["deck"])
        random.Random(data.draw(st.integers(0, 2**32))).shuffle(deal)
        rig = data.draw(st.sampled_from([(), (), ("AC", "AD", "AH"), ("AS", "KS", "QS")]))
        deal = [*rig, *(c for c in deal if c not in rig)]
        hands = {p: deal[3 * k: 3 * k + 3] for k, p in enumerate(playing)}
        rated = {p: ref_hand(h, opts["feuer"]) for p, h in hands.items()}
        feuer = [p for p in playing if rated[p][1] == "feuer"]
        thirty_one = [p for p in playing if rated[p][0] == 31]
        if feuer:
            ended_by, by = "feuer", feuer[0]
        elif thirty_one and data.draw(st.booleans()):
            ended_by, by = "31", thirty_one[0]
        else:
            ended_by, by = "knock", data.draw(st.sampled_from(playing))
        kind = data.draw(st.sampled_from(["hands", "points", "losers", "bad"]))
        payload: dict[str, Any] = {"ended_by": ended_by, "by": by}
        if kind == "losers":
            payload["losers"] = data.draw(st.one_of(st.just(list(playing)),
                                                    st.lists(st.sampled_from(playing), unique=True)))
        elif kind == "points":
            payload["points"] = {p: rated[p][0] for p in playing}
        else:
            payload["hands"] = {p: list(h) for p, h in hands.items()}
        if kind == "bad":
            how = data.draw(st.sampled_from(["drop", "dup", "claim"]))
            if how == "drop":
                del payload["hands"][playing[-1]]
            elif how == "dup":
                payload["hands"][playing[0]][0] = payload["hands"][playing[-1]][1] if n > 1 else "XR"
            else:
                payload["ended_by"] = "31" if rated[by][0] != 31 else "feuer"
        before = dump(s)
        rnd = sw.parse_round(s, payload, M)
        assert sw.parse_round(s, sw.round_json(rnd, M), M) == rnd
        try:
            nxt = sw.apply(s, rnd)
        except RuleViolation as exc:
            event(f"rejected {kind} {exc.rule}")
            assert dump(s) == before
            assert sw.check(s, rnd) is not None
            if kind == "bad":
                assert exc.rule in ("SW-10", "SW-5")
            elif kind == "points":
                assert exc.rule == "SW-6" and opts["ties"] == "higher_hand"
                assert len(set(payload["points"].values())) < len(playing)
            else:
                assert kind == "losers" and exc.rule in ("SW-5", "SW-6")
            continue
        assert kind != "bad"
        assert sw.check(s, rnd) is None
        if ended_by == "feuer":
            expected = set(playing) - {by}
        elif kind == "losers":
            expected = set(payload["losers"])
        else:
            expected = ref_losers(rated, opts["ties"], opts["losers"])
        got = set(sw.state_json(nxt, M)["losers"])
        assert got == expected
        event(f"game {kind} {ended_by}")
        model.game(expected)
        s = nxt
        model.check(s)
    event("winner" if s.winner is not None else "winners" if s.winners else "open")
    assert load(sw.State, dump(s)) == s
