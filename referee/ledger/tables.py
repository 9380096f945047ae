"""Table tokens of a tournament (issue 30): the edit right for one table's match only.

A table token is looked up by its ``token_key`` (as the nights' tokens) and
compared in constant time. It opens its table while that table's series is
the tournament's current one and the tournament is not finished. The
organiser revokes one table's token (a new one replaces it) or, with the
night's revoke, every table's at once.

A table's match is final, for every token, once the next series has been
drawn from it or the tournament is finished (:func:`refuse_if_final`): the
next draw was made from its result, or the standings it adds up to were
paid out as the prize rows, so a void, a round, a close or a correction
there would make the draw, the standings and the money disagree. It is the
one check every change to a match makes first, under the night's lock, and
``next`` draws under the same lock: a void sent with ``next`` is either in
before the draw (``next`` then finds its table playing) or refused after it
(issue 43.1: both succeeded, 5 of 12 tries on SQLite, 8 of 12 on PostgreSQL).
"""

from __future__ import annotations

import hmac
from collections.abc import Collection

from sqlalchemy import bindparam, select, update

from referee.engine import N_, Explained
from referee.ledger import live
from referee.ledger.tx import lock_nights, writing
from referee.models import Match, Tournament, TournamentTable, db, new_token, token_key


class Final(Explained):
    """A change to a table whose result is final (409): the next series was drawn from it, or the prizes paid.

    ``message`` is a template with ``params`` (the tournament's name, the
    series), as for the engine's errors, so the phone reads it in its language.
    """

    def __init__(self, tournament: Tournament, series: int) -> None:
        if tournament.finished:
            super().__init__(N_("%(name)s is finished and its prizes are paid out, so this table's rounds are "
                                "final: nothing can be entered, voided or closed here any more."),
                             {"name": tournament.name})
        else:
            super().__init__(N_("Series %(next)s of %(name)s has been drawn from this table's result, so the "
                                "rounds of series %(series)s are final: nothing can be entered, voided, "
                                "corrected or closed here any more."),
                             {"name": tournament.name, "series": series, "next": tournament.current_series})
        self.tournament_id = tournament.id


def table_of_match(match_id: int) -> TournamentTable | None:
    """The tournament table (of any series) this match is, or None for a night's ordinary match."""
    table: TournamentTable | None = db.session.scalar(
        select(TournamentTable).where(TournamentTable.match_id == match_id))
    return table


def refuse_if_final(match: Match, *, lock: bool = True) -> None:
    """:class:`Final` if the match is a tournament table whose series was drawn past, or of a finished one.

    The one check before any change to a match (a round, a void, a close, a
    correction), inside its write. With ``lock`` the night is locked first
    (:func:`referee.ledger.tx.lock_nights`; on SQLite the write's own lock
    is the night's), as ``next`` locks it, so a change racing the
    organiser's ``next`` is either in before the draw or refused after. A
    round needs no lock: it can only go to an open match, ``next`` draws only
    when every table is closed, and nothing reopens a table after the draw.
    """
    table = table_of_match(match.id)
    if table is None:
        return
    if lock:
        lock_nights(match.night_id)
    tourn = table.tournament
    db.session.refresh(tourn, ["finished", "current_series"])
    if tourn.finished or table.series < tourn.current_series:
        raise Final(tourn, table.series)


_tables, _tournaments = TournamentTable.__table__, Tournament.__table__
#: Which table a token opens now, as one Core row: the conditions of a live table token in one ``SELECT``,
#: built once.
_OPENS = (select(_tables.c.id, _tables.c.token, _tables.c.match_id, _tournaments.c.night_id)
          .join(_tournaments, _tournaments.c.id == _tables.c.tournament_id)
          .where(_tables.c.token_key == bindparam("key"), _tables.c.revoked.is_(False),
                 _tournaments.c.finished.is_(False), _tables.c.series == _tournaments.c.current_series))


def table_grant(token: str) -> tuple[int, int, int] | None:
    """(table, night, match) of the table a token opens now, or None (revoked, a past series, a finished tournament).

    Asked on every write of a table's leader (:func:`referee.ledger.rights.token_access`): loading the table
    and its tournament as objects was a tenth of a club evening's round entry (py-spy on
    ``bench/tournament.py``, both backends); one Core row is what the check needs.
    """
    if not token or len(token) > 64:
        return None
    row = db.session.execute(_OPENS, {"key": token_key(token)}).first()
    if row is None or not hmac.compare_digest(row.token.encode(), token.encode()):
        return None
    return int(row.id), int(row.night_id), int(row.match_id)


def table_by_token(token: str) -> TournamentTable | None:
    """The table a token opens now (:func:`table_grant`), or None."""
    grant = table_grant(token)
    return None if grant is None else db.session.get(TournamentTable, grant[0])


def held_tables_of_night(night_id: int, match_ids: Collection[int]) -> dict[int, tuple[TournamentTable, bool]]:
    """Of these matches, the night's tables not revoked, by match id, each with whether its token may still write.

    A table's link reads the night while it is not revoked (issue 45.3: the
    organiser's revoke, of the table or of the night, ends every right it
    gave) and writes to its match while it opens (:func:`table_grant`: the
    current series of a tournament not finished). One query whatever the
    number of matches (a phone's table grants, asked on every page).
    """
    if not match_ids:
        return {}
    found = db.session.execute(
        select(TournamentTable, Tournament.finished, Tournament.current_series)
        .join(Tournament, TournamentTable.tournament_id == Tournament.id)
        .where(TournamentTable.match_id.in_(sorted(set(match_ids))), Tournament.night_id == night_id,
               TournamentTable.revoked.is_(False)))
    return {table.match_id: (table, not finished and table.series == current) for table, finished, current in found}


def revoke_table(tournament: Tournament, table: TournamentTable) -> str:
    """A new token for the table: the old one (and every phone that opened it) can no longer write or read."""
    token = new_token()
    with writing():
        db.session.execute(update(TournamentTable).where(TournamentTable.id == table.id)
                           .values(token=token, token_key=token_key(token), revoked=False))
        live.note(tournament.night_id, "rights")  # streams opened with the old token end
    db.session.expire(table)
    return token

