"""A group's skill ratings per game (issue 47): who plays best, whatever the stakes.

Reading only, computed from the log on every read (bench/ratings.py: a
52-night season of 300 matches is well within its 50 ms goal, and nothing
kept can disagree with the log after a void, a correction or an import).

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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date as Date
from datetime import datetime

from openskill.models import PlackettLuce, PlackettLuceRating
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from referee.engine.vocab import MatchStatus
from referee.ledger import standings
from referee.models import Group, Match, Night, db

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


def contests(nights: Iterable[Night]) -> list[tuple[Night, Match]]:
    """Every finished match of ``nights`` in the order played: nights by :func:`night_key`, then each night's
    matches by creation time (ties in the night's order)."""
    out: list[tuple[Night, Match]] = []
    for night in played_order(nights):
        ordered = sorted(enumerate(night.matches), key=lambda item: (item[1].created_at, item[0]))
        out.extend((night, match) for _k, match in ordered if match.status == MatchStatus.CLOSED)
    return out


def rate(ranked: Iterable[tuple[str, object, Sequence[tuple[str, int]]]]) -> dict[str, list[Rated]]:
    """Ratings per game from contests in order: ``(game, night, [(player, place), ...])``, places as in sport.

    ``night`` is anything that tells one night from the next (a point of a
    player's trend is added when the night changes). Each game's players
    come out best first (by rating, then name).
    """
    games: dict[str, dict[str, Rated]] = {}
    last_night: dict[tuple[str, str], object] = {}
    for game, night, ranking in ranked:
        if len(ranking) < 2:
            continue
        table = games.setdefault(game, {})
        rows = [table.setdefault(name, Rated(name, MODEL.mu, MODEL.sigma)) for name, _place in ranking]
        teams = [[MODEL.rating(mu=row.mu, sigma=row.sigma)] for row in rows]
        after = MODEL.rate(teams, ranks=[float(place) for _name, place in ranking])
        for row, (new,) in zip(rows, after, strict=True):
            row.mu, row.sigma = float(new.mu), float(new.sigma)
            row.matches += 1
            if last_night.get((game, row.player)) is night and row.trend:
                row.trend[-1] = row.rating
            else:
                row.trend.append(row.rating)
            last_night[(game, row.player)] = night
    return {game: sorted(table.values(), key=lambda r: (-r.rating, r.player)) for game, table in sorted(games.items())}


def ratings(nights: Iterable[Night]) -> dict[str, list[Rated]]:
    """Each game's ratings from the finished matches of ``nights`` (any order: they are sorted as played)."""
    return rate((match.game, night, standings.table_ranking(match)) for night, match in contests(nights))


def group_nights(group: Group) -> list[Night]:
    """The group's nights with their matches and snapshots (two queries, none per night)."""
    return list(db.session.scalars(select(Night).where(Night.group_id == group.id)
                                     .options(selectinload(Night.matches).joinedload(Match.snapshot))))


def group_ratings(group: Group) -> dict[str, list[Rated]]:
    """The group's ratings per game (API.md "Groups", ``ratings``)."""
    return ratings(group_nights(group))


def of_game(group: Group, game: str) -> dict[str, float]:
    """Each rated player's rating in ``game`` (a tournament's seating by rating)."""
    return {row.player: row.rating for row in group_ratings(group).get(game, [])}


def figure(value: float) -> str:
    """A rating as the API and the pages write it: two decimals, never ``-0.00``."""
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text

