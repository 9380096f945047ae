"""A group's season: its nights with their results, standings per currency, and what players brag about.

Reading only (part of the service layer). A night's result is what its
settlement calls the result: the sum of its matches' balances per player
(money still in a pot is not anybody's yet and is shown apart). Standings add
the nights up **per currency**: a night in EUR and one in SEK are never
added together. A player "took part" in a night when they played at least
one of its matches (someone seated only to settle a carried debt did not).

Nights are in calendar order: their date (or, without one, the day they
were created), then creation order.

Brags per game (its spec's :attr:`~referee.engine.spec.GameSpec.brag` says
which), from the matches' states (and, for Knaker, the fold of the log kept
by :mod:`referee.ledger.fold`):

- Kul: pots won (the Kul won, KU-4, or a pot the leader awarded, SK-14);
- Schloapfer: matches lost (the match's loser);
- Schwimmen: wins (the winner, or each of the winners surviving together);
- Knaker: games played, first places, the mean place, and dots taken.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date as Date

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from referee.engine.spec import SPECS, Brag
from referee.ledger import fold, tournament_money
from referee.ledger.inputs import POT_PARTY
from referee.models import Group, Match, Night, NightPlayer, Payment, db


@dataclass
class Standing:
    result: int = 0
    nights: int = 0
    matches: int = 0


@dataclass
class NightRow:
    night: Night
    day: Date
    result: dict[str, int]           # the night's players, in night order
    pots: int                        # money still in pots (open matches, carried pots)
    played: dict[str, int]           # matches played per player


@dataclass
class Brags:
    """Per game, per player: the counts shown on the group page."""

    kul_pots: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    schloapfer_lost: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    schwimmen_wins: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    knaker_games: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    knaker_firsts: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    knaker_place_sum: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    knaker_dots: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    played: dict[str, int] = field(default_factory=lambda: defaultdict(int))  # matches per game

    def knaker_mean(self, name: str) -> float:
        games = self.knaker_games.get(name, 0)
        return self.knaker_place_sum.get(name, 0) / games if games else 0.0


@dataclass
class Season:
    group: Group
    nights: list[NightRow]
    standings: dict[str, dict[str, Standing]]          # currency -> player -> standing
    order: list[str]                                    # every player of the group, in group order
    brags: Brags

    def currencies(self) -> list[str]:
        return list(self.standings)

    def nights_in(self, currency: str) -> list[NightRow]:
        return [row for row in self.nights if row.night.currency == currency]

    def running(self, currency: str) -> tuple[list[int], dict[str, list[int]]]:
        """Each player's running total after each night of the currency (x 0 = before the first)."""
        rows = self.nights_in(currency)
        names = [n for n in self.order if n in self.standings.get(currency, {})]
        totals = dict.fromkeys(names, 0)
        series = {n: [0] for n in names}
        for row in rows:
            for n in names:
                totals[n] += row.result.get(n, 0)
                series[n].append(totals[n])
        return list(range(len(rows) + 1)), series

    def ranked(self, currency: str) -> list[tuple[str, Standing]]:
        table = self.standings.get(currency, {})
        return sorted(table.items(), key=lambda kv: (-kv[1].result, self.order.index(kv[0])))


def season(group: Group) -> Season:
    """The group's nights, standings per currency and brags (a few queries for the whole group, none per night)."""
    nights = list(db.session.scalars(
        select(Night).where(Night.group_id == group.id)
        .options(selectinload(Night.matches).joinedload(Match.snapshot),
                 selectinload(Night.seats).joinedload(NightPlayer.player))))
    nights.sort(key=lambda n: (n.date or n.created_at.date(), n.id))
    order = [p.name for p in group.players]
    rows: list[NightRow] = []
    standings: dict[str, dict[str, Standing]] = {}
    brags = Brags()
    for night in nights:
        row = _night_row(night, brags)
        rows.append(row)
        table = standings.setdefault(night.currency, {})
        for name, amount in row.result.items():
            if name not in table and not row.played.get(name):
                continue  # seated, never played, no result yet: not in the standings
            st = table.setdefault(name, Standing())
            st.result += amount
            st.matches += row.played.get(name, 0)
            st.nights += 1 if row.played.get(name) else 0
    standings = {cur: table for cur, table in standings.items() if table}  # nights where nobody played yet
    for name in (n for table in standings.values() for n in table):
        if name not in order:
            order.append(name)
    return Season(group=group, nights=rows, standings=standings, order=order, brags=brags)


