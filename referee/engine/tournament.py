"""Tournaments over several tables: the seat draw, the ranking at a table, standings and the prize split.

Pure arithmetic on names and integers (minor units), no database: the ledger
(:mod:`referee.ledger.tournaments`) stores what these functions decide and
feeds them the tables' match results. Everything random is a shuffle keyed
by ``f"{seed}:{series}:{what}"`` and SHA-256 (:class:`Draw`): the same in
every process and Python version (unlike ``hash()``, and unlike the engine's
forbidden ``random`` module, whose algorithms may change), so the same seed
and players give the same tables, series after series, on every server, and
each series gets a draw of its own.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from referee.engine import BadInput

#: Percent points the prizes must add up to.
WHOLE = 100


class Seating(StrEnum):
    """How the players of a series are seated (API.md "Tournaments", ``seating``)."""

    DRAW = "draw"            # the seeded draw, every series
    STANDINGS = "standings"  # series format, from series 2: by the standings, best together
    RATING = "rating"        # by the group's ratings of the game: best together, or spread in a knockout


class Format(StrEnum):
    """How players go on from one series to the next."""

    SERIES = "series"      # every player plays every series
    KNOCKOUT = "knockout"  # the best ``advance`` of each table go on


@dataclass(frozen=True)
class Table:
    """One table of one series: its number (from 1) and its players in seat order (the first deals first)."""

    number: int
    players: tuple[str, ...]


@dataclass(frozen=True)
class Standing:
    """One row of the standings: place as in sport (1, 2, 2, 4), the result and matches played."""

    player: str
    place: int
    result: int
    matches: int
    out_in_series: int | None = None


@dataclass(frozen=True)
class Prize:
    """What one player wins (minor units) for the place they reached."""

    player: str
    place: int
    amount: int


class Draw:
    """A seeded, reproducible shuffle: Fisher-Yates with each pick taken from SHA-256 of the key and step."""

    def __init__(self, key: str) -> None:
        self.key = key

    def below(self, step: int, n: int) -> int:
        """A number from 0 to ``n - 1`` for this key and step (256 bits: no bias worth the name)."""
        digest = hashlib.sha256(f"{self.key}:{step}".encode()).digest()
        return int.from_bytes(digest, "big") % n

    def shuffle(self, items: list[str]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i, i + 1)
            items[i], items[j] = items[j], items[i]


def _rng(seed: str, series: int, what: str) -> Draw:
    """The seeded shuffle of one decision."""
    return Draw(f"{seed}:{series}:{what}")


def table_sizes(players: int, table_size: int, minimum: int) -> tuple[int, ...]:
    """The fewest tables of at most ``table_size`` seats, sizes differing by at most one, larger first.

    Raises :class:`BadInput` on ``players`` when a table would fall below the
    game's ``minimum``.
    """
    if table_size < 1:
        raise BadInput("table_size", "table_size must be at least 1.")
    if players < max(minimum, 1):
        raise BadInput("players", "This game needs at least %(n)s players.", n=minimum)
    tables = -(-players // table_size)
    small, extra = divmod(players, tables)
    if small < minimum:
        raise BadInput("players", "%(players)s players cannot sit at tables of at most %(size)s "
                                  "with at least %(n)s at each.", players=players, size=table_size, n=minimum)
    return tuple(small + 1 if k < extra else small for k in range(tables))


def draw(players: Sequence[str], table_size: int, minimum: int, seed: str, series: int) -> tuple[Table, ...]:
    """The seat draw of one series: each player once, at the fewest tables as equal as possible.

    The players are sorted before they are shuffled, so the order they were
    named in does not change the draw; the same seed and players give the
    same tables, and another series another draw.
    """
    sizes = table_sizes(len(players), table_size, minimum)
    pool = sorted(players)
    _rng(seed, series, "seats").shuffle(pool)
    tables: list[Table] = []
    at = 0
    for number, size in enumerate(sizes, start=1):
        tables.append(Table(number, tuple(pool[at:at + size])))
        at += size
    return tuple(tables)


def by_strength(players: Sequence[str], strength: Mapping[str, tuple[float, ...]], table_size: int, minimum: int,
                seed: str, series: int, spread: bool) -> tuple[Table, ...]:
    """The seats of one series by strength (a larger tuple is stronger), the tables as :func:`draw` makes them.

    The players are first drawn (:func:`draw`'s shuffle); then ordered by
    strength, stably, so equal strengths keep the draw's order and players
    without one come after all who have one, in the draw's order. Together
    (``spread`` false, a series seated as a Preisskat seats by strength): the
    strongest ``k`` at table 1, the next at table 2, ... Spread (a knockout, as
    seeded draws do): the strongest at table 1, the next at table 2, ..., and
    round again, so the strongest meet as late as can be. At each table the
    players sit in the draw's order (the first deals first), not by strength.
    """
    sizes = table_sizes(len(players), table_size, minimum)
    pool = sorted(players)
    _rng(seed, series, "seats").shuffle(pool)
    ranked = sorted(pool, key=lambda name: (name not in strength, tuple(-v for v in strength.get(name, ()))))
    at: dict[str, int] = {}
    if spread:
        for k, name in enumerate(ranked):
            at[name] = k % len(sizes)
    else:
        start = 0
        for number, size in enumerate(sizes):
            at.update(dict.fromkeys(ranked[start:start + size], number))
            start += size
    return tuple(Table(number + 1, tuple(name for name in pool if at[name] == number))
                 for number in range(len(sizes)))


def knockout_plan(players: int, table_size: int, minimum: int, advance: int) -> tuple[tuple[int, ...], ...]:
    """The table sizes of every series of a knockout, the last one played at one table.

    Raises :class:`BadInput` on ``advance`` when a series would have a table
    of no more than ``advance`` players (nobody would go out) or a final
    table below the game's minimum.
    """
    if advance < 1:
        raise BadInput("advance", "advance must be at least 1.")
    plan: list[tuple[int, ...]] = []
    left = players
    while True:
        sizes = table_sizes(left, table_size, minimum)
        if len(sizes) == 1:
            plan.append(sizes)
            return tuple(plan)
        if advance >= min(sizes):
            raise BadInput("advance", "advance must be smaller than the smallest table (%(n)s).", n=min(sizes))
        plan.append(sizes)
        left = advance * len(sizes)
        if left < minimum:
            raise BadInput("advance", "Too few players would reach the final table; choose a larger advance.")


def places(scores: Sequence[tuple[str, tuple[int, ...]]]) -> list[tuple[str, int]]:
    """Players best first with places as in sport (1, 2, 2, 4); a larger score tuple is better.

    Equal scores share a place; among them the order is by name (stable for
    display, no meaning).
    """
    ordered = sorted(scores, key=lambda item: (tuple(-v for v in item[1]), item[0]))
    out: list[tuple[str, int]] = []
    for k, (name, score) in enumerate(ordered):
        place = out[-1][1] if k and ordered[k - 1][1] == score else k + 1
        out.append((name, place))
    return out


def schwimmen_ranking(players: Sequence[str], winner: str | None,
                      out_in_game: Mapping[str, int | None]) -> list[tuple[str, int]]:
    """A Schwimmen table: the winner, then the others by the game they went out in (later is better).

    ``out_in_game`` maps each player to the game number they lost their last
    life in, ``None`` for a player still in.
    """
    never = 1 << 30
    scores = []
    for name in players:
        out = out_in_game.get(name)
        scores.append((name, (1 if name == winner else 0, never if out is None else out)))
    return places(scores)


def score_ranking(players: Sequence[str], scores: Sequence[int]) -> list[tuple[str, int]]:
    """A table ranked by one number per player, larger better (Knaker's standings, the others' result)."""
    return places([(name, (score,)) for name, score in zip(players, scores, strict=True)])


def advancing(ranking: Sequence[tuple[str, int]], advance: int, seed: str, series: int,
              table: int) -> tuple[str, ...]:
    """The best ``advance`` players of a table's ranking; a tie at the cut is broken by the seeded draw."""
    sure = [name for name, place in ranking if place + _count_at(ranking, place) - 1 <= advance]
    if len(sure) >= advance:
        return tuple(sure[:advance])
    cut_place = next(place for name, place in ranking if name not in sure)
    tied = sorted(name for name, place in ranking if place == cut_place)
    _rng(seed, series, f"cut:{table}").shuffle(tied)
    return tuple(sure + tied[:advance - len(sure)])


def without(ranking: Sequence[tuple[str, int]], gone: Collection[str]) -> list[tuple[str, int]]:
    """A table's ranking without the players who left (issue 43.2), placed again as in sport: nobody who left
    goes through from a table, and the next best takes the place."""
    kept = [(name, place) for name, place in ranking if name not in gone]
    return [(name, 1 + sum(1 for _other, p in kept if p < place)) for name, place in kept]


def _count_at(ranking: Sequence[tuple[str, int]], place: int) -> int:
    return sum(1 for _name, p in ranking if p == place)


def series_standings(results: Mapping[str, int], matches: Mapping[str, int]) -> tuple[Standing, ...]:
    """Series format: by the sum of each player's match balances, equal sums sharing a place."""
    ranked = places([(name, (amount,)) for name, amount in results.items()])
    return tuple(Standing(name, place, results[name], matches.get(name, 0)) for name, place in ranked)


def knockout_standings(players: Sequence[str], out_in: Mapping[str, int | None],
                       table_place: Mapping[str, int], results: Mapping[str, int],
                       matches: Mapping[str, int], withdrew: Collection[str] = ()) -> tuple[Standing, ...]:
    """Knockout: by the series a player went out in (later is better, still in best), then their table's place.

    ``table_place`` is the player's place at their table in the series they
    went out in (or the last one they played, for the champion). ``withdrew``:
    who left in the series they went out in, ranked below everyone who went
    out in it at a table (API.md "Tournaments"; issue 43.2).
    """
    never = 1 << 30
    ranked = places([(name, (never if out_in.get(name) is None else int(out_in[name] or 0),
                             0 if name not in withdrew else -1, -table_place.get(name, 0))) for name in players])
    return tuple(Standing(name, place, results.get(name, 0), matches.get(name, 0), out_in.get(name))
                 for name, place in ranked)


def check_prizes(percentages: object, players: int) -> tuple[int, ...]:
    """The prize percentages: whole numbers, each positive, summing to 100, no more places than players."""
    if not isinstance(percentages, list) or not all(
            isinstance(p, int) and not isinstance(p, bool) for p in percentages):
        raise BadInput("prizes", "prizes must be a list of whole percentages.")
    if percentages and (any(p <= 0 for p in percentages) or sum(percentages) != WHOLE):
        raise BadInput("prizes", "The prize percentages must be positive and add up to 100.")
    if len(percentages) > players:
        raise BadInput("prizes", "There are more prizes than players.")
    return tuple(percentages)


def place_shares(pool: int, percentages: Sequence[int]) -> tuple[int, ...]:
    """Each place's share of the pool: rounded down, the minor units left over one each to the best places."""
    shares = [pool * p // WHOLE for p in percentages]
    left = pool - sum(shares)
    for k in range(left):
        shares[k % len(shares)] += 1
    return tuple(shares)


def prizes(standings: Sequence[Standing], pool: int, percentages: Sequence[int], seed: str) -> tuple[Prize, ...]:
    """Who wins what: players sharing a place share the prizes of the places they take up equally.

    What does not divide evenly among them goes one minor unit each to
    players picked by the seeded draw. Every unit of the pool is given out
    when there are prizes.
    """
    if not percentages or pool == 0:
        return ()
    shares = place_shares(pool, percentages)
    out: list[Prize] = []
    by_place: dict[int, list[str]] = {}
    for row in standings:
        by_place.setdefault(row.place, []).append(row.player)
    for place, names in sorted(by_place.items()):
        taken = shares[place - 1:place - 1 + len(names)]
        total = sum(taken)
        if not total:
            continue
        each, left = divmod(total, len(names))
        lucky = sorted(names)
        _rng(seed, place, "prize").shuffle(lucky)
        extra = set(lucky[:left])
        out.extend(Prize(name, place, each + (1 if name in extra else 0)) for name in names)
    return tuple(out)
