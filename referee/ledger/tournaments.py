"""Tournaments in the ledger (issue 30): create one (a night, its players, the first series' tables), draw the next.

A tournament is a night whose matches are its tables, so rounds, voids,
closes, the live stream, the settlement and the exports are the night's.
This module writes the rows only the tournament has (the tournament, its
tables with their tokens); its money (the fees owed from the start, the
prizes at the finish) is :mod:`referee.ledger.tournament_money`'s. What is decided (seats,
rankings, standings, shares) is decided by :mod:`referee.engine.tournament`.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import date as Date
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select

from referee import bounds
from referee.engine import BadInput, MatchState
from referee.engine import tournament as draw
from referee.engine.records import dump, parse_options
from referee.engine.spec import SPECS, spec
from referee.engine.vocab import MatchStatus
from referee.ledger import fold, inputs, live, nights, ratelimit, ratings, standings, tournament_money, tx
from referee.ledger.idempotency import Idem
from referee.ledger.ratelimit import Caller
from referee.models import Group, Match, Night, Snapshot, Tournament, TournamentTable, db, now

#: The most players one tournament seats, and its series (the night's bounds: :mod:`referee.bounds`).
MAX_PLAYERS = bounds.NIGHT_PLAYERS
MAX_SERIES = bounds.SERIES
MAX_TABLE_SIZE = 16
MAX_SEED = 100
#: A series' time limit in minutes (``series_minutes``): a quarter of an hour's play at the least a club sets is
#: well above 1, and no series outlasts a night (12 hours).
MAX_SERIES_MINUTES = 720


class StillPlaying(Exception):
    """``next`` while tables of the series still play (409 with their numbers)."""

    def __init__(self, tables: list[int]) -> None:
        super().__init__("Some tables are still playing this series.")
        self.tables = tables


class Finished(Exception):
    """``next`` on a finished tournament (409)."""


def _int(value: object, field: str, default: int, low: int, high: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadInput(field, "%(field)s must be a whole number from %(low)s to %(high)s.",
                       field=field, low=low, high=high)
    return value


@dataclass(frozen=True)
class Plan:
    """A checked request to create a tournament: everything is valid before anything is written."""

    name: str
    currency: str
    game: str
    players: list[str]
    table_size: int
    series: int
    fmt: str
    advance: int
    stake: int
    options: Any
    entry_fee: int
    prizes: tuple[int, ...]
    seed: str
    seating: str = draw.Seating.DRAW
    series_minutes: int | None = None
    #: Who holds the pool and collects in the leader plan (``Night.leader``; a player or not), or "".
    leader: str = ""


def check(data: dict[str, Any]) -> Plan:
    """The request's fields checked (400 naming the field), the first draw made and every table started."""
    name = inputs.clean_name(data.get("name"), "name", inputs.MAX_TEXT)
    code = inputs.clean_currency(data.get("currency"))
    money = inputs.currency_money(code)
    game = data.get("game")
    if not isinstance(game, str) or game not in SPECS:
        raise BadInput("game", "game must be one of: %(games)s.", games=", ".join(SPECS))
    players = inputs.clean_players(data.get("players"), "players", MAX_PLAYERS)
    table_size = _int(data.get("table_size"), "table_size", 0, 1, MAX_TABLE_SIZE)
    if "table_size" not in data:
        raise BadInput("table_size", "%(field)s must be a whole number from %(low)s to %(high)s.",
                       field="table_size", low=1, high=MAX_TABLE_SIZE)
    fmt = data.get("format", draw.Format.SERIES)
    if fmt not in tuple(draw.Format):
        raise BadInput("format", "format must be series or knockout.")
    series = _int(data.get("series"), "series", 1, 1, MAX_SERIES)
    advance = _int(data.get("advance"), "advance", 1, 1, MAX_TABLE_SIZE)
    stake = 0 if data.get("stake") in (None, "") else money.parse(data["stake"], "stake")
    if stake < 0:
        raise BadInput("stake", "stake cannot be negative.")
    options = parse_options(spec(game).Options, data.get("options"))
    fee = 0 if data.get("entry_fee") in (None, "") else money.parse(data["entry_fee"], "entry_fee")
    if fee < 0:
        raise BadInput("entry_fee", "entry_fee cannot be negative.")
    prizes = draw.check_prizes(data.get("prizes", []), len(players))
    if fee and not prizes:
        raise BadInput("prizes", "An entry fee needs prizes to split the pool among.")
    seed = data.get("seed")
    if seed is None:
        seed = secrets.token_hex(8)
    if not isinstance(seed, str) or not 0 < len(seed) <= MAX_SEED:
        raise BadInput("seed", "seed must be text of 1 to %(n)s characters.", n=MAX_SEED)
    minutes = data.get("series_minutes")
    if minutes is not None:
        minutes = _int(minutes, "series_minutes", 0, 1, MAX_SERIES_MINUTES)
    seating = data.get("seating", draw.Seating.DRAW)
    if seating not in tuple(draw.Seating):
        raise BadInput("seating", "seating must be draw, standings or rating.")
    if seating == draw.Seating.STANDINGS and fmt == draw.Format.KNOCKOUT:
        raise BadInput("seating", "Seating by the standings is for the series format only.")
    if seating == draw.Seating.RATING and data.get("group_token") is None:
        raise BadInput("seating", "Seating by rating needs the group's ratings: create the tournament in a "
                                  "group (group_token).")
    minimum = spec(game).min_players
    if fmt == draw.Format.KNOCKOUT:
        plan = draw.knockout_plan(len(players), table_size, minimum, advance)
        series, tables = len(plan), sum(len(sizes) for sizes in plan)
    else:
        tables = len(draw.table_sizes(len(players), table_size, minimum)) * series
    if tables > bounds.NIGHT_MATCHES:
        raise BadInput("series", "%(players)s players at tables of %(size)s over %(series)s series play at "
                                 "%(tables)s tables, and one night holds at most %(n)s; choose fewer series or "
                                 "larger tables.", players=len(players), size=table_size, series=series,
                       tables=tables, n=bounds.NIGHT_MATCHES)
    leader = "" if data.get("leader") in (None, "") else inputs.clean_name(data["leader"], "leader")
    return Plan(name, code, game, players, table_size, series, str(fmt), advance, stake, options, fee, prizes,
                seed, str(seating), minutes, leader)


