"""Knaker part A: places (KN-7), dots (KN-16), standings and money (KN-L).

Table-only rules (KN-2, KN-8, KN-9, the exchange phase) do not touch the
ledger and are not tested here; KN-3..KN-15 and KN-17.1/17.2 (legality of a
play) belong to the pile referee, ``knaker_pile``.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from referee.engine import BadInput, RuleViolation, knaker
from referee.engine.knaker import Dot, Event, Options, Round, State
from referee.engine.money import Money
from referee.engine.records import dump, load, parse_options

MONEY = Money(2)
FOUR = ("Anna", "Bo", "Cia", "Dan")
THREE = ("Anna", "Bo", "Cia")


def new(players: tuple[str, ...] = FOUR, dealer: str | None = None, stake: int = 0, **opts: Any) -> State:
    return knaker.start(players, dealer or players[0], stake, parse_options(Options, opts))


def game(state: State, *events: dict[str, list[str]]) -> State:
    return knaker.apply(state, knaker.parse_round(state, {"events": list(events)}, MONEY))


def dot(state: State, player: str, offence: str, dots: int | None = None) -> State:
    body: dict[str, Any] = {"player": player, "offence": offence}
    if dots is not None:
        body["dots"] = dots
    return knaker.apply(state, knaker.parse_round(state, {"dot": body}, MONEY))


def places(state: State) -> dict[str, int]:
    result: dict[str, int] = knaker.state_json(state, MONEY)["places"]
    return result


def rule_of(fn: Any, *args: Any) -> str:
    with pytest.raises(RuleViolation) as info:
        fn(*args)
    assert f"({info.value.rule})" in info.value.message
    return info.value.rule


# --- KN-1, KN-17: players; KN-L: stake ----------------------------------------

@pytest.mark.parametrize(("n", "double", "rule"), [
    (1, False, "KN-1"), (7, False, "KN-1"), (1, True, "KN-17"), (13, True, "KN-17"),
], ids=["KN-1 one player", "KN-1 seven players", "KN-17 one player", "KN-17 thirteen players"])
def test_kn_1_kn_17_refuse_player_count(n: int, double: bool, rule: str) -> None:
    players = tuple(f"P{k}" for k in range(n))
    assert rule_of(lambda: new(players, double_deck=double)) == rule


@pytest.mark.parametrize(("n", "double"), [(2, False), (6, False), (2, True), (7, True), (12, True)],
                         ids=["KN-1 two", "KN-1 six", "KN-17 two", "KN-17 seven", "KN-17 twelve"])
def test_kn_1_kn_17_accept_player_count(n: int, double: bool) -> None:
    players = tuple(f"P{k}" for k in range(n))
    state = new(players, double_deck=double)
    assert state.players == players and state.balances == (0,) * n and not state.finished


@pytest.mark.parametrize(("payout", "stake"), [("loser_pays", 0), ("pot", 0), ("none", -1), ("pot", -100)],
                         ids=["KN-L loser_pays without stake", "KN-L pot without stake", "KN-L negative",
                              "KN-L pot negative"])
def test_kn_l_refuses_stake(payout: str, stake: int) -> None:
    assert rule_of(lambda: new(stake=stake, payout=payout)) == "KN-L"


def test_kn_l_options_defaults_and_choices() -> None:
    opts = parse_options(Options, {})
    assert opts == Options(payout="none", double_deck=False)
    assert parse_options(Options, {"payout": "pot", "double_deck": True}) == Options("pot", True)
    for bad in ({"payout": "winner_takes"}, {"double_deck": "yes"}, {"jokers": 3}):
        with pytest.raises(BadInput):
            parse_options(Options, bad)


# --- KN-7: places ----------------------------------------------------------------

def test_kn_7_api_example() -> None:
    state = game(new(), {"out": ["Anna"]}, {"lost": ["Bo"]}, {"out": ["Cia", "Dan"]})
    assert places(state) == {"Anna": 1, "Cia": 2, "Dan": 2, "Bo": 4}
    assert list(places(state)) == ["Anna", "Cia", "Dan", "Bo"]  # ordered by place


def test_kn_7_1_conformance_example_last_player_implied() -> None:
    state = game(new(THREE), {"out": ["Bo"]}, {"lost": ["Cia"]})
    assert places(state) == {"Bo": 1, "Anna": 2, "Cia": 3}


def test_kn_7_3_tie_skips_next_place() -> None:
    state = game(new(), {"out": ["Bo"]}, {"out": ["Anna", "Dan"]})
    assert places(state) == {"Bo": 1, "Anna": 2, "Dan": 2, "Cia": 4}


def test_kn_7_3_all_go_out_together() -> None:
    assert places(game(new(THREE), {"out": ["Anna", "Bo", "Cia"]})) == {"Anna": 1, "Bo": 1, "Cia": 1}


def test_kn_7_2_losers_take_worst_free_place_in_order() -> None:
    state = game(new(), {"lost": ["Anna"]}, {"lost": ["Bo"]}, {"out": ["Dan"]})
    assert places(state) == {"Dan": 1, "Cia": 2, "Bo": 3, "Anna": 4}


def test_kn_7_2_losers_of_one_round_share_the_worst_places() -> None:
    state = game(new(), {"lost": ["Anna", "Bo"]}, {"out": ["Cia"]})
    assert places(state) == {"Cia": 1, "Dan": 2, "Anna": 3, "Bo": 3}


def test_kn_7_disqualified_takes_worst_free_place_at_that_moment() -> None:
    state = game(new(), {"lost": ["Cia"]}, {"disqualified": ["Anna"]}, {"out": ["Dan"]})
    assert places(state) == {"Dan": 1, "Bo": 2, "Anna": 3, "Cia": 4}


@pytest.mark.parametrize("kind", ["out", "lost", "disqualified"])
def test_kn_7_1_last_player_may_be_named(kind: str) -> None:
    state = game(new(THREE), {"out": ["Bo"]}, {"lost": ["Cia"]}, {kind: ["Anna"]})
    assert places(state) == {"Bo": 1, "Anna": 2, "Cia": 3}


@pytest.mark.parametrize("events", [
    [],
    [{"out": ["Anna"]}],
    [{"out": ["Anna"]}, {"lost": ["Bo"]}],
], ids=["KN-7.1 nothing entered", "KN-7.1 three left", "KN-7.1 two left"])
def test_kn_7_1_refuses_more_than_one_left(events: list[dict[str, list[str]]]) -> None:
    state = new()
    assert rule_of(game, state, *events) == "KN-7.1"


@pytest.mark.parametrize("events", [
    [{"out": ["Anna"]}, {"lost": ["Anna"]}, {"out": ["Bo", "Cia"]}],
    [{"out": ["Anna", "Anna"]}, {"lost": ["Bo"]}],
    [{"out": ["Anna"]}, {"lost": ["Bo"]}, {"out": ["Cia", "Dan"]}, {"lost": ["Dan"]}],
], ids=["KN-7 twice in two events", "KN-7 twice in one event", "KN-7 named after the end"])
def test_kn_7_refuses_player_named_twice(events: list[dict[str, list[str]]]) -> None:
    assert rule_of(game, new(), *events) == "KN-7"


# --- KN-L: standings, money, dealer --------------------------------------------

def test_kn_l_standings_count_players_below() -> None:
    state = game(new(), {"out": ["Anna"]}, {"lost": ["Bo"]}, {"out": ["Cia", "Dan"]})
    # Anna 1 (3 below), Cia/Dan 2 (Bo below), Bo 4.
    assert knaker.state_json(state, MONEY)["standings"] == {"Anna": 3, "Bo": 0, "Cia": 1, "Dan": 1}


def test_kn_l_standings_two_games() -> None:
    state = game(new(THREE), {"out": ["Anna"]}, {"lost": ["Bo"]})
    state = game(state, {"lost": ["Anna"]}, {"out": ["Bo", "Cia"]})
    # Game 1: Anna 1, Cia 2, Bo 3 -> 2, 0, 1. Game 2: Bo 1, Cia 1, Anna 3 -> 0, 1, 1.
    assert state.standings == (2, 1, 2)


def test_kn_l_loser_pays_single_loser() -> None:
    state = game(new(stake=300, payout="loser_pays"), {"out": ["Anna"]}, {"lost": ["Bo"]}, {"out": ["Cia"]})
    assert knaker.state_json(state, MONEY)["balances"] == {"Anna": "3.00", "Bo": "-9.00", "Cia": "3.00",
                                                          "Dan": "3.00"}
    assert state.pot == 0


def test_kn_l_loser_pays_shared_last_place_pays_each_once() -> None:
    state = game(new(stake=300, payout="loser_pays"), {"out": ["Anna"]}, {"lost": ["Bo", "Cia"]})
    # Bo and Cia share place 3: each pays Anna and Dan 3.00.
    assert state.balances == (600, -600, -600, 600)
    state = game(new(THREE, stake=100, payout="loser_pays"), {"out": ["Anna"]}, {"out": ["Bo", "Cia"]})
    # Bo and Cia tie for the last place by going out together: each pays Anna.
    assert state.balances == (200, -100, -100)


def test_kn_l_loser_pays_nobody_when_all_tie() -> None:
    state = game(new(THREE, stake=100, payout="loser_pays"), {"out": ["Anna", "Bo", "Cia"]})
    assert state.balances == (0, 0, 0)


def test_kn_l_pot_first_place_takes_it() -> None:
    state = game(new(stake=200, payout="pot"), {"lost": ["Anna"]}, {"out": ["Cia"]}, {"out": ["Dan"]})
    assert state.balances == (-200, -200, 600, -200) and state.pot == 0


def test_kn_l_pot_shared_first_place_remainder_from_dealers_left() -> None:
    # 3 players, stake 0.01, dealer Bo: pot 0.03 for Anna and Cia; the odd öre goes to
    # the first of them from Bo's left (Cia).
    state = game(new(THREE, dealer="Bo", stake=1, payout="pot"), {"out": ["Anna", "Cia"]})
    assert state.balances == (0, -1, 1)
    state = game(new(THREE, dealer="Cia", stake=1, payout="pot"), {"out": ["Anna", "Cia"]})
    assert state.balances == (1, -1, 0)


def test_kn_l_payout_none_moves_no_money() -> None:
    state = game(new(stake=500), {"out": ["Anna"]}, {"lost": ["Bo"]}, {"out": ["Cia"]})
    assert state.balances == (0, 0, 0, 0)


def test_kn_l_deal_moves_clockwise_each_game() -> None:
    state = new(THREE, dealer="Cia")
    dealers = [knaker.state_json(state, MONEY)["dealer"]]
    for _ in range(3):
        state = game(state, {"out": ["Anna"]}, {"lost": ["Bo"]})
        dealers.append(knaker.state_json(state, MONEY)["dealer"])
    assert dealers == ["Cia", "Anna", "Bo", "Cia"]
    assert state.last_game is not None and state.players[state.last_game.dealer] == "Bo"


# --- KN-16: dots -------------------------------------------------------------------

@pytest.mark.parametrize(("offence", "dots"), [
    ("ordinary", 1), ("swap_face_down", 2), ("turn_face_down", 2), ("throw_last_card", 3),
], ids=["KN-16 ordinary", "KN-16.2 swap", "KN-16.2 turn", "KN-16.2 throw last card"])
def test_kn_16_default_dots(offence: str, dots: int) -> None:
    state = dot(new(), "Bo", offence)
    assert state.dots == (0, dots, 0, 0)
    assert dot(new(), "Bo", offence, dots).dots == (0, dots, 0, 0)  # the same number given explicitly


@pytest.mark.parametrize(("offence", "dots", "rule"), [
    ("ordinary", 2, "KN-16"), ("swap_face_down", 1, "KN-16.2"), ("throw_last_card", 4, "KN-16.2"),
    ("denial", 2, "KN-16.5"), ("spectator", 2, "KN-16.1"), ("bad_loser", 3, "KN-16.9"),
    ("giffelcheat", 1, "KN-16.3"),
], ids=["KN-16 ordinary 2", "KN-16.2 swap 1", "KN-16.2 throw 4", "KN-16.5 denial 2", "KN-16.1 spectator 2",
        "KN-16.9 bad loser 3", "KN-16.3 giffelcheat with dots"])
def test_kn_16_refuses_other_dots_for_named_offence(offence: str, dots: int, rule: str) -> None:
    state = dot(new(), "Bo", "ordinary")
    assert rule_of(dot, state, "Bo", offence, dots) == rule


@pytest.mark.parametrize("dots", [1, 2, 3, 4])
def test_kn_16_2_other_takes_leaders_number(dots: int) -> None:
    assert dot(new(), "Cia", "other", dots).dots == (0, 0, dots, 0)


@pytest.mark.parametrize("dots", [0, 5, -1], ids=["KN-16.2 zero", "KN-16.2 five", "KN-16.2 negative"])
def test_kn_16_2_other_refuses_out_of_range(dots: int) -> None:
    assert rule_of(dot, new(), "Cia", "other", dots) == "KN-16.2"


def test_kn_16_2_other_needs_dots() -> None:
    with pytest.raises(BadInput):
        dot(new(), "Cia", "other")


def test_kn_16_5_denial_adds_one_after_an_offence() -> None:
    state = dot(new(), "Bo", "swap_face_down")
    state = dot(state, "Bo", "denial")
    assert state.dots == (0, 3, 0, 0)
    assert rule_of(dot, state, "Bo", "denial") == "KN-16.5"  # that cheat was already denied


def test_kn_16_5_denial_needs_a_cheat_in_this_game() -> None:
    assert rule_of(dot, new(), "Bo", "denial") == "KN-16.5"
    state = dot(new(), "Bo", "ordinary")
    state = game(state, {"out": ["Anna"]}, {"lost": ["Bo"]}, {"out": ["Cia"]})
    assert rule_of(dot, state, "Bo", "denial") == "KN-16.5"


@pytest.mark.parametrize(("dots", "consequence"), [
    (0, "none"), (1, "warning"), (2, "warning"), (3, "no_ladders"), (4, "pick_up_pile"), (5, "disqualified"),
    (7, "disqualified"),
], ids=["KN-16.8 none", "KN-16.8 1st", "KN-16.8 2nd", "KN-16.8 3rd", "KN-16.8 4th", "KN-16.8 5th",
        "KN-16.8 7th"])
def test_kn_16_8_consequences(dots: int, consequence: str) -> None:
    state = new()
    given_dots = 0
    while given_dots < dots:
        step = min(4, dots - given_dots)
        state = dot(state, "Dan", "other", step)
        given_dots += step
    shown = knaker.state_json(state, MONEY)
    assert shown["dots"]["Dan"] == dots
    assert shown["consequences"]["Dan"]["consequence"] == consequence
    assert shown["consequences"]["Dan"]["rule"] == (None if dots == 0 else "KN-16.8")
    assert shown["consequences"]["Anna"]["consequence"] == "none"
    assert (shown["disqualified"] == ["Dan"]) == (dots >= 5)


def test_kn_16_8_fifth_dot_disqualifies_in_the_result() -> None:
    state = dot(dot(new(), "Bo", "other", 4), "Bo", "ordinary")
    assert rule_of(dot, state, "Bo", "ordinary") == "KN-16.8"  # no more dots in this game
    assert rule_of(game, state, {"out": ["Anna"]}, {"lost": ["Bo"]}, {"out": ["Cia"]}) == "KN-16.8"
    done = game(state, {"out": ["Anna"]}, {"disqualified": ["Bo"]}, {"out": ["Cia"]})
    assert places(done) == {"Anna": 1, "Cia": 2, "Dan": 3, "Bo": 4}
    assert done.dots == (0, 0, 0, 0)


def test_kn_16_3_giffelcheat_disqualifies() -> None:
    state = dot(new(), "Cia", "giffelcheat")
    shown = knaker.state_json(state, MONEY)
    assert shown["consequences"]["Cia"] == {"consequence": "disqualified", "rule": "KN-16.3",
                                            "text": shown["consequences"]["Cia"]["text"]}
    assert shown["dots"]["Cia"] == 0
    assert rule_of(dot, state, "Cia", "ordinary") == "KN-16.3"
    assert rule_of(dot, state, "Cia", "denial") == "KN-16.3"
    assert rule_of(game, state, {"out": ["Anna"]}, {"lost": ["Bo"]}, {"out": ["Cia"]}) == "KN-16.3"
    done = game(state, {"disqualified": ["Cia"]}, {"out": ["Anna"]}, {"lost": ["Bo"]})
    assert places(done) == {"Anna": 1, "Dan": 2, "Bo": 3, "Cia": 4}
    assert done.giffel == (False,) * 4


def test_kn_16_1_kn_16_9_dots_carried_to_next_game() -> None:
    state = dot(new(), "Anna", "spectator")
    state = dot(state, "Bo", "bad_loser")
    state = dot(state, "Bo", "swap_face_down")
    assert state.dots == (0, 2, 0, 0) and state.carried == (1, 1, 0, 0)
    assert knaker.state_json(state, MONEY)["carried_dots"] == {"Anna": 1, "Bo": 1, "Cia": 0, "Dan": 0}
    state = game(state, {"out": ["Anna"]}, {"lost": ["Bo"]}, {"out": ["Cia"]})
    assert state.dots == (1, 1, 0, 0) and state.carried == (0, 0, 0, 0)
    state = game(state, {"out": ["Anna"]}, {"lost": ["Bo"]}, {"out": ["Cia"]})
    assert state.dots == (0, 0, 0, 0)


def test_kn_16_1_spectator_dot_for_disqualified_player() -> None:
    state = dot(new(), "Cia", "giffelcheat")
    state = dot(state, "Cia", "spectator")
    assert state.carried == (0, 0, 1, 0)


def test_kn_16_8_five_carried_dots_disqualify_from_the_start() -> None:
    state = new()
    for _ in range(5):
        state = dot(state, "Dan", "bad_loser")
    state = game(state, {"out": ["Anna"]}, {"lost": ["Bo"]}, {"out": ["Cia"]})
    assert state.dots == (0, 0, 0, 5)
    assert rule_of(game, state, {"out": ["Anna"]}, {"lost": ["Bo"]}, {"out": ["Cia"]}) == "KN-16.8"


# --- close ---------------------------------------------------------------------------

def test_close_finishes_and_refuses_more() -> None:
    state = game(new(stake=100, payout="pot"), {"out": ["Anna"]}, {"lost": ["Bo"]}, {"out": ["Cia"]})
    closed = knaker.close(state, "award", "Bo")  # no pot on the table: how/to are ignored
    assert closed.finished and closed.balances == state.balances and closed.pot == 0
    assert knaker.state_json(closed, MONEY)["finished"] is True
    assert rule_of(game, closed, {"out": ["Anna"]}, {"lost": ["Bo"]}, {"out": ["Cia"]}) == "KN-L"
    assert rule_of(dot, closed, "Bo", "ordinary") == "KN-L"
    assert rule_of(knaker.close, closed, "split", None) == "KN-L"


# --- shapes ---------------------------------------------------------------------------

@pytest.mark.parametrize("payload", [
    {}, {"events": [], "dot": {"player": "Bo", "offence": "ordinary"}}, {"events": {"out": ["Anna"]}},
    {"events": [{"out": ["Anna"], "lost": ["Bo"]}]}, {"events": [{}]}, {"events": [{"won": ["Anna"]}]},
    {"events": [{"out": []}]}, {"events": [{"out": "Anna"}]}, {"events": [{"out": ["Zed"]}]},
    {"events": ["Anna"]}, {"winner": "Anna"},
    {"dot": {"player": "Zed", "offence": "ordinary"}}, {"dot": {"player": "Bo", "offence": "cheat"}},
    {"dot": {"player": "Bo"}}, {"dot": {"offence": "ordinary"}}, {"dot": {"player": "Bo", "offence": 1}},
    {"dot": {"player": "Bo", "offence": "other", "dots": "2"}},
    {"dot": {"player": "Bo", "offence": "other", "dots": 2.0}},
    {"dot": {"player": "Bo", "offence": "ordinary", "why": "x"}}, {"dot": ["Bo"]},
])
def test_parse_round_refuses_malformed(payload: dict[str, Any]) -> None:
    with pytest.raises(BadInput):
        knaker.parse_round(new(), payload, MONEY)


@pytest.mark.parametrize("payload", [
    {"events": [{"out": ["Anna"]}, {"lost": ["Bo"]}, {"out": ["Cia", "Dan"]}]},
    {"events": [{"disqualified": ["Dan"]}, {"out": ["Anna", "Anna"]}]},
    {"dot": {"player": "Bo", "offence": "swap_face_down", "dots": 2}},
    {"dot": {"player": "Bo", "offence": "giffelcheat"}},
])
def test_round_json_roundtrip(payload: dict[str, Any]) -> None:
    state = new()
    rnd = knaker.parse_round(state, payload, MONEY)
    assert knaker.round_json(rnd, MONEY) == payload
    assert knaker.parse_round(state, knaker.round_json(rnd, MONEY), MONEY) == rnd


def test_state_json_common_fields() -> None:
    state = game(new(stake=250, payout="loser_pays"), {"out": ["Anna"]}, {"lost": ["Bo"]}, {"out": ["Cia"]})
    shown = knaker.state_json(state, MONEY)
    assert shown["dealer"] == "Bo" and shown["finished"] is False and shown["pot"] == "0.00"
    assert shown["balances"] == {"Anna": "2.50", "Bo": "-7.50", "Cia": "2.50", "Dan": "2.50"}
    assert shown["game_no"] == 2 and shown["games_played"] == 1
    assert shown["last_game"]["payments"] == shown["balances"]
    assert shown["last_game"]["events"] == [{"out": ["Anna"]}, {"lost": ["Bo"]}, {"out": ["Cia"]}]
    assert knaker.state_json(new(), MONEY)["places"] == {}


def test_check_is_the_twin_of_apply() -> None:
    state = new()
    bad = Round(events=(Event("out", ("Anna",)),))
    found = knaker.check(state, bad)
    assert found is not None and found.rule == "KN-7.1"
    assert knaker.check(state, Round(dot=Dot("Bo", "ordinary"))) is None


# --- properties ----------------------------------------------------------------------

NAMES = ("Anna", "Bo", "Cia", "Dan", "Eva", "Fia", "Gus", "Hal")
KINDS = ("out", "lost", "disqualified")


def reference_places(n: int, events: list[tuple[str, list[int]]]) -> list[int]:
    """KN-7 by sort keys: outs in order, then the one left, then losers latest first."""
    key: dict[int, tuple[int, int]] = {}
    for e, (kind, seats) in enumerate(events):
        for s in seats:
            key[s] = (0, e) if kind == "out" else (2, -e)
    for s in range(n):
        key.setdefault(s, (1, 0))
    return [1 + sum(1 for t in range(n) if key[t] < key[s]) for s in range(n)]


@st.composite
def valid_events(draw: st.DrawFn, n: int, must_disqualify: frozenset[int] = frozenset()) -> list[tuple[str,
                                                                                                       list[int]]]:
    order = draw(st.permutations(range(n)))
    events: list[tuple[str, list[int]]] = []
    k = 0
    while n - k > 1 or (n - k == 1 and (order[k] in must_disqualify or draw(st.booleans()))):
        seat = order[k]
        if seat in must_disqualify:
            size, kind = 1, "disqualified"
        else:
            size = draw(st.integers(1, n - k))
            group = order[k:k + size]
            size = next((j for j, s in enumerate(group) if s in must_disqualify), size)
            kind = draw(st.sampled_from(KINDS))
        events.append((kind, list(order[k:k + size])))
        k += size
    return events


def as_payload(names: tuple[str, ...], events: list[tuple[str, list[int]]]) -> dict[str, Any]:
    return {"events": [{kind: [names[s] for s in seats]} for kind, seats in events]}


def expected_payments(state: State, pl: list[int]) -> list[int]:
    n, stake = len(pl), state.stake
    pay = [0] * n
    if state.options.payout == "loser_pays":
        last = max(pl)
        for i in range(n):
            for j in range(n):
                if pl[i] == last and pl[j] != last:
                    pay[i] -= stake
                    pay[j] += stake
    elif state.options.payout == "pot":
        pot = stake * n
        pay = [-stake] * n
        winners = [s for s in range(n) if pl[s] == 1]
        for s in winners:
            pay[s] += pot // len(winners)
        seat = state.dealer
        for _ in range(pot % len(winners)):
            seat = (seat + 1) % n
            while pl[seat] != 1:
                seat = (seat + 1) % n
            pay[seat] += 1
    return pay


# weighted towards the offences that disqualify, so that results with disqualified players come up
OFFENCE_NAMES = (*knaker.OFFENCES, "giffelcheat", "other", "other", "other")


@settings(max_examples=100, deadline=None)
@given(st.data(), st.integers(2, 8), st.sampled_from(("none", "loser_pays", "pot")), st.integers(1, 999))
def test_property_kn_7_kn_l_random_matches(data: st.DataObject, n: int, payout: str, stake: int) -> None:
    names = NAMES[:n]
    state = new(names, dealer=data.draw(st.sampled_from(names)), stake=stake, payout=payout,
                double_deck=n > 6)
    standings = [0] * n
    balances = [0] * n
    for _ in range(data.draw(st.integers(1, 6))):
        before = dump(state)
        if data.draw(st.booleans()):
            # A dot, valid or not.
            player, offence = data.draw(st.sampled_from(names)), data.draw(st.sampled_from(OFFENCE_NAMES))
            given_dots = None
            if offence == "other" or data.draw(st.integers(0, 3)) == 0:
                given_dots = data.draw(st.integers(-1, 5))
            payload: dict[str, Any] = {"player": player, "offence": offence}
            if given_dots is not None:
                payload["dots"] = given_dots
            rnd = knaker.parse_round(state, {"dot": payload}, MONEY)
            violation = knaker.check(state, rnd)
            event(f"dot {'refused ' + violation.rule if violation else 'accepted'}")
            if violation is not None:
                with pytest.raises(RuleViolation) as info:
                    knaker.apply(state, rnd)
                assert info.value.rule == violation.rule
                assert dump(state) == before
                continue
            new_state = knaker.apply(state, rnd)
            seat = names.index(player)
            dots, carried, giffel = list(state.dots), list(state.carried), list(state.giffel)
            if offence in ("spectator", "bad_loser"):
                carried[seat] += 1
            elif offence == "giffelcheat":
                giffel[seat] = True
            else:
                dots[seat] += given_dots or {"ordinary": 1, "swap_face_down": 2, "turn_face_down": 2,
                                                      "throw_last_card": 3, "denial": 1}[offence]
            assert (list(new_state.dots), list(new_state.carried), list(new_state.giffel)) == (dots, carried, giffel)
            state = new_state
        else:
            must = frozenset(s for s in range(n) if knaker.disqualified_by(state, s) is not None)
            events = data.draw(valid_events(n, must))
            event(f"game with {len(must)} disqualified by dots")
            rnd = knaker.parse_round(state, as_payload(names, events), MONEY)
            assert knaker.round_json(rnd, MONEY) == as_payload(names, events)
            carried_before = state.carried
            new_state = knaker.apply(state, rnd)
            pl = reference_places(n, events)
            assert list(new_state.places or ()) == pl
            # a proper ranking with ties: place = 1 + number strictly better
            assert all(pl[s] == 1 + sum(1 for q in pl if q < pl[s]) for s in range(n))
            assert 1 in pl
            for s in range(n):
                standings[s] += sum(1 for q in pl if q > pl[s])
            pay = expected_payments(state, pl)
            assert sum(pay) == 0
            balances = [b + p for b, p in zip(balances, pay, strict=True)]
            assert new_state.dots == carried_before and sum(new_state.carried) == 0
            state = new_state
        assert list(state.standings) == standings
        assert list(state.balances) == balances
        assert sum(state.balances) + state.pot == 0
        assert load(State, dump(state)) == state


@settings(max_examples=200, deadline=None)
@given(st.data(), st.integers(2, 6))
def test_property_kn_7_random_event_lists(data: st.DataObject, n: int) -> None:
    """Any list of events: accepted iff every player is placed once and at most one is left."""
    names = NAMES[:n]
    state = new(names)
    events = data.draw(st.lists(st.tuples(st.sampled_from(KINDS),
                                          st.lists(st.integers(0, n - 1), min_size=1, max_size=3)), max_size=5))
    events = [(kind, list(seats)) for kind, seats in events]
    named = [s for _, seats in events for s in seats]
    twice = len(named) != len(set(named))
    left = n - len(set(named))
    rnd = knaker.parse_round(state, as_payload(names, events), MONEY)
    violation = knaker.check(state, rnd)
    before = dump(state)
    if twice or left > 1:
        assert violation is not None and violation.rule == ("KN-7" if twice else "KN-7.1")
        with pytest.raises(RuleViolation):
            knaker.apply(state, rnd)
        assert dump(state) == before
    else:
        assert violation is None
        after = knaker.apply(state, rnd)
        assert list(after.places or ()) == reference_places(n, events)
        assert sum(after.standings) == sum(1 for a in after.places or () for b in after.places or () if a < b)
