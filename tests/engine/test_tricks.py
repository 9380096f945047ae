"""Tests of the trick referee (SK-15, KU-3, SL-14 and SL-2's trick strength).

Every test names the obligation it checks. Cards are written as in the
contract; ``deal("AS KS 2S | 5H 9H QH")`` gives the tricks. The property
tests play random legal deals with an oracle written here from the digests
alone (its own rank tables and trick winner), so the engine is checked
against an independent reading, not against itself.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.engine import BadInput
from referee.engine import tricks as tr

P3 = ["Anna", "Bo", "Cia"]


def req(game: str, tricks: str, trump: str | None = "H", players: list[str] | None = None,
        leader: str = "Anna", **kw: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"game": game, "players": players or P3, "leader": leader,
                            "tricks": [t.split() for t in tricks.split("|")] if tricks.strip() else []}
    if trump is not None:
        data["trump"] = trump
    return {**data, **kw}


def check(game: str, tricks: str, trump: str | None = "H", **kw: Any) -> dict[str, Any]:
    return tr.verdict_json(tr.judge(tr.parse_deal(req(game, tricks, trump, **kw))))


def broken_at(out: dict[str, Any]) -> tuple[int, int, str, str, str]:
    return out["trick"], out["position"], out["player"], out["card"], out["rule"]


# --- SK-15 -----------------------------------------------------------------------


def test_sk15_api_example_is_legal_with_winners_and_round() -> None:
    out = check("svangknack", "AS KS 2S | 5H 9H QH | 3D 4C 7D")
    # Trick 2 is led by Anna (won trick 1) with a trump: trumf i andra kept.
    assert out["legal"] and out["winners"] == ["Anna", "Cia", "Bo"]
    assert out["tricks_won"] == {"Anna": 1, "Bo": 1, "Cia": 1}
    assert out["round"] == {"participants": P3, "tricks": {"Anna": 1, "Bo": 1, "Cia": 1}}


def test_sk15_forced_overtaking_in_suit() -> None:
    # Bo plays 5S under 9S but plays KS later: he had to beat 9S with KS.
    out = check("svangknack", "9S 5S 2S | 3S KS 4S")
    assert broken_at(out) == (1, 2, "Bo", "5S", "SK-15")
    assert out["reason"] == "Bo had to beat nine of spades with king of spades (forced overtaking, SK-15)."
    assert out["winners"] == []


def test_sk15_lower_of_suit_when_unable_to_overtake_is_legal() -> None:
    assert check("svangknack", "KS 5S 2S")["legal"]


def test_sk15_must_follow_suit_when_void_of_higher() -> None:
    # Bo discards 2C though he holds 5S (lower than KS): must follow suit.
    out = check("svangknack", "KS 2C 3S | 9D 5S", trump="H")
    assert broken_at(out) == (1, 2, "Bo", "2C", "SK-15")


def test_sk15_void_must_trump_and_overtake_trump() -> None:
    out = check("svangknack", "KS 2C 3S", trump="H", hands={"Bo": ["7H"]})
    assert broken_at(out) == (1, 2, "Bo", "2C", "SK-15") and "seven of hearts" in out["reason"]
    # Cia is void in spades; Bo trumped with 7H; Cia must overtake with QH, not 4H.
    out = check("svangknack", "KS 7H 4H", trump="H", hands={"Cia": ["QH"]})
    assert broken_at(out) == (1, 3, "Cia", "4H", "SK-15")
    # Holding only a lower trump, Cia must still trump: 4H is legal.
    assert check("svangknack", "KS 7H 4H", trump="H", hands={"Cia": ["2D"]})["legal"]


def test_sk15_discard_when_void_of_suit_and_trumps() -> None:
    assert check("svangknack", "KS 2C 3D", trump="H", hands={"Bo": ["4D"], "Cia": ["5C"]})["legal"]


def test_sk15_trump_played_to_side_lead_does_not_lift_overtaking() -> None:
    # Decision: "higher" means higher than the best card of the suit led, even after a trump.
    out = check("svangknack", "9S 2H 5S", trump="H", hands={"Cia": ["KS"]})
    assert broken_at(out) == (1, 3, "Cia", "5S", "SK-15")


def test_sk15_trumf_i_andra() -> None:
    out = check("svangknack", "AS KS 2S | 5D", trump="H", hands={"Anna": ["3H"]})
    assert broken_at(out) == (2, 1, "Anna", "5D", "SK-15") and "trumf i andra" in out["reason"]
    # Without a trump the winner leads anything; trick 3 lead is free.
    assert check("svangknack", "AS KS 2S | 5D", trump="H", hands={"Anna": ["3C"]})["legal"]
    assert check("svangknack", "AS KS 2S | 5H 9H QH | 3D", trump="H", hands={"Anna": ["4H"]})["legal"]


def test_sk15_farg_all_cards_one_suit_below_led_card_is_never_forced() -> None:
    # Cia's remaining cards are all clubs, none beats the led KC: any of them is legal.
    assert check("svangknack", "KC 2H 3C", trump="H", hands={"Cia": ["4C"]})["legal"]


def test_sk15_partial_deal_later_card_unknown_gets_benefit_of_doubt() -> None:
    # Bo's 5S under 9S: his other cards are not yet known, so nothing is proved.
    out = check("svangknack", "9S 5S")
    assert out["legal"] and out["round"] is None and out["winners"] == []


# --- KU-3 ------------------------------------------------------------------------


def test_ku3_no_trumps_forced_overtaking() -> None:
    out = check("kul", "9S 2H 5S", trump=None, hands={"Cia": ["KS"]})
    # A heart is no trump in Kul: 9S still wins, Cia had to beat 9S with KS.
    assert broken_at(out) == (1, 3, "Cia", "5S", "KU-3")
    assert check("kul", "9S 2H 10S", trump=None)["legal"]


def test_ku3_void_may_discard_and_last_trick_round() -> None:
    # Bo is void in spades all deal and discards hearts.
    out = check("kul", "AS 2H | KS 3H | QS 4H | JS 5H | 10S 6H", trump=None, players=["Anna", "Bo"])
    assert out["legal"] and out["round"] == {"last_trick": "Anna"}
    assert tr.verdict_json(tr.judge(tr.parse_deal(req("kul", "AS 2H 3H", trump=None))))["round"] is None


def test_ku3_trump_field_refused() -> None:
    with pytest.raises(BadInput) as e:
        tr.parse_deal(req("kul", "AS 2H 3H", trump="H"))
    assert e.value.field == "trump"


# --- SL-14 and SL-2 --------------------------------------------------------------


def test_sl2_trick_strength_jack_and_nine_of_trumps() -> None:
    out = check("schloapfer", "AH JH 9H", trump="H", players=P3)
    assert out["winners"] == ["Bo"]
    out = check("schloapfer", "AH 9H KH", trump="H")
    assert out["winners"] == ["Bo"]
    out = check("schloapfer", "10S JS 6H", trump="H")
    assert out["winners"] == ["Cia"]


def test_sl14_trumps_led_must_follow() -> None:
    out = check("schloapfer", "AH 7S KH", trump="H", hands={"Bo": ["8H"]})
    assert broken_at(out) == (1, 2, "Bo", "7S", "SL-14")


def test_sl14_trump_jack_never_forced() -> None:
    assert check("schloapfer", "AH 7S KH", trump="H", hands={"Bo": ["JH"]})["legal"]
    out = check("schloapfer", "AH 7S KH", trump="H", hands={"Bo": ["JH", "6H"]})
    assert broken_at(out)[4] == "SL-14" and "six of hearts" in out["reason"]


def test_sl14_side_led_follow_or_trump() -> None:
    out = check("schloapfer", "AS 7D KS", trump="H", hands={"Bo": ["6S"]})
    assert broken_at(out) == (1, 2, "Bo", "7D", "SL-14")
    assert check("schloapfer", "AS 7H KS", trump="H", hands={"Bo": ["6S"]})["legal"]  # trumping is allowed
    assert check("schloapfer", "AS 7D KS", trump="H", hands={"Bo": ["6C"]})["legal"]  # void: any card


def test_sl14_no_undertrumping_even_when_unable_to_follow() -> None:
    out = check("schloapfer", "AS KH 7H", trump="H", hands={"Cia": ["6C"]})
    assert broken_at(out) == (1, 3, "Cia", "7H", "SL-14") and "undertrump" in out["reason"]
    out = check("schloapfer", "AS KH 7H", trump="H", hands={"Cia": ["6S"]})
    assert broken_at(out) == (1, 3, "Cia", "7H", "SL-14")
    assert check("schloapfer", "AS KH AH", trump="H", hands={"Cia": ["6S"]})["legal"]


def test_sl14_only_trumps_exempt() -> None:
    assert check("schloapfer", "AS KH 7H", trump="H", hands={"Cia": ["6H"]})["legal"]


def test_sl14_trumps_led_lower_trump_is_following() -> None:
    assert check("schloapfer", "JH 6H 7H", trump="H", hands={"Bo": ["6S"]})["legal"]


def test_sl2_eyes_and_round() -> None:
    players = ["Anna", "Bo"]
    tricks = "JH 9H | AS 7S | AD 6D | AC 6C | KS 6S | 7D 10D"
    out = check("schloapfer", tricks, trump="H", players=players)
    assert out["legal"]
    # Anna: JH(20)+9H(14), AS, AD, AC (11 each), KS (4); Bo takes the last trick with 10D (10).
    assert out["eyes"] == {"Anna": 20 + 14 + 11 + 11 + 11 + 4, "Bo": 10}
    assert out["winners"] == ["Anna"] * 5 + ["Bo"]
    assert out["round"] == {"eyes": out["eyes"]}


# --- ask ---------------------------------------------------------------------------


def test_ask_may_bo_play_and_playable() -> None:
    out = check("svangknack", "9S", hands={"Bo": ["KS", "7D", "2S"]}, ask={"player": "Bo", "card": "7D"})
    assert broken_at(out) == (1, 2, "Bo", "7D", "SK-15") and out["playable"] == ["KS"]
    out = check("svangknack", "9S", hands={"Bo": ["KS", "7D"]}, ask={"player": "Bo", "card": "KS"})
    assert out["legal"] and out["round"] is None


def test_ask_trumf_i_andra_with_an_empty_trick_begun() -> None:
    # The winner of trick 1 asks to lead 5D to trick 2 while holding 3H (SK-15, trumf i andra).
    for tricks in ("AS KS 2S", "AS KS 2S | "):
        data = req("svangknack", tricks.replace("|", ""), hands={"Anna": ["3H", "5D"]},
                   ask={"player": "Anna", "card": "5D"})
        if tricks.endswith(" "):
            data["tricks"].append([])
        out = tr.verdict_json(tr.judge(tr.parse_deal(data)))
        assert broken_at(out) == (2, 1, "Anna", "5D", "SK-15") and out["playable"] == ["3H"]
        assert out["winners"] == ["Anna"]


def test_ask_not_their_turn_is_400() -> None:
    with pytest.raises(BadInput) as e:
        tr.parse_deal(req("svangknack", "9S", ask={"player": "Cia", "card": "7D"}))
    assert e.value.field == "ask"


# --- impossible input -----------------------------------------------------------


@pytest.mark.parametrize(("game", "tricks", "trump", "extra", "fld"), [
    ("svangknack", "AS KS AS", "H", {}, "tricks"),              # a card twice
    ("schloapfer", "5S KS AS", "H", {}, "tricks"),              # 5 is not in the 36-card deck
    ("svangknack", "AS KS 2S 3S", "H", {}, "tricks"),           # more cards than players
    ("svangknack", "AS KS", "H", {"leader": "Dan"}, "leader"),  # leader not playing
    ("svangknack", "AS KS | 2D", "H", {}, "tricks"),            # incomplete trick before the last
    ("svangknack", "AS KS 2S", "X", {}, "trump"),
    ("svangknack", "AS", "H", {"hands": {"Bo": ["AS"]}}, "tricks"),
])
def test_impossible_input_is_bad_input(game: str, tricks: str, trump: str, extra: dict[str, Any],
                                       fld: str) -> None:
    with pytest.raises(BadInput) as e:
        tr.parse_deal(req(game, tricks, trump, **extra))
    assert e.value.field == fld


# --- property tests: an independent oracle ----------------------------------------

ORDER = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SL_SIDE = ["6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SL_TRUMP = ["6", "7", "8", "10", "Q", "K", "A", "9", "J"]


def o_rank(game: str, card: str, trump: str | None) -> int:
    r = card[:-1]
    if game == "schloapfer":
        return (SL_TRUMP if card[-1] == trump else SL_SIDE).index(r)
    return ORDER.index(r)


def o_winner(game: str, cards: list[str], trump: str | None) -> int:
    """Position of the winning card, written from SL-14/SK-15 alone."""
    def key(i: int) -> tuple[int, int]:
        c = cards[i]
        tier = 2 if trump and c[-1] == trump else 1 if c[-1] == cards[0][-1] else 0
        return tier, o_rank(game, c, trump)
    return max(range(len(cards)), key=key)


def o_legal(game: str, hand: list[str], before: list[str], trump: str | None, trick_no: int) -> list[str]:
    """The cards of a fully known hand that may be played, straight from the digests."""
    suit = lambda c: c[-1]  # noqa: E731
    if not before:
        if game == "svangknack" and trick_no == 2 and any(suit(c) == trump for c in hand):
            return [c for c in hand if suit(c) == trump]
        return list(hand)
    led = suit(before[0])
    if game == "schloapfer":
        if all(suit(c) == trump for c in hand):
            return list(hand)
        if led == trump:
            tr_ = [c for c in hand if suit(c) == trump]
            return tr_ if [c for c in tr_ if c[:-1] != "J"] else list(hand)
        best_t = max((o_rank(game, c, trump) for c in before if suit(c) == trump), default=-1)
        ok_trump = [c for c in hand if suit(c) == trump and o_rank(game, c, trump) > best_t]
        follow = [c for c in hand if suit(c) == led]
        if follow:
            return follow + ok_trump
        return [c for c in hand if suit(c) != trump] + ok_trump
    best = max(o_rank(game, c, trump) for c in before if suit(c) == led)
    same = [c for c in hand if suit(c) == led]
    higher = [c for c in same if o_rank(game, c, trump) > best]
    if higher:
        return higher
    if same:
        return same
    trumps = [c for c in hand if trump and suit(c) == trump]
    if not trumps:
        return list(hand)
    best_t = max((o_rank(game, c, trump) for c in before if suit(c) == trump), default=-1)
    over = [c for c in trumps if o_rank(game, c, trump) > best_t]
    return over or trumps


def play_random(game: str, n: int, seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A legal deal by random play; returns the request and every decision point."""
    rng = random.Random(seed)
    deck = [c.code for c in tr.DECKS[game]]
    deck.sort()
    rng.shuffle(deck)
    players = [f"P{i}" for i in range(n)]
    size = tr.HAND_SIZE[game]
    hands = {p: deck[i * size:(i + 1) * size] for i, p in enumerate(players)}
    trump = None if game == "kul" else rng.choice("SHDC")
    leader = rng.choice(players)
    tricks: list[list[str]] = []
    points: list[dict[str, Any]] = []
    winners: list[str] = []
    lead = leader
    for k in range(size):
        trick: list[str] = []
        start = players.index(lead)
        for i in range(n):
            p = players[(start + i) % n]
            legal = o_legal(game, hands[p], trick, trump, k + 1)
            points.append({"trick": k, "pos": i, "player": p, "hand": list(hands[p]), "legal": legal,
                           "before": list(trick), "done": [list(t) for t in tricks],
                           "hands": {q: list(h) for q, h in hands.items()}})
            card = rng.choice(legal)
            hands[p].remove(card)
            trick.append(card)
        lead = players[(start + o_winner(game, trick, trump)) % n]
        winners.append(lead)
        tricks.append(trick)
    data: dict[str, Any] = {"game": game, "players": players, "leader": leader, "tricks": tricks}
    if trump:
        data["trump"] = trump
    return {**data, "_winners": winners}, points


