"""Money as integers of minor units, and the splitting rules of the games.

Inside the engine every amount is an ``int`` of minor units (öre, cent).
Strings such as ``"12.50"`` exist only at the edges; :class:`Money` converts
between the two for a currency with a given number of minor-unit digits.
Never a float: ``parse`` works on the decimal text itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from referee.engine import BadInput

#: Largest amount accepted from outside, in minor units: far beyond any game
#: night, small enough that no sum of a night can overflow a 64-bit column.
MAX_MINOR = 10**12
#: Largest amount a match's state may hold, in minor units (a pot, a balance). The rules let a pot grow
#: without end (SK-9: each bet player pays the whole pot again; with forced participation two of five
#: players are bet every round, and the pot doubles), so a long match would reach amounts that no
#: 64-bit column, no settlement and no page could hold (a page's currency format failed past 28 digits).
MAX_AMOUNT = 10**15

_AMOUNT = re.compile(r"^(?P<sign>-?)(?P<whole>\d{1,13})(?:\.(?P<frac>\d+))?$", re.ASCII)  # "٣" is not 3 here


@dataclass(frozen=True)
class Money:
    """Conversion between minor units and decimal strings for one currency."""

    digits: int = 2

    def parse(self, text: object, field: str = "amount") -> int:
        """Parse ``"12.50"`` (or ``"12,50"``) into minor units.

        Raises :class:`referee.engine.BadInput` for anything that is not a
        decimal string with at most ``digits`` decimals, or is too large.
        Numbers given as JSON integers are accepted; floats never are.
        """
        if isinstance(text, bool) or not isinstance(text, (str, int)):
            raise BadInput(field, "%(name)s must be an amount written as text, like \"3.00\".", name=field)
        raw = str(text).strip().replace(",", ".")
        m = _AMOUNT.match(raw)
        if m is None:
            raise BadInput(field, "%(name)s is not an amount: %(text)s.", name=field, text=repr(str(text)[:40]))
        frac = m.group("frac") or ""
        if len(frac) > self.digits:
            raise BadInput(field, "%(name)s has more than %(digits)s decimals.", name=field, digits=self.digits)
        minor: int = int(m.group("whole")) * 10**self.digits + int(frac.ljust(self.digits, "0") or "0")
        if minor > MAX_MINOR:
            raise BadInput(field, "%(name)s is too large.", name=field)
        return -minor if m.group("sign") else minor

    def format(self, minor: int) -> str:
        """Minor units as the API's decimal string: ``1250 -> "12.50"``."""
        return _format(minor, self.digits)


@lru_cache(maxsize=4096)
def _format(minor: int, digits: int) -> str:
    """:meth:`Money.format`, kept: a protocol formats the same few balances tens of thousands of times."""
    sign = "-" if minor < 0 else ""
    whole, frac = divmod(abs(minor), 10**digits)
    if digits == 0:
        return f"{sign}{whole}"
    return f"{sign}{whole}.{frac:0{digits}d}"


def split(total: int, shares: int) -> tuple[int, ...]:
    """Split ``total`` minor units into ``shares`` parts as equal as possible.

    The remainder goes one unit each to the first parts; :func:`share` puts
    the parts in seat order from the dealer's left, the rule every game's
    digest names for leftover öre or cents. The parts always add up to
    ``total`` exactly.
    """
    if shares <= 0:
        raise ValueError("cannot split among no one")
    base, rest = divmod(total, shares)
    return tuple(base + 1 if k < rest else base for k in range(shares))


def share(total: int, seats: Iterable[int], n: int, dealer: int) -> tuple[int, ...]:
    """``total`` shared among ``seats`` of an ``n``-seat table, aligned with the seats.

    The remainder goes one unit each in seat order from the dealer's left
    (the dealer last): the rule every game's digest names for leftover öre or
    cents when a pot is shared (SK-14, SL-10, SW-9, KN-L).
    """
    chosen = set(seats)
    order = [seat for seat in ((dealer + 1 + k) % n for k in range(n)) if seat in chosen]
    amounts = [0] * n
    for seat, part in zip(order, split(total, len(order)), strict=True):
        amounts[seat] = part
    return tuple(amounts)


def pay(balances: tuple[int, ...], index: int, amount: int) -> tuple[int, ...]:
    """``balances`` with ``amount`` added to the player at ``index``."""
    return balances[:index] + (balances[index] + amount,) + balances[index + 1 :]


def add(balances: tuple[int, ...], amounts: tuple[int, ...]) -> tuple[int, ...]:
    """Element-wise sum of two aligned tuples of amounts."""
    return tuple(b + a for b, a in zip(balances, amounts, strict=True))


__all__ = ["MAX_AMOUNT", "MAX_MINOR", "Money", "add", "pay", "share", "split"]