def _night_row(night: Night, brags: Brags) -> NightRow:
    result = dict.fromkeys(night.player_names, 0)
    played: dict[str, int] = defaultdict(int)
    pots = 0
    for match in night.matches:
        state = fold.stored_fields(match)
        for name, amount in zip(state.players, state.balances, strict=True):
            result[name] = result.get(name, 0) + amount
            played[name] += 1
        pots += state.pot - getattr(state, "carried_in", 0)
        _brag(match, state, brags)
    for row in db_prizes(night):  # a tournament's fees and prizes are part of the night's result
        for party, amount in tournament_money.moves(row):
            if party == POT_PARTY:
                pots += amount  # the pool, until the prizes are paid out of it
            else:
                result[party] = result.get(party, 0) + amount
    return NightRow(night=night, day=night.date or night.created_at.date(), result=result, pots=pots,
                    played=dict(played))


def db_prizes(night: Night) -> list[Payment]:
    """The night's tournament fee and prize rows (not void), as the settlement counts them."""
    return list(db.session.scalars(select(Payment).where(
        Payment.night_id == night.id, Payment.kind.in_(tournament_money.RESULT_KINDS), Payment.void.is_(False))))


def _brag(match: Match, state: object, brags: Brags) -> None:
    """Count the match in ``brags``: its game's spec says what its season counts (:class:`Brag`)."""
    brags.played[match.game] += 1
    _BRAGS[SPECS[match.game].brag](match, state, brags)


def _pots_won(match: Match, state: object, brags: Brags) -> None:
    players = getattr(state, "players", ())
    winner = getattr(state, "winner", None)
    if winner is None and getattr(state, "closed_how", None) == "award":
        winner = getattr(state, "closed_to", None)
    if winner is not None:
        brags.kul_pots[players[winner]] += 1


def _matches_lost(match: Match, state: object, brags: Brags) -> None:
    players = getattr(state, "players", ())
    loser = getattr(state, "loser", None)
    if loser is not None:
        brags.schloapfer_lost[players[loser]] += 1


def _wins(match: Match, state: object, brags: Brags) -> None:
    players = getattr(state, "players", ())
    winners = getattr(state, "winners", None) or ()
    winner = getattr(state, "winner", None)
    for seat in set(winners) | ({winner} if winner is not None else set()):
        brags.schwimmen_wins[players[seat]] += 1


def _places(match: Match, state: object, brags: Brags) -> None:
    hist = fold.history(match)
    for game in hist.game_results:
        for seat, name in enumerate(hist.players):
            brags.knaker_games[name] += 1
            brags.knaker_place_sum[name] += game.places[seat]
            brags.knaker_firsts[name] += 1 if game.places[seat] == 1 else 0
            brags.knaker_dots[name] += game.dots[seat]
    for seat, name in enumerate(hist.players):
        brags.knaker_dots[name] += hist.open_dots[seat] if hist.open_dots else 0


def _nothing(match: Match, state: object, brags: Brags) -> None:
    """Svängknack: only the matches played count."""


#: What each kind of brag counts; every :class:`Brag` has one (a new kind without one is a ``KeyError`` in tests).
_BRAGS: dict[Brag, Callable[[Match, object, Brags], None]] = {
    Brag.POTS_WON: _pots_won, Brag.MATCHES_LOST: _matches_lost, Brag.WINS: _wins, Brag.PLACES: _places,
    Brag.NONE: _nothing}
