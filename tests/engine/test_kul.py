"""Kul engine: KU-1 .. KU-4 of rules/svangknack.md, plus closing (SK-14).

How the five tricks are played (KU-3: no trumps, forced overtaking) is
table-only; the app only records who took the last trick. Amounts are minor
units: 200 = 2.00.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.engine import BadInput, RuleViolation, kul
from referee.engine.money import Money
from referee.engine.records import dump, load, parse_options

M = Money(2)
P4 = ("Anna", "Bo", "Cia", "Dan")


def new(players: tuple[str, ...] = P4, dealer: str = "Anna", stake: int = 200, **opts: Any) -> kul.State:
    return kul.start(players, dealer, stake, parse_options(kul.Options, opts))


def deal(state: kul.State, name: str) -> kul.State:
    rnd = kul.parse_round(state, {"last_trick": name}, M)
    assert kul.parse_round(state, kul.round_json(rnd, M), M) == rnd
    nxt = kul.apply(state, rnd)
    assert load(kul.State, dump(nxt)) == nxt
    assert sum(nxt.balances) + nxt.pot == nxt.carried_in
    return nxt


def bal(state: kul.State) -> dict[str, int]:
    return dict(zip(state.players, state.balances, strict=True))


@pytest.mark.parametrize("n", [0, 1, 11], ids=lambda n: f"KU-1 {n} players rejected")
def test_KU_1_player_count_rejected(n: int) -> None:
    players = tuple(f"P{i}" for i in range(n))
    with pytest.raises(RuleViolation) as info:
        kul.start(players, players[0] if players else "X", 100, kul.Options())
    assert info.value.rule == "KU-1"


@pytest.mark.parametrize("n", [2, 10], ids=lambda n: f"KU-1 {n} players accepted")
def test_KU_1_player_count_accepted(n: int) -> None:
    players = tuple(f"P{i}" for i in range(n))
    assert kul.start(players, "P1", 100, kul.Options()).pot == 100 * n


def test_KU_2_everyone_pays_the_stake() -> None:
    s = new(stake=250)
    assert s.pot == 1000 and s.balances == (-250,) * 4
    j = kul.state_json(s, M)
    assert j["pot"] == "10.00" and j["marks"] == dict.fromkeys(P4, 0) and j["winner"] is None


def test_KU_2_stake_zero_is_allowed_negative_is_not() -> None:
    s = new(stake=0)
    assert s.pot == 0
    for _ in range(3):
        s = deal(s, "Bo")
    assert s.winner == 1 and s.balances == (0, 0, 0, 0)
    with pytest.raises(RuleViolation) as info:
        new(stake=-100)
    assert info.value.rule == "KU-2"


def test_KU_3_one_mark_per_deal_and_rotation() -> None:
    s = new()
    s = deal(s, "Cia")
    s = deal(s, "Anna")
    s = deal(s, "Cia")
    assert s.marks == (1, 0, 2, 0) and not s.finished and s.pot == 800
    assert kul.state_json(s, M)["dealer"] == "Dan"  # Anna -> Bo -> Cia -> Dan
    assert kul.state_json(s, M)["last_trick"] == "Cia"


@pytest.mark.parametrize("payload", [
    {}, {"last_trick": ["Bo", "Cia"]}, {"last_trick": "Zed"}, {"last_trick": "Bo", "also": "Cia"},
    {"last_trick": None}, {"last_trick": 1}, [],
], ids=lambda p: f"KU-3 exactly one winner per deal {p!r}")
def test_KU_3_bad_payload(payload: Any) -> None:
    with pytest.raises(BadInput):
        kul.parse_round(new(), payload, M)


def test_KU_4_conformance_cia_three_marks() -> None:
    s = new(stake=200)
    for _ in range(3):
        s = deal(s, "Cia")
    j = kul.state_json(s, M)
    assert j["winner"] == "Cia" and j["finished"] is True and j["dealer"] == "Cia"
    assert j["balances"] == {"Anna": "-2.00", "Bo": "-2.00", "Cia": "6.00", "Dan": "-2.00"}
    assert j["pot"] == "0.00" and j["marks"]["Cia"] == 3


def test_KU_4_marks_to_win_two() -> None:
    s = new(P4[:3], dealer="Cia", stake=100, marks_to_win=2)
    s = deal(s, "Anna")
    s = deal(s, "Bo")
    assert not s.finished
    s = deal(s, "Bo")
    assert s.winner == 1 and bal(s) == {"Anna": -100, "Bo": 200, "Cia": -100}
    assert s.players[s.dealer] == "Bo"


def test_KU_4_no_deal_after_win() -> None:
    s = new(marks_to_win=2)
    s = deal(deal(s, "Dan"), "Dan")
    rnd = kul.parse_round(s, {"last_trick": "Anna"}, M)
    with pytest.raises(RuleViolation) as info:
        kul.apply(s, rnd)
    assert info.value.rule == "KU-4"
    found = kul.check(s, rnd)
    assert found is not None and found.rule == "KU-4"
    with pytest.raises(RuleViolation) as info:
        kul.close(s, "split", None)
    assert info.value.rule == "SK-14"


@pytest.mark.parametrize("value", [1, 4, "3"], ids=lambda v: f"KU-4 marks_to_win {v!r} rejected")
def test_KU_4_option_values(value: Any) -> None:
    with pytest.raises(BadInput):
        parse_options(kul.Options, {"marks_to_win": value})


def test_SK_14_close_split_from_dealers_left() -> None:
    s = new(P4[:3], dealer="Bo", stake=1)  # pot 0.03 -> 1 each
    s = deal(s, "Anna")  # dealer now Cia
    c = kul.close(s, "split", None)
    assert c.balances == (0, 0, 0) and c.pot == 0 and c.finished
    s = new(P4, dealer="Bo", stake=5)  # pot 20 over 4 -> 5 each; make it uneven with a carried pot
    s = kul.start(P4, "Bo", 5, kul.Options(), carried_in=3)  # pot 23: 5 each, 3 extra from Cia
    c = kul.close(s, "split", None)
    gains = {p: bal(c)[p] - bal(s)[p] for p in P4}
    assert gains == {"Anna": 6, "Bo": 5, "Cia": 6, "Dan": 6}
    assert sum(c.balances) == 3


def test_SK_14_close_award_carry_and_no_more_deals() -> None:
    s = deal(new(), "Bo")
    a = kul.close(s, "award", "Dan")
    assert bal(a)["Dan"] == 600 and a.pot == 0
    c = kul.close(s, "carry", None)
    assert c.pot == 800 and c.carried_out == 800 and kul.state_json(c, M)["carried"] == "8.00"
    rnd = kul.parse_round(c, {"last_trick": "Bo"}, M)
    with pytest.raises(RuleViolation) as info:
        kul.apply(c, rnd)
    assert info.value.rule == "SK-14"
    for how, to in [("nope", None), ("award", None), ("award", "Zed")]:
        with pytest.raises(BadInput):
            kul.close(s, how, to)


class Model:
    """Independent re-computation of a Kul game."""

    def __init__(self, players: tuple[str, ...], dealer: int, stake: int, need: int) -> None:
        self.players, self.need = players, need
        self.money = {p: -stake for p in players}
        self.pot = stake * len(players)
        self.marks = dict.fromkeys(players, 0)
        self.dealer = players[dealer]
        self.winner: str | None = None
        self.finished = False

    def deal(self, name: str) -> None:
        self.marks[name] += 1
        if self.marks[name] == self.need:
            self.money[name] += self.pot
            self.pot = 0
            self.winner = self.dealer = name
            self.finished = True
        else:
            self.dealer = self.players[(self.players.index(self.dealer) + 1) % len(self.players)]

    def close(self, how: str, to: str | None) -> None:
        if self.pot and how == "split":
            seat = self.players.index(self.dealer)
            for k in range(self.pot):  # one unit at a time around the table from the dealer's left
                self.money[self.players[(seat + 1 + k) % len(self.players)]] += 1
            self.pot = 0
        elif self.pot and how == "award":
            assert to is not None
            self.money[to] += self.pot
            self.pot = 0
        self.finished = True


@given(st.integers(2, 10), st.integers(0, 500), st.sampled_from([2, 3]), st.integers(0, 2**32))
@settings(max_examples=200, deadline=None)
def test_property_random_games_match_model(n: int, stake: int, need: int, seed: int) -> None:
    rng = random.Random(seed)
    players = tuple(f"P{i}" for i in range(n))
    d = rng.randrange(n)
    state = kul.start(players, players[d], stake, kul.Options(marks_to_win=need))
    model = Model(players, d, stake, need)
    for _ in range(rng.randint(1, 3 * n)):
        if rng.random() < 0.1:
            how = rng.choice(["split", "award", "carry"])
            to = rng.choice(players) if how == "award" else None
            if model.finished:
                with pytest.raises(RuleViolation):
                    kul.close(state, how, to)
                continue
            state = kul.close(state, how, to)
            model.close(how, to)
        else:
            rnd = kul.parse_round(state, {"last_trick": rng.choice(players)}, M)
            if model.finished:
                before = dump(state)
                with pytest.raises(RuleViolation) as info:
                    kul.apply(state, rnd)
                assert info.value.rule == ("KU-4" if model.winner else "SK-14")
                assert dump(state) == before
                continue
            state = kul.apply(state, rnd)
            model.deal(rnd.last_trick)
        assert bal(state) == model.money and state.pot == model.pot
        assert dict(zip(players, state.marks, strict=True)) == model.marks
        assert state.players[state.dealer] == model.dealer and state.finished == model.finished
        assert (None if state.winner is None else players[state.winner]) == model.winner
        assert sum(state.balances) + state.pot == 0
        assert load(kul.State, dump(state)) == state
        assert kul.state_json(state, M)["winner"] == model.winner
