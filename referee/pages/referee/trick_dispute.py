"""The trick referee's dispute mode on the phone (issue 28 item 5): an argument about one trick.

``/referee/tricks/<game>/dispute?match=<id>``, opened from the round in
progress: the players (seat order), the dealer and so the leader of the
first trick come from the match, nothing is typed. The leader taps the
trumps once, the trick as it lies (suit row, rank row; cards on the table
greyed out), the card in question and what is known of that player's hand;
the verdict with its rule stands right under the trick, in an ``aria-live``
region. The verdict is the engine's (``POST /api/referee/tricks/dispute``,
:mod:`referee.engine.dispute`); the page's script asks the API on every tap
and the engine in this browser when there is no network. Without JavaScript
the form posts and this module answers the same way from the same engine.

The whole-deal mode (:mod:`referee.pages.referee.tricks`) is unchanged.
"""

from __future__ import annotations

import re
from typing import Any

from flask import abort, render_template, request
from flask_babel import gettext as _

from referee.engine import BadInput, questions
from referee.engine.spec import SPECS
from referee.engine.tricks import GAMES
from referee.messages import explain
from referee.models import Match
from referee.pages import bp
from referee.pages.referee import SUIT_BUTTONS, opened_match
from referee.pages.referee.tricks import _first_leader, deck_ranks

_SPLIT = re.compile(r"[\s,;/]+")


def _defaults(match: Match | None) -> tuple[tuple[str, ...], str]:
    """The players in seat order and who leads the first trick; a page opened alone names nobody."""
    return _first_leader(match) if match is not None else ((), "")


def read_request(game: str, values: Any, seats: tuple[str, ...]) -> dict[str, Any]:
    """The posted form as the API's request (the engine checks everything; nothing is defaulted here)."""
    players = [p for p in values.getlist("players") if p in seats] if seats else \
        [p[:40] for p in (x.strip() for x in str(values.get("players", ""))[:800].split(",")) if p][:16]
    data: dict[str, Any] = {"game": game, "players": players, "leader": str(values.get("leader", ""))[:60],
                            "trick": [c for c in _SPLIT.split(str(values.get("trick", ""))[:200]) if c],
                            "known": [str(k)[:20] for k in values.getlist("known")][:8]}
    if values.get("card"):
        data["card"] = str(values["card"])[:10]
    if SPECS[game].has_trumps:  # Kul has none (KU-3)
        data["trump"] = str(values.get("trump", ""))[:10]
    return data


@bp.route("/referee/tricks/<game>/dispute", methods=["GET", "POST"])
def trick_dispute(game: str) -> Any:
    if game not in GAMES:
        abort(404)
    match = opened_match(request.values.get("match"), game)
    seats, leader = _defaults(match)
    data: dict[str, Any] = {"game": game, "players": list(seats), "leader": leader, "trick": [], "known": []}
    verdict: dict[str, Any] | None = None
    error: str | None = None
    status = 200
    if request.method == "POST":
        data = read_request(game, request.form, seats)
        try:
            verdict = questions.answer("tricks/dispute", data, _)
        except BadInput as exc:
            error, status = explain(exc), 422
    ranks = deck_ranks(game)
    return render_template("pages/trick_dispute.html", game=game, title=SPECS[game].title, match=match, seats=seats,
                           data=data, verdict=verdict, error=error, suits=SUIT_BUTTONS, ranks=ranks,
                           deal_key=f"{match.id}:{match.snapshot.next_seq}" if match is not None else ""), status
