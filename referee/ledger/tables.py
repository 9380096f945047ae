"""Table tokens of a tournament (issue 30): the edit right for one table's match only.

A table token is looked up by its ``token_key`` (as the nights' tokens) and
compared in constant time. It opens its table while that table's series is
the tournament's current one and the tournament is not finished: a table
of a series already drawn past cannot change the results the next draw
was made from (the organiser's edit token still can). The organiser
revokes one table's token (a new one replaces it) or, with the night's
revoke, every table's at once.
"""

from __future__ import annotations

import hmac

from sqlalchemy import select, update

from referee.ledger import live
from referee.ledger.tx import writing
from referee.models import Tournament, TournamentTable, db, new_token, token_key


def table_by_token(token: str) -> TournamentTable | None:
    """The table a token opens now, or None (revoked, a past series, a finished tournament)."""
    if not token or len(token) > 64:
        return None
    table = db.session.scalar(select(TournamentTable).where(TournamentTable.token_key == token_key(token)))
    if table is None or table.revoked or not hmac.compare_digest(table.token.encode(), token.encode()):
        return None
    if table.tournament.finished or table.series != table.tournament.current_series:
        return None
    return table


def live_table_of_match(match_id: int) -> TournamentTable | None:
    """The table whose token may still write to this match (for a phone's table grant), or None."""
    table = db.session.scalar(select(TournamentTable).where(TournamentTable.match_id == match_id))
    if table is None or table.revoked or table.tournament.finished \
            or table.series != table.tournament.current_series:
        return None
    return table


def revoke_table(tournament: Tournament, table: TournamentTable) -> str:
    """A new token for the table: the old one (and every phone holding it) can no longer write."""
    token = new_token()
    with writing():
        db.session.execute(update(TournamentTable).where(TournamentTable.id == table.id)
                           .values(token=token, token_key=token_key(token), revoked=False))
        live.note(tournament.night_id, "rights")  # streams opened with the old token end
    db.session.expire(table)
    return token

