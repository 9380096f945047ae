"""``GET /api/groups/<group_token>``: a group's nights with their results, and its standings (API.md "Groups").

The group token in the URL is the credential (it is the token a night is
added to the group with). A wrong token is a 404 that names nothing, and it
counts as a wrong token for the address (429 after too many), like a wrong
night token.
"""

from __future__ import annotations

from typing import Any

from flask import jsonify

from referee import ledger
from referee.api import bp
from referee.ledger import rights, season
from referee.models import Group
from referee.web.caller import caller


def authorized_group(token: str) -> Group:
    """The group of the token, or 404 (429 after too many wrong tokens from this address)."""
    group = rights.group(token, caller())
    if group is None:
        raise ledger.NotFound("No group has that token.")
    return group


def group_json(s: season.Season) -> dict[str, Any]:
    nights = []
    for row in s.nights:
        money = ledger.night_money(row.night)
        nights.append({"id": row.night.id, "name": row.night.name, "date": row.day.isoformat(),
                       "currency": row.night.currency,
                       "result": {k: money.format(v) for k, v in row.result.items()},
                       "pots": money.format(row.pots),
                       "matches": {k: v for k, v in row.played.items() if v}})
    standings: dict[str, Any] = {}
    for currency in s.currencies():
        money = ledger.currency_money(currency)
        standings[currency] = {name: {"result": money.format(st.result), "nights": st.nights,
                                      "matches": st.matches} for name, st in s.ranked(currency)}
    b = s.brags
    return {"name": s.group.name, "nights": nights, "standings": standings,
            "games": {"kul": {"pots_won": dict(b.kul_pots)},
                      "schloapfer": {"matches_lost": dict(b.schloapfer_lost)},
                      "schwimmen": {"wins": dict(b.schwimmen_wins)},
                      "knaker": {"games": dict(b.knaker_games), "first_places": dict(b.knaker_firsts),
                                 "dots": dict(b.knaker_dots)}}}


@bp.get("/groups/<group_token>")
def group(group_token: str) -> Any:
    grp = authorized_group(group_token)
    return jsonify(group_json(season.season(grp)))
