"""Money at the edges: decimal text in, integer minor units out, and back; pots shared exactly.

The games' tests use these helpers everywhere, but the edge cases of the
text itself (commas, signs, too many decimals, digits of other scripts,
floats) are pinned here once.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.engine import BadInput
from referee.engine.money import MAX_MINOR, Money, share, split

SEK, JPY, BHD = Money(2), Money(0), Money(3)


@pytest.mark.parametrize(("money", "text", "minor"), [
    (SEK, "12.50", 1250), (SEK, "12,50", 1250), (SEK, " 3 ", 300), (SEK, "0.05", 5), (SEK, "-1.5", -150),
    (SEK, 7, 700), (JPY, "500", 500), (BHD, "1.005", 1005), (SEK, "10000000000", MAX_MINOR),
])
def test_amounts_written_as_text_become_minor_units(money: Money, text: object, minor: int) -> None:
    assert money.parse(text) == minor


@pytest.mark.parametrize("text", [
    "12.505", "1.2.3", "", " ", "12 50", "+3", "1e3", "NaN", "Infinity", "٣", "３", "1٫5", "10000000000.01",
    "12.", ".5", 3.0, None, True, ["1"],
])
def test_anything_else_is_bad_input_naming_the_field(text: object) -> None:
    with pytest.raises(BadInput) as err:
        SEK.parse(text, "stake")
    assert err.value.field == "stake"


def test_yen_has_no_decimals() -> None:
    with pytest.raises(BadInput):
        JPY.parse("1.5")


@given(st.integers(-MAX_MINOR, MAX_MINOR), st.sampled_from([JPY, SEK, BHD]))
def test_format_and_parse_are_inverse(minor: int, money: Money) -> None:
    assert money.parse(money.format(minor)) == minor


@given(st.integers(0, 10**9), st.integers(1, 16))
def test_a_split_adds_up_and_differs_by_at_most_one(total: int, shares: int) -> None:
    parts = split(total, shares)
    assert sum(parts) == total and max(parts) - min(parts) <= 1 and list(parts) == sorted(parts, reverse=True)


def test_the_remainder_goes_from_the_dealers_left() -> None:
    # 10 öre among seats 0, 1, 3 of a 4-seat table, dealer at seat 1: order is 3, 0, 1 (the dealer last).
    assert share(10, [0, 1, 3], 4, dealer=1) == (3, 3, 0, 4)
