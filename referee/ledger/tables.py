"""Table tokens of a tournament (issue 30): the edit right for one table's match only.

A table token is looked up by its ``token_key`` (as the nights' tokens) and
compared in constant time. It opens its table while that table's series is
the tournament's current one and the tournament is not finished: a table
of a series already drawn past cannot change the results the next draw
was made from (the organiser's edit token still can). The organiser
revokes one table's token (a new one replaces it) or, with the night's
revoke, every table's at once.

Once the tournament is finished its tables' matches are final
(:func:`refuse_if_final`): the standings they add up to have been paid out
as the prize rows, so a void, a round or a close there would make the
standings and the money disagree.
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
    """A change to a finished tournament's table (409): its standings were paid out as the prizes.

    ``message`` is a template with ``params`` (the tournament's name), as for
    the engine's errors, so the phone reads it in its language.
    """

    def __init__(self, tournament: Tournament) -> None:
        super().__init__(N_("%(name)s is finished and its prizes are paid out, so this table's rounds are final: "
                            "nothing can be entered, voided or closed here any more."), {"name": tournament.name})
        self.tournament_id = tournament.id


def table_of_match(match_id: int) -> TournamentTable | None:
    """The tournament table (of any series) this match is, or None for a night's ordinary match."""
    table: TournamentTable | None = db.session.scalar(
        select(TournamentTable).where(TournamentTable.match_id == match_id))
    return table


def refuse_if_final(match: Match, *, lock: bool = True) -> None:
    """:class:`Final` if the match is a table of a finished tournament.

    With ``lock`` (inside a write) the night is locked first
    (:func:`referee.ledger.tx.lock_nights`), as the tournament's finish locks
    it, so a void racing the organiser's last "next" is either in before the
    prizes are counted or refused after. A round needs no lock: it can only
    go to an open match, and a finished tournament's tables are all closed.
    """
    table = table_of_match(match.id)
    if table is None:
        return
    if lock:
        lock_nights(match.night_id)
    db.session.refresh(table.tournament, ["finished"])
    if table.tournament.finished:
        raise Final(table.tournament)


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

