"""``GET /api/groups/<group_token>/ratings``: each player's skill rating per game (API.md "Groups", issue 47).

The group token is the credential, as for the group itself (a wrong one is a
404 that names nothing and counts as a wrong token). The figures are
:mod:`referee.ledger.ratings`', written with two decimals.
"""

from __future__ import annotations

from typing import Any

from flask import jsonify

from referee.api import bp
from referee.api.groups import authorized_group
from referee.ledger import ratings


def ratings_json(table: dict[str, list[ratings.Rated]]) -> dict[str, Any]:
    """The API's shape: per game, best first, every figure a string with two decimals."""
    return {game: [{"player": row.player, "rating": ratings.figure(row.rating), "mu": ratings.figure(row.mu),
                    "sigma": ratings.figure(row.sigma), "matches": row.matches,
                    "trend": [ratings.figure(point) for point in row.trend]} for row in rows]
            for game, rows in table.items()}


@bp.get("/groups/<group_token>/ratings")
def group_ratings(group_token: str) -> Any:
    return jsonify(ratings_json(ratings.group_ratings(authorized_group(group_token))))