def create(plan: Plan, *, group: object = None, group_token: object = None, date: Date | None = None,
           place: object = "", language: object = None, idem: Idem | None = None,
           caller: Caller | None = None) -> Tournament:
    """The tournament's night with its players, and the first series' tables, in one write (``language``:
    the one it is created in, for its sheets, see ``Night.language``)."""
    lang = inputs.clean_language(language)
    place = "" if place in (None, "") else inputs.clean_name(place, "place", inputs.MAX_TEXT)
    group_name = inputs.clean_name(group, "group", inputs.MAX_TEXT) if group else plan.name
    if plan.seating == draw.Seating.RATING:  # read before the write: the ratings do not hold the writer
        rated = nights.group_by_token(group_token) if isinstance(group_token, str) else None
        if rated is None:
            raise tx.NotFound("No group has that token.")
        tables = _seats(plan.players, plan.seating, plan.fmt, plan.table_size, plan.game, plan.seed, 1, rated)
    else:
        tables = draw.draw(plan.players, plan.table_size, spec(plan.game).min_players, plan.seed, 1)
    states = [_start(plan.game, t.players, plan.stake, plan.options) for t in tables]  # 422 before any write
    with ratelimit.creating(caller, idem):
        if group_token is not None:
            grp = nights.group_by_token(group_token) if isinstance(group_token, str) else None
            if grp is None:
                raise tx.NotFound("No group has that token.")
        else:
            grp = Group(name=group_name)
            db.session.add(grp)
        night = Night(group=grp, name=plan.name, currency=plan.currency, date=date, place=place, leader=plan.leader,
                      language=lang)
        db.session.add(night)
        for pname in plan.players:
            nights.seat_player(night, pname)
        db.session.flush()
        tourn = Tournament(night=night, name=plan.name, game=plan.game, format=plan.fmt, series_count=plan.series,
                           current_series=1, table_size=plan.table_size, advance=plan.advance, stake=plan.stake,
                           options=dump(plan.options), entry_fee=plan.entry_fee, prizes=list(plan.prizes),
                           seed=plan.seed, seating=plan.seating, finished=False,
                           series_minutes=plan.series_minutes, series_started_at=now())
        db.session.add(tourn)
        db.session.flush()
        tournament_money.charge_fees(tourn, plan.players)  # owed from the start (issue 43.4)
        _seat_tables(tourn, night, tables, states, 1)
        tx.store_reply(idem, tourn)
    return tourn


def _seats(players: list[str], seating: str, fmt: str, table_size: int, game: str, seed: str, series: int,
           group: Group, tourn: Tournament | None = None) -> tuple[draw.Table, ...]:
    """A series' tables as the tournament's ``seating`` says: the draw, or by strength (:func:`draw.by_strength`):
    the group's ratings of the game as they are now (``rating``), or the standings so far (``standings``)."""
    minimum = spec(game).min_players
    if seating == draw.Seating.RATING:
        strength = {name: (value,) for name, value in ratings.of_game(group, game).items()}
    elif seating == draw.Seating.STANDINGS and tourn is not None and series > 1:
        strength = {row.player: (float(-row.place),) for row in standings.standings(tourn)}
    else:
        return draw.draw(players, table_size, minimum, seed, series)
    return draw.by_strength(players, strength, table_size, minimum, seed, series,
                            spread=fmt == draw.Format.KNOCKOUT)


def _start(game: str, seats: tuple[str, ...], stake: int, options: Any) -> MatchState:
    """A table's first state: its first seat deals first, no pot carried in."""
    return fold.start_state(spec(game), seats, seats[0], stake, options)


