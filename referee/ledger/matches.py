"""Creating matches: a new match of a night, with the pot an earlier night carried to it (SK-14).

The only code that creates Match and Snapshot rows: :func:`create_match` for
a match started at the table, :func:`draft_match` and :func:`settle_draft`
for a match rebuilt from an export (:mod:`referee.ledger.imports`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, case, func, select
from sqlalchemy.exc import IntegrityError

from referee import bounds
from referee.engine import N_, BadInput, MatchState
from referee.engine.records import dump, parse_options
from referee.engine.spec import SPECS, Game, spec
from referee.engine.vocab import MatchStatus
from referee.ledger import fold, live, settings
from referee.ledger.carries import open_carry
from referee.ledger.idempotency import Idem
from referee.ledger.inputs import clean_players, night_money
from referee.ledger.tx import store_reply, writing
from referee.models import Match, Night, Snapshot, Tournament, TournamentTable, db

#: A night's matches, its events (rounds and closes, void ones too) and its open matches, in one query.
_NIGHT_LOAD = (select(func.count(), func.coalesce(func.sum(Snapshot.next_seq - 1), 0),
                      func.coalesce(func.sum(case((Match.status != MatchStatus.CLOSED, 1), else_=0)), 0))
               .select_from(Match).join(Snapshot, Snapshot.match_id == Match.id)
               .where(Match.night_id == bindparam("night_id")))

FULL_NIGHT = N_("This night holds %(n)s entries, the most a night may hold; start a new night to play on.")


def night_events_limit() -> int:
    """The most events one night may hold (the app's ``MAX_IMPORT_EVENTS``: so its export imports again)."""
    return settings.current().max_night_events


def check_night_room(night_id: int, *, closing: bool = False, new_match: bool = False) -> None:
    """A night at its bounds (:mod:`referee.bounds`) takes no more rounds or matches (:class:`BadInput`).

    A round is refused when it and a close for each of the night's open
    matches would pass the bound, so a table can always be closed (a
    tournament's "next" needs every table closed); a close only when it
    would pass the bound itself. Checked before the write, as a full match is: two phones at
    once may pass the last free places together (a handful past the bound,
    never the import's budget: the closes' reserve covers them).
    """
    matches, events, open_ = db.session.execute(_NIGHT_LOAD, {"night_id": night_id}).one()
    limit = night_events_limit()
    if new_match and int(matches) + _tables_to_come(night_id) >= bounds.NIGHT_MATCHES:
        raise BadInput("game", "This night has %(n)s matches, the most a night may hold; start a new night "
                               "to play on.", n=bounds.NIGHT_MATCHES)
    if int(events) + 1 + (0 if closing else int(open_)) > limit:  # (this event, and the open matches' closes)
        raise BadInput("round", FULL_NIGHT, n=limit)


def _tables_to_come(night_id: int) -> int:
    """The tables a running tournament of the night will still seat: room a match of its own may not take.

    As many a series as the current one has, for each series to come (a knockout's get fewer: room to
    spare). Why: its tables were counted against the bound when it was created, and its "next" cannot be
    refused halfway through.
    """
    tourn = db.session.scalar(select(Tournament).where(Tournament.night_id == night_id,
                                                       Tournament.finished.is_(False)))
    if tourn is None:
        return 0
    current = db.session.scalar(select(func.count()).select_from(TournamentTable).where(
        TournamentTable.tournament_id == tourn.id, TournamentTable.series == tourn.current_series)) or 0
    return int(current) * max(0, int(tourn.series_count) - int(tourn.current_series))


def create_match(night: Night, game: object, players: object, dealer: object, stake: object = None,
                 options: object = None, *, idem: Idem | None = None) -> Match:
    """A new match among players of the night; the engine checks the rules."""
    if not isinstance(game, str) or game not in SPECS:
        raise BadInput("game", "game must be one of: %(games)s.", games=", ".join(SPECS))
    rules = spec(game)
    seats = clean_players(players)
    known = {n.casefold(): n for n in night.player_names}
    for name in seats:
        if name.casefold() not in known:
            raise BadInput("players", "%(name)s is not a player of this night.", name=repr(name))
    seats = [known[n.casefold()] for n in seats]
    if not seats:
        raise BadInput("players", "A match needs players.")
    if dealer is None:
        dealer = seats[0]
    if not isinstance(dealer, str) or dealer.casefold() not in [s.casefold() for s in seats]:
        raise BadInput("dealer", "dealer must be one of the match's players.")
    dealer = known[dealer.casefold()]
    money = night_money(night)
    minor = 0 if stake in (None, "") else money.parse(stake, "stake")
    if minor < 0:
        raise BadInput("stake", "stake cannot be negative.")
    opts = parse_options(rules.Options, options)
    check_night_room(night.id, new_match=True)
    try:
        return _create_match(night, game, rules, seats, dealer, minor, opts, idem)
    except IntegrityError:
        # Another phone took the same carried pot a moment ago: start without it.
        db.session.rollback()
        return _create_match(night, game, rules, seats, dealer, minor, opts, idem)


def _create_match(night: Night, game: str, rules: Game, seats: list[str], dealer: str, minor: int, opts: Any,
                  idem: Idem | None) -> Match:
    carry = open_carry(night, game)
    carried_in = carry[1] if carry else 0
    state = fold.start_state(rules, seats, dealer, minor, opts, carried_in)  # RuleViolation: nothing stored
    with writing(idem=idem):
        match = Match(night_id=night.id, game=game, seats=seats, first_dealer=dealer, stake=minor,
                      options=dump(opts), carried_from_id=carry[0] if carry else None,
                      carried_in=carried_in)
        db.session.add(match)
        db.session.flush()
        db.session.add(Snapshot(match_id=match.id, version=0, next_seq=1, state=fold.snapshot_json(state)))
        db.session.flush()
        live.note(night.id, "match", match.id)
        store_reply(idem, match)
    return match


@dataclass
class EventIn:
    """An event of an imported log, checked by the reader of the file (:mod:`referee.exports`)."""

    seq: int
    kind: str
    payload: dict[str, Any]
    void: bool
    void_reason: str
    created_at: datetime
    deal: dict[str, Any] | None = None
    #: What the state gave the round when it was entered (issue 42), and a correction's place and mark.
    facts: dict[str, Any] | None = None
    corrects: int | None = None
    corrected_by: int | None = None
    voided_at: datetime | None = None


@dataclass
class MatchIn:
    """A match of an imported night, checked by the reader of the file (:mod:`referee.exports`)."""

    game: str
    seats: list[str]
    first_dealer: str
    stake: int
    options: dict[str, Any]
    carried_in: int
    status: str | None
    created_at: datetime
    events: list[EventIn] = field(default_factory=list)


def draft_match(night: Night, m_in: MatchIn) -> Match:
    """An imported match, not yet stored: it keeps its carried-in pot (the replay needs it) but no link."""
    return Match(night=night, game=m_in.game, seats=m_in.seats, first_dealer=m_in.first_dealer,
                 stake=m_in.stake, options=m_in.options, carried_in=m_in.carried_in,
                 carried_from_id=None, created_at=m_in.created_at)


def settle_draft(match: Match, number: int, m_in: MatchIn, state: MatchState) -> None:
    """The imported match's status and snapshot from its replayed ``state`` (never from the file).

    A file that says a match is closed (or open) when its log leaves it the
    other way is refused (:class:`BadInput`), before anything is written.
    """
    match.status = MatchStatus.CLOSED if state.finished else MatchStatus.OPEN
    if m_in.status is not None and m_in.status != match.status:
        raise BadInput(f"matches[{number - 1}].status",
                       f"Match {number} is {m_in.status} in the file but its log leaves it {match.status}.")
    voids = sum(1 for ev in m_in.events if ev.void)
    match.snapshot = Snapshot(version=len(m_in.events) + voids,
                              next_seq=(m_in.events[-1].seq if m_in.events else 0) + 1,
                              state=fold.snapshot_json(state))
