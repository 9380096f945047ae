"""Svängknack engine: every ledger rule of rules/svangknack.md (SK-1 .. SK-14).

SK-15 (how the tricks are played: following suit, forced overtaking, trumf i
andra, "Färg") is table-only: the app records tricks, not cards, so there is
nothing to test here. Amounts are minor units: 300 = 3.00.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.engine import BadInput, RuleViolation
from referee.engine import svangknack as sk
from referee.engine.cards import Card, parse_card
from referee.engine.money import Money
from referee.engine.records import dump, load, parse_options

M = Money(2)
P3 = ("Anna", "Bo", "Cia")
P4 = ("Anna", "Bo", "Cia", "Dan")


def new(players: tuple[str, ...] = P4, dealer: str = "Anna", stake: int = 300, **opts: str) -> sk.State:
    return sk.start(players, dealer, stake, parse_options(sk.Options, opts))


def play(state: sk.State, payload: dict[str, Any]) -> sk.State:
    rnd = sk.parse_round(state, payload, M)
    assert sk.parse_round(state, sk.round_json(rnd, M), M) == rnd
    nxt = sk.apply(state, rnd)
    assert load(sk.State, dump(nxt)) == nxt
    assert sum(nxt.balances) + nxt.pot == nxt.carried_in
    return nxt


def rejects(state: sk.State, payload: dict[str, Any], rule: str) -> RuleViolation:
    rnd = sk.parse_round(state, payload, M)
    before = dump(state)
    with pytest.raises(RuleViolation) as info:
        sk.apply(state, rnd)
    assert info.value.rule == rule, info.value.message
    assert f"({rule})" in info.value.message
    found = sk.check(state, rnd)
    assert found is not None and found.rule == rule
    assert dump(state) == before
    return info.value


def bal(state: sk.State) -> dict[str, int]:
    return dict(zip(state.players, state.balances, strict=True))


# --- SK-1 players -------------------------------------------------------------

@pytest.mark.parametrize("n", [0, 1, 2, 17, 20], ids=lambda n: f"SK-1 {n} players rejected")
def test_SK_1_player_count_rejected(n: int) -> None:
    players = tuple(f"P{i}" for i in range(n))
    with pytest.raises(RuleViolation) as info:
        sk.start(players, players[0] if players else "X", 300, sk.Options())
    assert info.value.rule == "SK-1"


@pytest.mark.parametrize("n", [3, 16], ids=lambda n: f"SK-1 {n} players accepted")
def test_SK_1_player_count_accepted(n: int) -> None:
    players = tuple(f"P{i}" for i in range(n))
    st_ = sk.start(players, "P0", 300, sk.Options())
    assert st_.pot == 300 * n and len(st_.balances) == n


# --- SK-2 stake ---------------------------------------------------------------

@pytest.mark.parametrize("stake", [0, -300, 100, 301, 1], ids=lambda s: f"SK-2 stake {s} rejected")
def test_SK_2_stake_rejected(stake: int) -> None:
    with pytest.raises(RuleViolation) as info:
        new(stake=stake)
    assert info.value.rule == "SK-2"


def test_SK_2_carried_pot_must_split_in_three() -> None:
    with pytest.raises(RuleViolation) as info:
        sk.start(P3, "Anna", 300, sk.Options(), carried_in=100)
    assert info.value.rule == "SK-2"
    with pytest.raises(BadInput):
        sk.start(P3, "Anna", 300, sk.Options(), carried_in=-300)


def test_SK_2_stake_of_three_minor_units_is_fine() -> None:
    assert new(stake=3).pot == 12


# --- SK-3 first dealer --------------------------------------------------------

def _brute_first(draws: dict[str, str]) -> str:
    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    suits = "CDHS"  # clubs lowest, spades highest
    return max(draws, key=lambda n: (ranks.index(draws[n][:-1]), suits.index(draws[n][-1])))


@pytest.mark.parametrize(("draws", "dealer"), [
    ({"Anna": "2C", "Bo": "2D"}, "Bo"),
    ({"Anna": "QH", "Bo": "QS"}, "Bo"),
    ({"Anna": "AC", "Bo": "KS", "Cia": "10H"}, "Anna"),
    ({"Anna": "10C", "Bo": "9S"}, "Anna"),
    ({"Anna": "JD", "Bo": "jh", "Cia": "JC"}, "Bo"),
], ids=["SK-3 conformance 2C<2D", "SK-3 spades over hearts", "SK-3 rank before suit",
        "SK-3 ten over nine", "SK-3 lower case"])
def test_SK_3_first_dealer(draws: dict[str, str], dealer: str) -> None:
    parsed = sk.parse_draws({"draws": draws})
    assert sk.first_dealer(parsed) == dealer


ALL_CARDS = [r + s for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A") for s in "SHDC"]


@given(st.lists(st.sampled_from(ALL_CARDS),
                min_size=2, max_size=16, unique=True))
@settings(max_examples=150)
def test_SK_3_first_dealer_matches_brute_force(cards: list[str]) -> None:
    draws = {f"P{i}": c for i, c in enumerate(cards)}
    assert sk.first_dealer(sk.parse_draws({"draws": draws})) == _brute_first(draws)


@pytest.mark.parametrize("draws", [
    {"Anna": Card("Q", "H"), "Bo": Card("Q", "H")},
    {"Anna": parse_card("XR"), "Bo": Card("2", "C")},
    {"Anna": Card("A", "S")},
    {},
], ids=["SK-3 same card twice", "SK-3 joker", "SK-3 one draw", "SK-3 no draws"])
def test_SK_3_bad_draws(draws: dict[str, Card]) -> None:
    with pytest.raises(RuleViolation) as info:
        sk.first_dealer(draws)
    assert info.value.rule == "SK-3"


@pytest.mark.parametrize("data", [
    [], {"draws": []}, {"draws": {"Anna": "1H"}}, {"draws": {"Anna": 5}}, {}, {"draws": {}, "x": 1},
    {"draws": {"": "2C"}},
], ids=lambda d: f"SK-3 bad shape {d!r}")
def test_SK_3_parse_draws_bad_shape(data: Any) -> None:
    with pytest.raises(BadInput):
        sk.parse_draws(data)


# --- SK-4 rotation, SK-5 first pot ---------------------------------------------

def test_SK_4_rotation_and_default_svangare() -> None:
    s = new()
    assert sk.state_json(s, M)["svangare"] == "Bo"
    seen = []
    for _ in range(5):
        sv = s.players[(s.dealer + 1) % 4]
        s = play(s, {"participants": [sv]})
        assert s.last is not None and s.players[s.last.svangare] == sv
        seen.append(s.players[s.dealer])
    assert seen == ["Bo", "Cia", "Dan", "Anna", "Bo"]


def test_SK_4_deal_moves_one_seat_also_when_passed() -> None:
    s = play(new(), {"svangare": "Cia", "participants": ["Cia"]})
    assert s.players[s.dealer] == "Bo"
    assert s.last is not None and s.last.passed
    assert sk.state_json(s, M)["svangare"] == "Cia"


def test_SK_5_first_pot_all() -> None:
    s = new(P3, stake=300)
    assert s.pot == 900 and s.balances == (-300, -300, -300)
    assert s.fresh_pot


def test_SK_5_first_pot_dealer_only() -> None:
    s = new(P4, dealer="Cia", stake=300, first_pot="dealer_only")
    assert s.pot == 300 and bal(s) == {"Anna": 0, "Bo": 0, "Cia": -300, "Dan": 0}
    # the next fresh pot is paid by everyone again (SK-6)
    s = play(s, {"participants": ["Dan"]})
    assert s.pot == 1200 and bal(s) == {"Anna": -300, "Bo": -300, "Cia": -600, "Dan": 0}


# --- SK-6 .. SK-9 the money of a round ------------------------------------------

def test_SK_6_worked_example_bet_then_fresh_pot() -> None:
    # Hand-computed: 4 players, stake 3.00, pot 12.00, trick value 4.00.
    s = new()
    s = play(s, {"participants": ["Bo", "Cia", "Dan"], "tricks": {"Bo": 2, "Cia": 1, "Dan": 0}})
    # Bo +8.00, Cia +4.00, Dan bet -12.00; new dealer Bo pays 3.00; pot 12.00 + 3.00
    assert bal(s) == {"Anna": -300, "Bo": 200, "Cia": 100, "Dan": -1500}
    assert s.pot == 1500 and not s.fresh_pot and s.stake == 300
    assert s.last is not None and s.last.trick_value == 400 and s.last.bets == (0, 0, 0, 1200)
    # Dealer Bo; Cia passes the sväng to Dan, who plays alone (SK-7, SK-11)
    s = play(s, {"svangare": "Dan", "participants": ["Dan"]})
    # Dan takes 15.00; nobody bet: fresh pot, everyone pays 3.00
    assert bal(s) == {"Anna": -600, "Bo": -100, "Cia": -200, "Dan": -300}
    assert s.pot == 1200 and s.fresh_pot
    assert s.players[s.dealer] == "Cia"


def test_SK_6_new_pot_is_bets_plus_new_dealers_stake() -> None:
    s = new(P4, stake=600)  # pot 24.00
    s = play(s, {"participants": ["Bo", "Cia", "Dan"], "tricks": {"Bo": 3}})
    # Cia and Dan both bet 24.00; Bo (new dealer) takes 24.00 and pays 6.00
    assert s.pot == 2400 + 2400 + 600
    assert bal(s) == {"Anna": -600, "Bo": -600 + 2400 - 600, "Cia": -600 - 2400, "Dan": -600 - 2400}


def test_SK_7_svangare_alone_conformance() -> None:
    s = new(P3)
    assert s.pot == 900
    s = play(s, {"participants": ["Bo"]})
    j = sk.state_json(s, M)
    assert j["dealer"] == "Bo" and j["balances"]["Bo"] == "3.00" and j["pot"] == "9.00"
    assert j["balances"] == {"Anna": "-6.00", "Bo": "3.00", "Cia": "-6.00"}


def test_SK_7_alone_with_all_three_tricks_is_the_same() -> None:
    a = play(new(), {"participants": ["Bo"]})
    b = play(new(), {"participants": ["Bo"], "tricks": {"Bo": 3}})
    assert a.balances == b.balances and a.pot == b.pot


@pytest.mark.parametrize("tricks", [{"Bo": 2}, {"Bo": 0}, {"Bo": 3, "Cia": 0}],
                         ids=["SK-7 alone two tricks", "SK-7 alone zero", "SK-7 alone with others"])
def test_SK_7_alone_other_tricks_rejected(tricks: dict[str, int]) -> None:
    rejects(new(), {"participants": ["Bo"], "tricks": tricks}, "SK-7")


def test_SK_8_conformance_sum_message() -> None:
    err = rejects(new(P3), {"participants": ["Bo", "Cia"], "tricks": {"Bo": 1, "Cia": 1}}, "SK-8")
    assert "add up to 3" in err.message and "2" in err.message


def test_SK_8_sum_four_message() -> None:
    err = rejects(new(), {"participants": ["Bo", "Cia"], "tricks": {"Bo": 2, "Cia": 2}}, "SK-8")
    assert err.message == "Tricks must add up to 3; you entered 4 (SK-8)."


@pytest.mark.parametrize("payload", [
    {"participants": ["Bo", "Cia"], "tricks": {"Bo": 4, "Cia": -1}},
    {"participants": ["Bo", "Cia"], "tricks": {"Bo": 2, "Cia": 0, "Dan": 1}},
    {"participants": ["Bo", "Cia"], "tricks": {"Bo": 3, "Dan": 0}},
    {"participants": ["Bo", "Cia"]},
    {"participants": ["Cia", "Dan"], "tricks": {"Cia": 2, "Dan": 1}},
    {"participants": []},
], ids=["SK-8 out of range", "SK-8 non-participant holds a trick", "SK-8 non-participant listed",
        "SK-8 tricks missing", "SK-8 svangare not playing", "SK-8 nobody playing"])
def test_SK_8_rejections(payload: dict[str, Any]) -> None:
    rejects(new(), payload, "SK-8")


def test_SK_8_one_trick_each() -> None:
    s = new(P3, stake=900)  # pot 27.00, trick 9.00
    s = play(s, {"participants": ["Anna", "Bo", "Cia"], "tricks": {"Anna": 1, "Bo": 1, "Cia": 1}})
    assert s.balances == (-900 + 900 - 900,) * 3 and s.pot == 2700 and s.fresh_pot


def test_SK_9_participant_left_out_of_tricks_is_bet() -> None:
    s = play(new(), {"participants": ["Bo", "Dan"], "tricks": {"Bo": 3}})
    assert s.last is not None and s.last.bets == (0, 0, 0, 1200)
    assert bal(s)["Dan"] == -300 - 1200 and bal(s)["Cia"] == -300


def test_SK_9_bet_pays_the_pot_just_played_for() -> None:
    s = play(new(), {"participants": ["Bo", "Cia"], "tricks": {"Bo": 0, "Cia": 3}})  # pot 15.00
    assert s.pot == 1500
    s = play(s, {"participants": ["Cia", "Dan", "Anna"], "tricks": {"Cia": 1, "Dan": 2, "Anna": 0}})
    # pot 15.00, trick 5.00: Anna bet 15.00; new dealer Cia pays 3.00
    assert s.pot == 1500 + 300
    assert bal(s)["Anna"] == -300 - 1500 and bal(s)["Dan"] == -300 + 1000


# --- SK-10 knocking / forced participation --------------------------------------

def test_SK_10_participants_needed_without_forcing() -> None:
    rejects(new(), {"tricks": {"Bo": 3}}, "SK-10")


def test_SK_10_non_knocker_is_untouched() -> None:
    s = play(new(), {"participants": ["Bo", "Cia"], "tricks": {"Bo": 1, "Cia": 2}})
    assert bal(s)["Dan"] == -300 - 300 and bal(s)["Anna"] == -600  # only the fresh-pot stakes


def test_SK_10_forced_always() -> None:
    s = new(forced_participation="always")
    rejects(s, {"participants": ["Bo"]}, "SK-10")
    s = play(s, {"tricks": {"Bo": 1, "Cia": 1, "Dan": 1}})  # omitted participants = everyone
    assert s.last is not None and s.last.participants == (True,) * 4 and s.last.forced
    assert s.last.bets == (1200, 0, 0, 0)
    assert sk.state_json(s, M)["forced"] is True
    rejects(s, {"participants": ["Cia", "Dan", "Anna"], "tricks": {"Cia": 3}}, "SK-10")


def test_SK_10_forced_fresh_pot_only_first_round_of_fresh_pot() -> None:
    s = new(forced_participation="fresh_pot")
    assert sk.state_json(s, M)["forced"] is True
    rejects(s, {"participants": ["Bo", "Cia"], "tricks": {"Bo": 3}}, "SK-10")
    s = play(s, {"tricks": {"Bo": 3}})  # everyone in; Anna, Cia, Dan bet
    assert not s.fresh_pot and sk.state_json(s, M)["forced"] is False
    s = play(s, {"participants": ["Cia"]})  # pot kept: free to knock; Cia alone
    assert s.fresh_pot and sk.state_json(s, M)["forced"] is True
    rejects(s, {"participants": ["Dan"]}, "SK-10")


def test_SK_10_may_change_stake_flag() -> None:
    assert sk.state_json(new(forced_participation="always"), M)["may_change_stake"] is False
    assert sk.state_json(new(P3, forced_participation="always"), M)["may_change_stake"] is True
    assert sk.state_json(new(), M)["may_change_stake"] is True


# --- SK-11 passing, SK-12 redeal ------------------------------------------------

@pytest.mark.parametrize("who", ["Anna", "Dan"], ids=["SK-11 dealer cannot svänga", "SK-11 three seats on"])
def test_SK_11_svangare_must_be_left_or_next(who: str) -> None:
    rejects(new(), {"svangare": who, "participants": [who]}, "SK-11")


def test_SK_11_passed_svangare_no_redeal() -> None:
    rejects(new(), {"svangare": "Cia", "participants": ["Cia"], "redeal": True}, "SK-11")


def test_SK_11_passer_may_still_knock() -> None:
    s = play(new(), {"svangare": "Cia", "participants": ["Bo", "Cia"], "tricks": {"Bo": 1, "Cia": 2}})
    assert s.last is not None and s.last.passed and s.players[s.last.svangare] == "Cia"


def test_SK_11_three_players_pass_wraps() -> None:
    s = new(P3, dealer="Bo")
    s = play(s, {"svangare": "Anna", "participants": ["Anna"]})
    assert bal(s)["Anna"] == -300 + 900 - 300 and s.players[s.dealer] == "Cia"


def test_SK_12_redeal_is_recorded_without_money() -> None:
    payload = {"participants": ["Bo", "Cia"], "tricks": {"Bo": 1, "Cia": 2}}
    a = play(new(), payload)
    b = play(new(), {**payload, "redeal": True})
    assert a.balances == b.balances and a.pot == b.pot
    assert b.last is not None and b.last.redeal and sk.state_json(b, M)["last"]["redeal"] is True


# --- SK-13 changing the stake ---------------------------------------------------

def test_SK_13_new_stake_for_fresh_pot() -> None:
    s = play(new(), {"participants": ["Bo"], "new_stake": "6.00"})
    assert s.stake == 600 and s.pot == 2400
    assert bal(s) == {"Anna": -900, "Bo": -300 + 1200 - 600, "Cia": -900, "Dan": -900}
    # later rounds use it: Dan bets 24.00, new dealer Cia pays 6.00
    s = play(s, {"participants": ["Cia", "Dan"], "tricks": {"Cia": 3}})
    assert s.pot == 2400 + 600
    assert s.last is not None and s.last.stake_before == s.last.stake_after == 600


def test_SK_13_no_change_while_pot_stays() -> None:
    rejects(new(), {"participants": ["Bo", "Cia"], "tricks": {"Bo": 3}, "new_stake": "6.00"}, "SK-13")


@pytest.mark.parametrize("value", ["5.00", "0", "-3.00", "0.01"], ids=lambda v: f"SK-13 stake {v}")
def test_SK_13_new_stake_must_satisfy_SK_2(value: str) -> None:
    rejects(new(), {"participants": ["Bo"], "new_stake": value}, "SK-13")


# --- SK-14 closing ----------------------------------------------------------------

def test_SK_14_split_remainder_from_next_svangare() -> None:
    # 4 players, stake 0.03: pot 0.12; Bo alone -> fresh pot 0.12; close -> 0.03 each
    s = new(stake=3)
    s = play(s, {"participants": ["Bo", "Cia"], "tricks": {"Bo": 3}})  # Cia bets 0.12; pot 0.12 + 0.03
    assert s.pot == 15 and s.players[s.dealer] == "Bo"
    before = bal(s)
    c = sk.close(s, "split", None)
    # 15 / 4 = 3 rest 3: one unit each to Cia (next svängare), Dan, Anna
    gains = {p: bal(c)[p] - before[p] for p in P4}
    assert gains == {"Anna": 4, "Bo": 3, "Cia": 4, "Dan": 4}
    assert c.pot == 0 and c.finished and sum(c.balances) == 0


def test_SK_14_award_and_carry() -> None:
    s = new()
    a = sk.close(s, "award", "Cia")
    assert bal(a)["Cia"] == 900 and a.pot == 0 and a.finished
    c = sk.close(s, "carry", None)
    assert c.finished and c.pot == 1200 and c.carried_out == 1200 and c.balances == s.balances
    assert sk.state_json(c, M)["carried"] == "12.00"
    nxt = sk.start(P3, "Bo", 300, sk.Options(), carried_in=c.carried_out)
    assert nxt.pot == 900 + 1200 and sum(nxt.balances) == -900
    assert load(sk.State, dump(nxt)) == nxt
    nxt = play(nxt, {"participants": ["Cia"]})
    assert bal(nxt)["Cia"] == -300 + 2100 - 300


def test_SK_14_no_rounds_or_second_close_after_close() -> None:
    s = sk.close(new(), "split", None)
    rejects(s, {"participants": ["Bo"]}, "SK-14")
    with pytest.raises(RuleViolation) as info:
        sk.close(s, "split", None)
    assert info.value.rule == "SK-14"


@pytest.mark.parametrize(("how", "to"), [("share", None), ("award", None), ("award", "Zed")],
                         ids=["SK-14 unknown how", "SK-14 award without to", "SK-14 award to stranger"])
def test_SK_14_bad_close(how: str, to: str | None) -> None:
    with pytest.raises(BadInput):
        sk.close(new(), how, to)


# --- payload shape, JSON, options ---------------------------------------------

@pytest.mark.parametrize("payload", [
    {"participants": ["Bo"], "extra": 1},
    {"participants": "Bo"},
    {"participants": ["Bo", "Bo"]},
    {"participants": ["Zed"]},
    {"participants": ["Bo", "Cia"], "tricks": {"Bo": "2", "Cia": 1}},
    {"participants": ["Bo", "Cia"], "tricks": {"Bo": 2.0, "Cia": 1}},
    {"participants": ["Bo", "Cia"], "tricks": {"Bo": True, "Cia": 2}},
    {"participants": ["Bo", "Cia"], "tricks": [2, 1]},
    {"participants": ["Bo"], "tricks": {"Zed": 3}},
    {"participants": ["Bo"], "redeal": "yes"},
    {"participants": ["Bo"], "new_stake": 6.0},
    {"participants": ["Bo"], "new_stake": "six"},
    {"svangare": 2, "participants": ["Bo"]},
    [],
], ids=lambda p: f"shape {p!r}")
def test_bad_shape_is_bad_input(payload: Any) -> None:
    with pytest.raises(BadInput):
        sk.parse_round(new(), payload, M)


def test_round_json_roundtrip_and_canonical_order() -> None:
    s = new()
    rnd = sk.parse_round(s, {"svangare": "Cia", "participants": ["Dan", "Cia"], "tricks": {"Dan": 1, "Cia": 2},
                             "new_stake": "6,00"}, M)
    assert rnd.participants == ("Cia", "Dan") and rnd.new_stake == 600
    j = sk.round_json(rnd, M)
    assert j == {"svangare": "Cia", "participants": ["Cia", "Dan"], "tricks": {"Cia": 2, "Dan": 1},
                 "redeal": False, "new_stake": "6.00"}
    assert sk.parse_round(s, j, M) == rnd


def test_state_json_shape() -> None:
    s = play(new(), {"participants": ["Bo", "Cia", "Dan"], "tricks": {"Bo": 2, "Cia": 1}})
    j = sk.state_json(s, M)
    assert j["dealer"] == "Bo" and j["svangare"] == "Cia" and j["passed_svangare"] == "Dan"
    assert j["pot"] == "15.00" and j["trick_value"] == "5.00" and j["stake"] == "3.00"
    assert j["fresh_pot"] is False and j["finished"] is False and j["round_no"] == 1
    assert j["balances"] == {"Anna": "-3.00", "Bo": "2.00", "Cia": "1.00", "Dan": "-15.00"}
    last = j["last"]
    assert last["dealer"] == "Anna" and last["svangare"] == "Bo" and last["knocked"] == ["Cia", "Dan"]
    assert last["bet"] == {"Dan": "12.00"} and last["pot_before"] == "12.00" and last["pot_after"] == "15.00"
    assert last["net"] == {"Anna": "0.00", "Bo": "5.00", "Cia": "4.00", "Dan": "-12.00"}


@pytest.mark.parametrize("opts", [{"first_pot": "none"}, {"forced_participation": "sometimes"}, {"x": 1},
                                  {"first_pot": 1}], ids=lambda o: f"options {o!r}")
def test_bad_options(opts: dict[str, Any]) -> None:
    with pytest.raises(BadInput):
        parse_options(sk.Options, opts)


def test_unknown_dealer_is_bad_input() -> None:
    with pytest.raises(BadInput):
        sk.start(P3, "Zed", 300, sk.Options())


# --- property test: random sequences against a small independent model ----------

class Model:
    """A separate, deliberately plain re-computation of the ledger."""

    def __init__(self, players: tuple[str, ...], dealer: int, stake: int, first_pot: str, forcing: str,
                 carried: int) -> None:
        self.players = players
        self.n = len(players)
        self.money = dict.fromkeys(players, 0)
        self.stake = stake
        self.forcing = forcing
        if first_pot == "all":
            for p in players:
                self.money[p] -= stake
            self.pot = stake * self.n + carried
        else:
            self.money[players[dealer]] -= stake
            self.pot = stake + carried
        self.dealer = dealer
        self.fresh = True
        self.finished = False

    def seat(self, k: int) -> str:
        return self.players[(self.dealer + k) % self.n]

    def forced(self) -> bool:
        return self.forcing == "always" or (self.forcing == "fresh_pot" and self.fresh)

    def violations(self, sv: str | None, parts: list[str] | None, tricks: dict[str, int] | None,
                   redeal: bool, new_stake: int | None) -> set[str]:
        bad: set[str] = set()
        if self.finished:
            bad.add("SK-14")
        svangare = sv or self.seat(1)
        if svangare not in (self.seat(1), self.seat(2)):
            bad.add("SK-11")
        if svangare == self.seat(2) and redeal:
            bad.add("SK-11")
        if parts is None:
            if not self.forced():
                bad.add("SK-10")
            parts = list(self.players)
        elif self.forced() and set(parts) != set(self.players):
            bad.add("SK-10")
        if svangare not in parts:
            bad.add("SK-8")
        anyone_bet = False
        if parts == [svangare]:
            if tricks and tricks != {svangare: 3}:
                bad.add("SK-7")
        else:
            if not tricks:
                bad.add("SK-8")
            else:
                if any(p not in parts or not 0 <= t <= 3 for p, t in tricks.items()):
                    bad.add("SK-8")
                if sum(tricks.values()) != 3:
                    bad.add("SK-8")
                anyone_bet = any(tricks.get(p, 0) == 0 for p in parts)
        if new_stake is not None and (anyone_bet or new_stake <= 0 or new_stake % 3 != 0):
            bad.add("SK-13")
        return bad

    def play(self, sv: str | None, parts: list[str] | None, tricks: dict[str, int] | None,
             new_stake: int | None) -> None:
        svangare = sv or self.seat(1)
        if parts is None:
            parts = list(self.players)
        if parts == [svangare]:
            tricks = {svangare: 3}
        assert tricks is not None
        third = Fraction(self.pot, 3)
        assert third.denominator == 1
        losers = []
        for p in parts:
            got = tricks.get(p, 0)
            if got:
                self.money[p] += int(third * got)
            else:
                self.money[p] -= self.pot
                losers.append(p)
        self.dealer = (self.dealer + 1) % self.n
        if new_stake is not None:
            self.stake = new_stake
        if losers:
            self.pot = self.pot * len(losers) + self.stake
            self.money[self.players[self.dealer]] -= self.stake
            self.fresh = False
        else:
            self.pot = 0
            for p in self.players:
                self.money[p] -= self.stake
                self.pot += self.stake
            self.fresh = True

    def close(self, how: str, to: str | None) -> None:
        if how == "split":
            each, rest = divmod(self.pot, self.n)
            for p in self.players:
                self.money[p] += each
            k = 1
            while rest:
                self.money[self.seat(k)] += 1
                rest -= 1
                k += 1
            self.pot = 0
        elif how == "award":
            assert to is not None
            self.money[to] += self.pot
            self.pot = 0
        self.finished = True


def round_payload(rng: random.Random, players: tuple[str, ...], left: str, nxt: str) -> dict[str, Any]:
    """A random round payload: mostly valid, often not (svängare, participants, tricks, stake)."""
    payload: dict[str, Any] = {}
    sv = rng.choice([None, left, nxt, nxt, rng.choice(players)])
    if sv is not None:
        payload["svangare"] = sv
    real_sv = sv or left
    mode = rng.choice(["alone", "some", "some", "some", "all", "omit", "random"])
    parts: list[str] | None
    if mode == "alone":
        parts = [real_sv]
    elif mode == "all":
        parts = list(players)
    elif mode == "omit":
        parts = None
    elif mode == "some":
        others = [p for p in players if p != real_sv]
        parts = [real_sv, *rng.sample(others, rng.randint(1, len(others)))]
    else:
        parts = rng.sample(players, rng.randint(0, len(players)))
    if parts is not None:
        payload["participants"] = rng.sample(parts, len(parts))
    who = list(players) if parts is None else parts
    tmode = rng.choice(["valid", "valid", "valid", "none", "random"])
    if tmode == "valid" and who:
        holders = [rng.choice(who) for _ in range(3)]
        tricks = {p: holders.count(p) for p in who if rng.random() < 0.5 or holders.count(p)}
        if mode != "alone" or rng.random() < 0.5:
            payload["tricks"] = tricks
    elif tmode == "random":
        payload["tricks"] = {rng.choice(players): rng.randint(-1, 4) for _ in range(rng.randint(0, 4))}
    if rng.random() < 0.15:
        payload["redeal"] = True
    if rng.random() < 0.2:
        payload["new_stake"] = rng.choice(["6.00", "0.03", "4.50", "5.00", "0", "-3.00", "3.00"])
    return payload


@given(st.data())
@settings(max_examples=200, deadline=None)
def test_property_random_sequences_match_model(data: st.DataObject) -> None:
    n = data.draw(st.integers(3, 6), label="n")
    players = ("Anna", "Bo", "Cia", "Dan", "Eva", "Fia")[:n]
    stake = 3 * data.draw(st.integers(1, 400), label="stake/3")
    first_pot = data.draw(st.sampled_from(["all", "dealer_only"]))
    forcing = data.draw(st.sampled_from(["never", "fresh_pot", "always"]))
    carried = 3 * data.draw(st.integers(0, 3))
    d = data.draw(st.integers(0, n - 1), label="dealer")
    state = sk.start(players, players[d], stake, sk.Options(first_pot=first_pot, forced_participation=forcing),
                     carried_in=carried)
    model = Model(players, d, stake, first_pot, forcing, carried)
    rng = random.Random(data.draw(st.integers(0, 2**32), label="seed"))  # fast; Hypothesis picks seeds
    for _ in range(rng.randint(1, 12)):
        action = rng.choice(["round"] * 8 + ["close", "malformed"])
        if action == "close":
            how = rng.choice(["split", "award", "carry"])
            to = rng.choice(players) if how == "award" else None
            if model.finished:
                with pytest.raises(RuleViolation) as info:
                    sk.close(state, how, to)
                assert info.value.rule == "SK-14"
                continue
            state = sk.close(state, how, to)
            model.close(how, to)
        elif action == "malformed":
            bad: dict[str, Any] = rng.choice([{"participants": ["Nobody"]}, {"tricks": {"Bo": "x"}},
                              {"participants": [players[0], players[0]]}, {"foo": 1}])
            with pytest.raises(BadInput):
                sk.parse_round(state, bad, M)
            continue
        else:
            payload = round_payload(rng, players, model.seat(1), model.seat(2))
            rnd = sk.parse_round(state, payload, M)
            assert sk.parse_round(state, sk.round_json(rnd, M), M) == rnd
            expected = model.violations(payload.get("svangare"), payload.get("participants"),
                                        payload.get("tricks") or None, bool(payload.get("redeal")),
                                        None if "new_stake" not in payload else M.parse(payload["new_stake"]))
            snapshot = dump(state)
            if expected:
                with pytest.raises(RuleViolation) as info:
                    sk.apply(state, rnd)
                assert info.value.rule in expected, (info.value.message, expected)
                assert dump(state) == snapshot
                continue
            state = sk.apply(state, rnd)
            model.play(payload.get("svangare"), payload.get("participants"), payload.get("tricks") or None,
                       None if "new_stake" not in payload else M.parse(payload["new_stake"]))
        assert dict(zip(players, state.balances, strict=True)) == model.money
        assert state.pot == model.pot and state.stake == model.stake
        assert state.players[state.dealer] == model.players[model.dealer]
        assert state.finished == model.finished and state.fresh_pot == model.fresh
        assert state.pot % 3 == 0
        assert sum(state.balances) + state.pot == carried
        assert load(sk.State, dump(state)) == state
        sk.state_json(state, M)
