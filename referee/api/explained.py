"""``GET /api/nights/<id>/players/<name>/explain``: why a player's balance is what it is (API.md, Nights; issue 46).

The lines are the ledger's (:mod:`referee.ledger.explain`), in words of the
request's language (:mod:`referee.web.balance_lines`); the view or the edit token reads them.
"""

from __future__ import annotations

from typing import Any

from flask import jsonify

from referee import ledger
from referee.api import authorized_night, bp
from referee.ledger import explain as ledger_explain
from referee.web import balance_lines


@bp.get("/nights/<int:night_id>/players/<name>/explain")
def explain_player(night_id: int, name: str) -> Any:
    night = authorized_night(night_id, write=False)
    exp = ledger_explain.explain(night, name)
    if exp is None:
        raise ledger.NotFound(f"Night {night_id} has no player {name[:40]!r}.")
    return jsonify(balance_lines.explained_json(night, exp))