GAME_SIZES = st.sampled_from([("svangknack", 3), ("svangknack", 7), ("kul", 2), ("kul", 6),
                              ("schloapfer", 2), ("schloapfer", 4), ("schloapfer", 6)])


@settings(max_examples=150, deadline=None)
@given(GAME_SIZES, st.integers(0, 2**32))
def test_property_random_legal_deal_judged_legal_with_same_winners(gs: tuple[str, int], seed: int) -> None:
    data, _ = play_random(gs[0], gs[1], seed)
    expected = data.pop("_winners")
    out = tr.verdict_json(tr.judge(tr.parse_deal(data)))
    assert out["legal"], out
    assert out["winners"] == expected
    assert out["round"] is not None


@settings(max_examples=150, deadline=None)
@given(GAME_SIZES, st.integers(0, 2**32), st.randoms(use_true_random=False))
def test_property_one_illegal_card_is_caught_at_that_card(gs: tuple[str, int], seed: int,
                                                           rng: random.Random) -> None:
    data, points = play_random(gs[0], gs[1], seed)
    data.pop("_winners")
    breakable = [pt for pt in points if set(pt["hand"]) - set(pt["legal"])]
    if not breakable:
        return
    pt = rng.choice(breakable)
    bad = rng.choice(sorted(set(pt["hand"]) - set(pt["legal"])))
    tricks = [*pt["done"], [*pt["before"], bad]]
    hands = {q: h for q, h in pt["hands"].items() if h}
    hands[pt["player"]] = [c for c in pt["hand"] if c != bad]
    hands = {q: h for q, h in hands.items() if h}
    out = tr.verdict_json(tr.judge(tr.parse_deal({**data, "tricks": tricks, "hands": hands})))
    assert not out["legal"]
    assert (out["trick"], out["position"], out["player"], out["card"]) == (pt["trick"] + 1, pt["pos"] + 1,
                                                                         pt["player"], bad)
    # And asking the same question gives the oracle's playable cards.
    asked = {**data, "tricks": tricks[:-1] + ([pt["before"]] if pt["before"] else []),
             "hands": {**hands, pt["player"]: pt["hand"]}, "ask": {"player": pt["player"], "card": bad}}
    if not asked["tricks"] or asked["tricks"][-1] == []:
        asked["tricks"] = [t for t in asked["tricks"] if t]
    out = tr.verdict_json(tr.judge(tr.parse_deal(asked)))
    assert not out["legal"] and sorted(out["playable"]) == sorted(pt["legal"])
