"""A group's skill ratings per game (issue 47): who plays best, whatever the stakes.

Reading only. Computed from the log, with two things kept in the process
(never in the database, so nothing kept can disagree with the log after a
void, a correction or an import): each finished match's ranking, under its
snapshot version, and each group's ratings after the contests last rated,
so a read after a match finishes rates that one match. bench/ratings.py: a
52-night season of 300 matches costs about 140 ms of CPU from the log
(Schwimmen's ranking folds each match's whole log), 8 ms kept; docs/speed.md.

Each finished match of the group's nights is one contest, ranked by the
game's own ranking of a table (:func:`referee.ledger.standings.table_ranking`,
the ranking a tournament uses: it compares the players within one match, so
the stake never matters), and the players' ratings are updated with the
``openskill`` library's Plackett-Luce model (Weng-Lin), with its defaults
(mu 25, sigma 25/3). The rating shown is the library's conservative
``ordinal()`` (mu - 3 sigma).

The order matters (a rating moves most on early matches), so it must be the
same on every server and after an export and import, which renumber every
row: :func:`played_order` sorts by what an export keeps, never by an id
across nights: the night's day (its date, or the day it was created), then
its creation time, then its name; within a night, the matches by creation
time, then the night's own order of them (an import keeps that order).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date as Date
from datetime import datetime

from openskill.models import PlackettLuce, PlackettLuceRating
from sqlalchemy import select

from referee.engine.vocab import MatchStatus
from referee.ledger import fold, standings
from referee.lru import LRU, MiB
from referee.models import Group, Match, Night, Snapshot, db

#: The model every rating is computed with: its defaults, the same on every server.
MODEL = PlackettLuce()


@dataclass
class Rated:
    """One player's rating in one game: the library's figures, matches rated, and the rating after each night."""

    player: str
    mu: float
    sigma: float
    matches: int = 0
    trend: list[float] = field(default_factory=list)
    nights: list[object] = field(default_factory=list)  # the night of each point of the trend

    def after(self, nights: Sequence[object]) -> list[float]:
        """The rating after each of ``nights`` (a game's, in order): 0 (mu - 3 sigma of a new player) before
        the player's first, and unchanged over a night they missed."""
        at = dict(zip(self.nights, self.trend, strict=True))
        out: list[float] = []
        for night in nights:
            out.append(at.get(night, out[-1] if out else 0.0))
        return out

    @property
    def rating(self) -> float:
        """The conservative figure, as the library gives it (``ordinal()``: mu - 3 sigma)."""
        return float(PlackettLuceRating(self.mu, self.sigma).ordinal())


def night_key(night: Night) -> tuple[Date, datetime, str]:
    """When a night was played, from what an export keeps: its day, its creation time, its name."""
    return (night.date or night.created_at.date(), night.created_at, night.name)


def played_order(nights: Iterable[Night]) -> list[Night]:
    """The nights in the order they were played (:func:`night_key`), whatever order they were read in."""
    return sorted(nights, key=night_key)


@dataclass(frozen=True)
class Contest:
    """One finished match to rate, as its place in the order played and what its kept ranking is filed under.

    Sorted by the night's :func:`night_key` (its id only between nights alike in all of that), then the
    match's creation time, then its id (an import keeps a night's matches in their order, so within a night
    the ids keep theirs).
    """

    night: tuple[Date, datetime, str]
    night_id: int
    created_at: datetime
    match_id: int
    game: str
    version: int

    def order(self) -> tuple[Date, datetime, str, int, datetime, int]:
        return (*self.night, self.night_id, self.created_at, self.match_id)


def contests(nights: Iterable[Night]) -> list[Contest]:
    """Every finished match of ``nights`` (loaded with their matches) in the order played."""
    return sorted((Contest(night_key(n), n.id, m.created_at, m.id, m.game, m.snapshot.version)
                   for n in nights for m in n.matches if m.status == MatchStatus.CLOSED), key=Contest.order)


class Rating:
    """Ratings per game being built, contest after contest (kept between reads: see :func:`ratings`)."""

    def __init__(self) -> None:
        self.games: dict[str, dict[str, Rated]] = {}
        self.last_night: dict[tuple[str, str], object] = {}
        #: Per game, the nights it was played in, in order (a chart's x axis).
        self.nights: dict[str, list[object]] = {}

    def add(self, game: str, night: object, ranking: Sequence[tuple[str, int]]) -> None:
        """One contest: ``ranking`` best first with places as in sport; ``night`` tells one night from the next
        (a point of a player's trend per night)."""
        if len(ranking) < 2:
            return
        table = self.games.setdefault(game, {})
        played = self.nights.setdefault(game, [])
        if not played or played[-1] != night:
            played.append(night)
        rows = [table.setdefault(name, Rated(name, MODEL.mu, MODEL.sigma)) for name, _place in ranking]
        teams = [[MODEL.rating(mu=row.mu, sigma=row.sigma)] for row in rows]
        after = MODEL.rate(teams, ranks=[float(place) for _name, place in ranking])
        for row, (new,) in zip(rows, after, strict=True):
            row.mu, row.sigma = float(new.mu), float(new.sigma)
            row.matches += 1
            if self.last_night.get((game, row.player)) == night and row.trend:
                row.trend[-1] = row.rating
            else:
                row.trend.append(row.rating)
                row.nights.append(night)
            self.last_night[(game, row.player)] = night

    def result(self) -> dict[str, list[Rated]]:
        """Each game's players best first (by rating, then name)."""
        return {game: sorted(table.values(), key=lambda r: (-r.rating, r.player))
                for game, table in sorted(self.games.items())}


#: A finished match's ranking under :func:`referee.ledger.fold.identity`, with the match's creation time and
#: snapshot version it was read at: every round, void or close changes the version, so a kept ranking is
#: never stale. Schwimmen's ranking folds the match's whole log (1.4 ms a match): without this, a season of
#: 100 Schwimmen matches cost 150 ms a read (bench/ratings.py).
_RANKINGS: LRU[tuple[str, int], tuple[datetime, int, list[tuple[str, int]]]] = LRU(20_000, budget=16 * MiB)
#: Per database and group: the contests (identity, creation time, version) rated last, and the ratings after
#: them. A read whose contests begin with those rates only the new ones (a match just finished, in the
#: season's last night); any other change (a void, a correction, a night dated earlier) rates all again.
_KEPT: LRU[tuple[str, int], tuple[tuple[object, ...], Rating]] = LRU(256, budget=16 * MiB)


def _kept_ranking(url: str, contest: Contest) -> list[tuple[str, int]] | None:
    kept = _RANKINGS.get((url, contest.match_id))
    return kept[2] if kept is not None and kept[:2] == (contest.created_at, contest.version) else None


def ranking(match: Match) -> list[tuple[str, int]]:
    """The match's ranking by its game (:func:`referee.ledger.standings.table_ranking`), kept as above."""
    key = fold.identity(match)
    kept = _RANKINGS.get(key)
    if kept is not None and kept[:2] == (match.created_at, match.snapshot.version):
        return kept[2]
    made = list(standings.table_ranking(match))
    _RANKINGS.put(key, (match.created_at, match.snapshot.version, made))
    return made


def ratings(nights: Iterable[Night]) -> dict[str, list[Rated]]:
    """Each game's ratings from the finished matches of ``nights`` (any order: they are sorted as played)."""
    nights = list(nights)
    found = {m.id: m for n in nights for m in n.matches}
    return table(contests(nights), lambda ids: {i: found[i] for i in ids}).result()


def table(played: Sequence[Contest], load: Callable[[list[int]], dict[int, Match]],
          keep: tuple[str, int] | None = None) -> Rating:
    """The ratings of the contests ``played`` (in order), with each game's nights; ``load`` gives the matches
    of the ids it is asked for (only those rated now).

    ``keep``: where to keep the result (:data:`_KEPT`), so the next read rates only what was added.
    """
    url = str(db.engine.url)
    keys = tuple((url, c.match_id, c.created_at, c.version, c.night) for c in played)
    kept = _KEPT.get(keep) if keep is not None else None
    done = 0
    built = Rating()
    if kept is not None and keys[:len(kept[0])] == kept[0]:
        done, built = len(kept[0]), copy.deepcopy(kept[1])
    new = [(c, _kept_ranking(url, c)) for c in played[done:]]
    matches = load([c.match_id for c, known in new if known is None])
    for contest, known in new:
        built.add(contest.game, contest.night_id, known if known is not None else ranking(matches[contest.match_id]))
    if keep is not None:
        _KEPT.put(keep, (keys, copy.deepcopy(built)))
    return built


def clear() -> None:
    """Forget every kept ranking and rating (tests, and the benchmark's figure from the log)."""
    _RANKINGS.clear()
    _KEPT.clear()


def group_contests(group: Group) -> list[Contest]:
    """The group's finished matches in the order played, read as plain rows (one query).

    Rows, not objects: a tournament player's own view shows their rating on every fetch, and loading every
    table's match and snapshot for it made that page's statements grow with the tables (a snapshot read
    without its state is read again, row by row, by the settlement of the same page).
    """
    rows = db.session.execute(
        select(Night.id, Night.date, Night.created_at, Night.name, Match.id, Match.created_at, Match.game,
               Snapshot.version)
        .join(Match, Match.night_id == Night.id).join(Snapshot, Snapshot.match_id == Match.id)
        .where(Night.group_id == group.id, Match.status == MatchStatus.CLOSED))
    return sorted((Contest((day or created.date(), created, name), nid, made, mid, game, version)
                   for nid, day, created, name, mid, made, game, version in rows), key=Contest.order)


def _matches(ids: list[int]) -> dict[int, Match]:
    """The matches of ``ids`` with their snapshots (a query per 500), for the rankings not kept yet."""
    out: dict[int, Match] = {}
    for at in range(0, len(ids), 500):
        out.update((m.id, m) for m in db.session.scalars(select(Match).where(Match.id.in_(ids[at:at + 500]))))
    return out


def group_table(group: Group) -> Rating:
    """The group's ratings, kept between reads (:func:`table`)."""
    return table(group_contests(group), _matches, keep=(str(db.engine.url), group.id))


def group_ratings(group: Group) -> dict[str, list[Rated]]:
    """The group's ratings per game (API.md "Groups", ``ratings``)."""
    return group_table(group).result()


def of_game(group: Group, game: str) -> dict[str, float]:
    """Each rated player's rating in ``game`` (a tournament's seating by rating)."""
    return {row.player: row.rating for row in group_ratings(group).get(game, [])}


def figure(value: float) -> str:
    """A rating as the API and the pages write it: two decimals, never ``-0.00``."""
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text