def _seat_tables(tourn: Tournament, night: Night, tables: tuple[draw.Table, ...], states: list[MatchState],
                 series: int) -> None:
    """Inside a write: one match per table (its first seat deals first) and the table's row with its token."""
    for table, state in zip(tables, states, strict=True):
        match = Match(night_id=night.id, game=tourn.game, seats=list(table.players), first_dealer=table.players[0],
                      stake=tourn.stake, options=tourn.options, carried_in=0)
        db.session.add(match)
        db.session.flush()
        db.session.add(Snapshot(match_id=match.id, version=0, next_seq=1, state=dump(state)))
        db.session.add(TournamentTable(tournament=tourn, series=series, number=table.number, match=match))
        live.note(night.id, "match", match.id)
    db.session.flush()
    db.session.expire(night, ["matches"])


def get(tournament_id: int) -> Tournament:
    tourn = db.session.get(Tournament, tournament_id)
    if tourn is None:
        raise tx.NotFound(f"There is no tournament {tournament_id}.")
    return tourn


def of_night(night_id: int) -> Tournament | None:
    """The tournament whose night this is, or None for a night of its own (its export and import, issue 43.6)."""
    found: Tournament | None = db.session.scalar(select(Tournament).where(Tournament.night_id == night_id))
    return found


def locked(tournament_id: int) -> Tournament:
    """Inside a write: the tournament read again after its night's lock (what another write, ``next`` or a
    late registration, may just have changed), so every change to it is decided on what is stored."""
    tourn = get(tournament_id)
    tx.lock_nights(tourn.night_id)
    db.session.refresh(tourn)
    return tourn


def current_tables(tourn: Tournament, tables: list[TournamentTable] | None = None) -> list[TournamentTable]:
    """The current series' tables, with their matches (one query; none with ``tables``, every series' read)."""
    return [t for t in (standings.tables_of(tourn) if tables is None else tables) if t.series == tourn.current_series]


def ends_at(tourn: Tournament) -> datetime | None:
    """When the current series' time is up (naive UTC), or ``None`` without a limit or once finished.

    It decides nothing (API.md ``series_minutes``): the hall counts down to it and shows a table still playing
    after it as late; the tables go on and ``next`` waits for them as ever.
    """
    if tourn.series_minutes is None or tourn.series_started_at is None or tourn.finished:
        return None
    return tourn.series_started_at + timedelta(minutes=tourn.series_minutes)


def _is_last(tourn: Tournament, tables: list[TournamentTable]) -> bool:
    if tourn.format == draw.Format.KNOCKOUT:
        return len(tables) == 1
    return tourn.current_series >= tourn.series_count


def next_series(tournament_id: int, *, idem: Idem | None = None) -> Tournament:
    """The next series' tables, or, after the last series, the end: the prizes into the night.

    Checked and written under the night's lock, so two organisers' phones
    pressing "next" at once draw one series, and the other gets the 409 of
    the new series' tables still playing.
    """
    with tx.writing(idem=idem):
        tourn = locked(tournament_id)
        if tourn.finished:
            raise Finished("The tournament is finished.")
        tables = current_tables(tourn)
        playing = [t.number for t in tables if t.match.status != MatchStatus.CLOSED]
        if playing:
            raise StillPlaying(playing)
        if _is_last(tourn, tables) or not _draw_next(tourn, tables):
            tournament_money.finish(tourn)
        tx.store_reply(idem, tourn)
    return tourn


def _draw_next(tourn: Tournament, tables: list[TournamentTable]) -> bool:
    """The next series drawn from who goes on (knockout) or who is to be seated (series: those still in and the
    late players whose series has come; issue 43.2), read under the night's lock with the entries' rows.

    False, and nothing drawn, when withdrawals leave too few to seat it as the
    format needs (below the game's minimum, or a knockout that would no longer
    narrow): the tournament then ends with the standings as they are.
    """
    knockout = tourn.format == draw.Format.KNOCKOUT
    series = tourn.current_series + 1
    minimum = spec(tourn.game).min_players
    if knockout:
        gone = standings.left(tourn)
        going = [name for table in tables for name in standings.through(tourn, table, False, gone)]
    else:
        going = standings.to_seat(tourn, series)
    try:
        if knockout:
            draw.knockout_plan(len(going), tourn.table_size, minimum, tourn.advance)
        else:
            draw.table_sizes(len(going), tourn.table_size, minimum)
    except BadInput:
        return False
    drawn = _seats(going, tourn.seating, tourn.format, tourn.table_size, tourn.game, tourn.seed, series,
                   tourn.night.group, tourn)
    options = parse_options(spec(tourn.game).Options, tourn.options)
    states = [_start(tourn.game, t.players, tourn.stake, options) for t in drawn]
    tourn.current_series = series
    tourn.series_started_at = now()  # the clock of the hall's countdown starts with the draw (ends_at)
    _seat_tables(tourn, tourn.night, drawn, states, series)
    live.note(tourn.night_id, "tournament")
    db.session.expire(tourn, ["tables"])
    return True
