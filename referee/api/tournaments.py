"""The tournaments of API.md "Tournaments" (issue 30): create, view, next series, revoke a table's token.

HTTP only: the checks and writes are :mod:`referee.tourneys.tournaments`'s,
the standings :mod:`referee.tourneys.standings`'s. Rights: the organiser's
edit token (the night's) does everything; the view token and a table token
read; a table token writes to its own table's match only (the match
routes), never here. Only the edit token's answers show tokens.
"""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify, request

from referee.api import Denied, _date, authorize, body, bp, error, respond
from referee.ledger import inputs, rights, tables, tournament_entries, tournament_view, tx
from referee.ledger import tournaments as tourneys
from referee.messages import explain
from referee.models import MAX_ID, Tournament, TournamentEntry
from referee.web import idempotent
from referee.web.caller import caller

FIELDS = {"name", "currency", "game", "players", "table_size", "series", "stake", "options", "format", "advance",
          "entry_fee", "prizes", "seed", "group", "group_token", "date", "place", "seating", "leader",
          "series_minutes"}


@bp.errorhandler(tourneys.StillPlaying)
def _still_playing(exc: tourneys.StillPlaying) -> tuple[Response, int]:
    return error(409, "Some tables are still playing this series.", tables=exc.tables)


@bp.errorhandler(tournament_entries.Refused)
def _refused(exc: tournament_entries.Refused) -> tuple[Response, int]:
    return error(409, explain(exc))


@bp.errorhandler(tourneys.Finished)
def _finished(_exc: tourneys.Finished) -> tuple[Response, int]:
    return error(409, "The tournament is finished.")


def _tournament(tournament_id: int, write: bool) -> tuple[Tournament, rights.Access]:
    """The tournament of the URL (404 if none) and the request's right on its night (401/403 as for a night)."""
    if tournament_id > MAX_ID:
        raise tx.NotFound(f"There is no tournament {tournament_id}.")
    tourn = tourneys.get(tournament_id)
    return tourn, authorize(tourn.night, write)


def tournament_json(tourn: Tournament, access: rights.Access) -> dict[str, Any]:
    """The GET body (:func:`referee.ledger.tournament_view.view`); the organiser's is the night-wide edit right."""
    return tournament_view.view(tourn, organiser=access.may_edit())


def _created(tourn: Tournament) -> tuple[int, dict[str, Any]]:
    night = tourn.night
    return 201, {"id": tourn.id, "night": night.id, "edit_token": night.edit_token, "view_token": night.view_token,
                 "group_token": night.group.token, "seed": tourn.seed, "series": tourn.current_series,
                 "of": tourn.series_count,
                 "tables": [tournament_view.table_json(t, token=True) for t in tourneys.current_tables(tourn)]}


@bp.post("/tournaments")
def create_tournament() -> Any:
    idem = idempotent.from_request(_created)
    data = body(FIELDS, {"name", "currency", "game", "players", "table_size"})
    plan = tourneys.check(data)
    if isinstance(data.get("group_token"), str) and rights.group(data["group_token"], caller()) is None:  # counted
        raise tx.NotFound("No group has that token.")
    tourn = tourneys.create(plan, group=data.get("group"), group_token=data.get("group_token"),
                          date=_date(data.get("date")), place=data.get("place", ""), idem=idem, caller=caller(),
                          language=request.accept_languages.best_match(inputs.LANGUAGES))
    return respond(idem, _created, tourn)


@bp.get("/tournaments/<int:tournament_id>")
def get_tournament(tournament_id: int) -> Any:
    tourn, access = _tournament(tournament_id, write=False)
    return jsonify(tournament_json(tourn, access))


def _next_answer(tourn: Tournament) -> tuple[int, dict[str, Any]]:
    if tourn.finished:
        return 200, tournament_json(tourn, rights.Access(rights.Right.EDIT))
    return 201, {"id": tourn.id, "series": tourn.current_series, "of": tourn.series_count, "finished": False,
                 "tables": [tournament_view.table_json(t, token=True) for t in tourneys.current_tables(tourn)]}


@bp.post("/tournaments/<int:tournament_id>/next")
def next_series(tournament_id: int) -> Any:
    """The organiser draws the next series (403 before 409), or finishes the tournament after the last."""
    _tournament(tournament_id, write=True)
    idem = idempotent.from_request(_next_answer)
    tourn = tourneys.next_series(tournament_id, idem=idem)
    return respond(idem, _next_answer, tourn)


@bp.post("/tournaments/<int:tournament_id>/tables/<int:number>/revoke")
def revoke_table(tournament_id: int, number: int) -> Any:
    """A new token for a table of the current series: the old one can no longer write or read."""
    tourn, _right = _tournament(tournament_id, write=True)
    table = next((t for t in tourneys.current_tables(tourn) if t.number == number), None)
    if table is None:
        raise tx.NotFound(f"The current series has no table {number}.")
    if tourn.finished:
        raise Denied(409, "The tournament is finished.")
    token = tables.revoke_table(tourn, table)
    return jsonify({"table": number, "match": table.match_id, "table_token": token})


def _player(entry: TournamentEntry) -> tuple[int, dict[str, Any]]:
    return 201, {"player": entry.player, "joined_series": entry.joined_series, "left_series": entry.left_series}


@bp.post("/tournaments/<int:tournament_id>/players")
def late_player(tournament_id: int) -> Any:
    """A late player (series format: seated from the next series on); 409 in a knockout, its last series, or
    once finished (API.md "Tournaments")."""
    _tournament(tournament_id, write=True)
    idem = idempotent.from_request(_player)
    data = body({"name"}, {"name"})
    entry = tournament_entries.register(tournament_id, data["name"], idem=idem)
    return respond(idem, _player, entry)


def _withdrawn(tourn: Tournament) -> tuple[int, dict[str, Any]]:
    return 200, tournament_json(tourn, rights.Access(rights.Right.EDIT))


@bp.post("/tournaments/<int:tournament_id>/players/<name>/withdraw")
def withdraw_player(tournament_id: int, name: str) -> Any:
    """A player leaves: not seated again, in a knockout out in the series in play (200, the organiser's view);
    a second tap changes nothing; 404 for a name not in the tournament, 409 once it is finished."""
    _tournament(tournament_id, write=True)
    idem = idempotent.from_request(_withdrawn)
    tourn = tournament_entries.withdraw(tournament_id, name, idem=idem)
    return respond(idem, _withdrawn, tourn)
