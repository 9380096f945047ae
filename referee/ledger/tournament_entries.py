"""Players who come late or leave early (issue 43.2, API.md "Tournaments"): the organiser's two writes.

A late player (``series`` format only: a knockout's bracket is drawn at
creation) gets a :class:`~referee.models.TournamentEntry` whose
``joined_series`` is the next series; a player who withdraws gets (or their
row gets) ``left_series``, the series in play. Who is seated next, who goes
through and the standings read these rows (:mod:`referee.ledger.standings`).

Both writes take the night's lock and read the tournament again under it, as
``next`` does (:func:`referee.ledger.tournaments.next_series`): a
registration or a withdrawal sent at the moment the organiser draws the
next series is either in before the draw (the draw sees it) or after it (a
late player then joins the series after; a withdrawn player was seated
before the withdrawal's answer, and is not seated again). Never half of each.
"""

from __future__ import annotations

from sqlalchemy import select

from referee.engine import BadInput, Explained
from referee.engine import tournament as draw
from referee.ledger import inputs, live, nights, standings, tournament_money, tx
from referee.ledger import tournaments as tourneys
from referee.ledger.idempotency import Idem
from referee.models import Night, Tournament, TournamentEntry, db


class Refused(Explained):
    """A late registration the tournament cannot take (409): a knockout, its last series, or finished."""

    def __init__(self, template: str, **params: object) -> None:
        super().__init__(template, params)


def refuse_late(tourn: Tournament) -> None:
    """Why ``tourn`` takes no late player now (:class:`Refused`), if it does not: the rule every way of adding a
    player to a tournament's night follows (API.md: nobody is in the standings without having been seated)."""
    if tourn.finished:
        raise Refused("The tournament is finished.")
    if tourn.format == draw.Format.KNOCKOUT:
        raise Refused("A knockout takes no late players: its bracket was drawn when it was created.")
    if tourn.current_series >= tourn.series_count:
        raise Refused("The last series is being played: there is no series left to seat a late player in.")


def register(tournament_id: int, name: object, *, idem: Idem | None = None) -> TournamentEntry:
    """A late player: seated from the next series on, in the night (a group member or a new one) if not yet.

    One write: the entry, the night's seat and the entry fee, so a refused or
    failed registration leaves nothing.
    """
    pname = inputs.clean_player(name, "name")
    with tx.writing(idem=idem):
        tourn = tourneys.locked(tournament_id)
        refuse_late(tourn)
        fold = pname.casefold()
        if any(n.casefold() == fold for n in standings.entrants(tourn)):
            raise BadInput("name", "%(name)s already plays in this tournament.", name=repr(pname))
        night: Night = tourn.night
        known = next((n for n in night.player_names if n.casefold() == fold), None)
        if known is None:
            if len(night.seats) >= tourneys.MAX_PLAYERS:
                raise BadInput("name", "At most %(n)s players.", n=tourneys.MAX_PLAYERS)
            nights.seat_player(night, pname)
            known = pname
        entry = TournamentEntry(tournament=tourn, player=known, joined_series=tourn.current_series + 1)
        db.session.add(entry)
        tournament_money.charge_fee(tourn, known)  # she owes the fee from now on, in this write (issue 43.4)
        db.session.flush()
        live.note(night.id, "players")
        live.note(night.id, "tournament")
        tx.store_reply(idem, entry)
    return entry


def withdraw(tournament_id: int, name: str, *, idem: Idem | None = None) -> Tournament:
    """``name`` leaves: not seated again; in a knockout out in the series in play. A second tap changes nothing.

    A knockout player already out of it stays as they are (nothing to
    leave). The fee stays paid. 404 for a name that is not the tournament's,
    409 (:class:`referee.ledger.tournaments.Finished`) once it is finished.
    """
    with tx.writing(idem=idem):
        tourn = tourneys.locked(tournament_id)
        if tourn.finished:
            raise tourneys.Finished("The tournament is finished.")
        if name not in standings.entrants(tourn):
            raise tx.NotFound(f"Nobody called {name!r} plays in this tournament.")
        rows = standings.entries(tourn)
        entry = rows.get(name)
        still_in = tourn.format != draw.Format.KNOCKOUT or any(
            name in table.match.seats for table in tourneys.current_tables(tourn))
        if (entry is None or entry.left_series is None) and still_in:
            if entry is None:
                entry = TournamentEntry(tournament=tourn, player=name, joined_series=1)
                db.session.add(entry)
            entry.left_series = tourn.current_series
            db.session.flush()
            live.note(tourn.night_id, "tournament")
        tx.store_reply(idem, tourn)
    return tourn


def join_night(night: Night, name: object, *, idem: Idem | None = None) -> None:
    """A player added to a night by its own door (the night's page, ``POST /api/nights/<id>/players``): on a
    tournament's night, a late registration with its rule (:func:`register`, or :class:`Refused`), so that
    nobody is in a tournament's standings without having been seated; on any other night, a new player."""
    tourn = db.session.scalar(select(Tournament.id).where(Tournament.night_id == night.id))
    if tourn is None:
        nights.add_player(night, name, idem=idem)
    else:
        register(tourn, name, idem=idem)
