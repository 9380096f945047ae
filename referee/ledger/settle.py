"""Settlement of a night: who pays whom, with the fewest possible payments.

Pure like the engine: no Flask, no database, no I/O. Amounts are ``int``
minor units; names are the keys of the balances mapping (a positive balance
won money and is paid, a negative one lost money and pays).

The minimum
-----------
Any plan's transfers split the players into groups that settle among
themselves; a group of ``k`` players needs at least ``k - 1`` transfers and
can always do with exactly ``k - 1`` (largest debtor pays largest creditor,
repeatedly: every transfer clears at least one of the two, the last clears
both). So the fewest transfers for ``n`` non-zero balances is ``n - g`` where
``g`` is the largest number of disjoint zero-sum groups partitioning them.

:func:`settle` finds ``g`` exactly:

1. Equal and opposite balances (``-x`` and ``+x``) are paired first: some
   optimal partition always has them as a group of two (exchange argument:
   if ``a`` sits in group ``A`` and ``-a`` in group ``B``, then ``{a, -a}``
   and ``A ∪ B − {a, -a}`` are as many zero-sum groups, and a group holding
   both plus others splits into more).
2. For the ``m`` balances left, a subset DP vectorised with numpy. Let
   ``P(X)`` be the most disjoint zero-sum groups inside the set ``X``. For a
   zero-sum set ``S`` with highest member ``h``: ``f(S) = 1 + P(S − {h})``
   (the group holding ``h`` takes whatever the other groups leave). Masks are
   handled in blocks by highest bit ``j``: ``P`` on ``{j} ∪ X`` is the maximum
   of ``P(X)`` and the subset-maximum (a sum-over-subsets pass) of ``f`` over
   the zero-sum sets containing ``j``. The full set never needs its own block,
   so the DP keeps ``2**(m-1)`` one-byte cells; time about ``m · 2**(m-2)``
   vectorised steps.
3. The groups are read back from ``P``: drop every member whose removal keeps
   the count (what is left is exactly a union of zero-sum groups), repeat.

Above :data:`EXACT_LIMIT` balances left after step 1 the search would take
too long (see ``bench/settle.py``), and a greedy plan is returned instead,
with ``exact=False`` and a ``note`` saying it is not proven minimal.

Stability: the balances are sorted by name before anything else, every tie
is broken by name, and the transfers are returned sorted by
``(payer, payee)``; the same balances in any order give the same plan.

Decisions where the brief was silent (also in the report):

- ``exact`` means "proven to have the fewest possible transfers"; the
  :func:`via_leader` plan is always ``exact=False`` (it is not searched).
- ``note`` is empty for an exact plan; otherwise one English sentence.
- :func:`via_leader` accepts a leader who has no balance in the mapping
  (a non-playing leader who acts as the bank); the leader's own balance is
  settled by everybody else's payments. Debts to the leader come first in
  the plan (collect, then pay out), each part sorted by name.
- Non-``int`` amounts (``bool`` included) raise ``TypeError``; a sum that is
  not zero raises ``ValueError``. Amounts too large for 64-bit sums are still
  searched exactly, with Python integers (slower, never wrong).
- The greedy fallback still pairs equal and opposite balances first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

#: Most non-zero balances (after pairing equal and opposite ones) searched
#: exactly; chosen from ``bench/settle.py`` on the 2-core target machine so
#: that an exact plan stays under 100 ms even when the machine is busy: about
#: 40-55 ms and 12 MB at this size (20 balances: about 5 ms); every further
#: balance doubles both (24: 80-115 ms, 25: about 160 ms).
EXACT_LIMIT = 23


@dataclass(frozen=True)
class Transfer:
    """``payer`` pays ``payee`` ``amount`` minor units (always > 0)."""

    payer: str
    payee: str
    amount: int

    def __post_init__(self) -> None:
        if self.amount <= 0:
            raise ValueError(f"a transfer needs a positive amount, not {self.amount}")
        if self.payer == self.payee:
            raise ValueError(f"{self.payer!r} cannot pay themselves")


@dataclass(frozen=True)
class Plan:
    """The transfers that settle a night.

    ``exact`` is true when the number of transfers is proven to be the
    smallest possible; ``note`` explains a plan that is not (empty otherwise).
    """

    transfers: tuple[Transfer, ...]
    exact: bool
    note: str


@dataclass(frozen=True)
class Explanation:
    """One transfer with the night balances behind it, for the web layer.

    Enough to say "Anna pays Bo 9,00 kr — Anna lost 12,00 kr, Bo won 9,00 kr":
    ``payer_balance`` is negative (lost) and ``payee_balance`` positive (won)
    for a plain plan; with :func:`via_leader` the leader's own balance may
    have either sign (or be 0 for a leader without a balance).
    """

    payer: str
    payee: str
    amount: int
    payer_balance: int
    payee_balance: int


def settle(balances: Mapping[str, int], *, limit: int = EXACT_LIMIT) -> Plan:
    """The plan with the fewest transfers that settles ``balances``.

    ``balances`` must add up to zero (else ``ValueError``). Zero balances take
    part in no transfer. Up to ``limit`` non-zero balances left after pairing
    equal and opposite ones the plan is exact; above it, greedy and marked so.

    >>> settle({"Anna": -1200, "Bo": 900, "Cia": 300, "Dan": 0}).transfers
    (Transfer(payer='Anna', payee='Bo', amount=900), Transfer(payer='Anna', payee='Cia', amount=300))
    """
    items = _validated(balances)
    nonzero = [(name, amount) for name, amount in items if amount != 0]
    transfers, rest = _pair_opposites(nonzero)
    if len(rest) > limit:
        transfers += _greedy(rest)
        note = (f"{len(nonzero)} players have a balance: too many to search for the fewest payments; "
                f"this plan is simple but not proven minimal.")
        return Plan(_sorted(transfers), exact=False, note=note)
    for group in _best_partition([amount for _, amount in rest]):
        transfers += _greedy([rest[i] for i in group])
    return Plan(_sorted(transfers), exact=True, note="")


def via_leader(balances: Mapping[str, int], leader: str) -> Plan:
    """The plan where everyone pays ``leader`` or is paid by ``leader``.

    One transfer per other player with a non-zero balance; the leader may be
    absent from ``balances`` (a non-playing leader acting as the bank).
    """
    items = _validated(balances)
    if not isinstance(leader, str):
        raise TypeError("leader must be a name")
    pay_in = [Transfer(name, leader, -amount) for name, amount in items if name != leader and amount < 0]
    pay_out = [Transfer(leader, name, amount) for name, amount in items if name != leader and amount > 0]
    note = f"Everyone settles with {leader}; this plan is not searched for the fewest payments."
    return Plan(tuple(pay_in + pay_out), exact=False, note=note)


def explain(plan: Plan, balances: Mapping[str, int]) -> tuple[Explanation, ...]:
    """Each transfer of ``plan`` with the night balances of payer and payee.

    A name missing from ``balances`` (only a non-playing leader) counts as 0.
    """
    return tuple(Explanation(t.payer, t.payee, t.amount, balances.get(t.payer, 0), balances.get(t.payee, 0))
                 for t in plan.transfers)


# ---------------------------------------------------------------- internals


def _validated(balances: Mapping[str, int]) -> list[tuple[str, int]]:
    """The balances as ``(name, amount)`` sorted by name; checks types and sum."""
    items: list[tuple[str, int]] = []
    for name, amount in balances.items():
        if not isinstance(name, str):
            raise TypeError(f"names must be text, not {name!r}")
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise TypeError(f"the balance of {name} must be an int of minor units, not {amount!r}")
        items.append((name, int(amount)))
    items.sort()
    total = sum(amount for _, amount in items)
    if total != 0:
        raise ValueError(f"balances must add up to zero, they add up to {total}")
    return items


def _sorted(transfers: Iterable[Transfer]) -> tuple[Transfer, ...]:
    return tuple(sorted(transfers, key=lambda t: (t.payer, t.payee, t.amount)))


def _pair_opposites(items: list[tuple[str, int]]) -> tuple[list[Transfer], list[tuple[str, int]]]:
    """Pair equal and opposite balances (in name order); return their transfers and the rest."""
    by_amount: dict[int, list[str]] = {}
    for name, amount in items:
        by_amount.setdefault(amount, []).append(name)
    paired: set[str] = set()
    transfers: list[Transfer] = []
    for amount, creditors in by_amount.items():
        if amount > 0:
            for debtor, creditor in zip(by_amount.get(-amount, []), creditors, strict=False):
                transfers.append(Transfer(debtor, creditor, amount))
                paired.update((debtor, creditor))
    return transfers, [(name, amount) for name, amount in items if name not in paired]


def _greedy(items: list[tuple[str, int]]) -> list[Transfer]:
    """Largest debtor pays largest creditor, repeatedly (ties by name).

    For balances summing to zero this gives at most ``len(items) - 1``
    transfers, exactly that many for a group with no zero-sum part.
    """
    debts = {name: -amount for name, amount in items if amount < 0}
    credits = {name: amount for name, amount in items if amount > 0}
    transfers: list[Transfer] = []
    while debts and credits:
        debtor = min(debts, key=lambda n: (-debts[n], n))
        creditor = min(credits, key=lambda n: (-credits[n], n))
        amount = min(debts[debtor], credits[creditor])
        transfers.append(Transfer(debtor, creditor, amount))
        for book, name in ((debts, debtor), (credits, creditor)):
            book[name] -= amount
            if book[name] == 0:
                del book[name]
    if debts or credits:  # pragma: no cover - the callers pass zero-sum groups
        raise AssertionError("greedy settlement left money open")
    return transfers


def _best_partition(amounts: list[int]) -> list[list[int]]:
    """The most disjoint zero-sum groups partitioning ``amounts`` (as index lists).

    ``amounts`` are non-zero and add up to zero. See the module docstring.
    """
    m = len(amounts)
    if m == 0:
        return []
    nlow = m - 1  # P is kept for every subset of the members below the last one
    best = _most_groups(amounts, nlow)

    groups: list[list[int]] = []
    rest = (1 << m) - 1
    while rest:
        high = rest.bit_length() - 1
        inner = rest & ~(1 << high)
        target = int(best[inner])
        for e in range(high):  # drop every member not needed for `target` groups
            bit = 1 << e
            if inner & bit and int(best[inner ^ bit]) == target:
                inner ^= bit
        group = [i for i in range(m) if (rest & ~inner) >> i & 1]
        if sum(amounts[i] for i in group) != 0:  # pragma: no cover - would be a bug
            raise AssertionError("settlement search produced a group that does not add up to zero")
        groups.append(group)
        rest = inner
    return groups


def _most_groups(amounts: list[int], nlow: int) -> npt.NDArray[np.int8]:
    """``P[X]``: the most disjoint zero-sum groups inside ``X``, for ``X < 2**nlow``."""
    best = np.zeros(1 << nlow, dtype=np.int8)
    spread = sum(abs(a) for a in amounts)  # bounds every partial sum
    dtype = np.int32 if spread < 2**31 else np.int64 if spread < 2**62 else object
    sums: npt.NDArray[Any] = np.zeros(max(1, 1 << max(nlow - 1, 0)), dtype=dtype)
    for j in range(nlow):
        size = 1 << j
        low = best[:size]
        block = best[size:2 * size]
        zero = sums[:size] == -amounts[j]  # {j} ∪ X adds up to zero
        if zero.any():
            f = np.where(zero, low + 1, 0).astype(np.int8)  # f({j} ∪ X) = 1 + P(X)
            _subset_max(f, j)
            np.maximum(low, f, out=block)
        else:
            block[:] = low
        if j + 1 < nlow:
            np.add(sums[:size], amounts[j], out=sums[size:2 * size])
    return best


def _subset_max(values: npt.NDArray[np.int8], bits: int) -> None:
    """In place: ``values[X] = max(values[Y] for Y ⊆ X)`` (sum over subsets)."""
    for i in range(bits):
        half = 1 << i
        if half <= 16:  # short rows: one long strided pass per column is much faster
            rows = values.reshape(-1, 2 * half)
            for c in range(half):
                np.maximum(rows[:, half + c], rows[:, c], out=rows[:, half + c])
        else:
            view = values.reshape(-1, 2, half)
            np.maximum(view[:, 1, :], view[:, 0, :], out=view[:, 1, :])


__all__ = ["EXACT_LIMIT", "Explanation", "Plan", "Transfer", "explain", "settle", "via_leader"]
