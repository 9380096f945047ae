"""What a game's templates read beyond its state: the games of its log, and its form's words.

Asked of the game's spec (:attr:`~referee.engine.spec.GameSpec.log_view`:
Knaker's places of every game, which the cached state does not hold, read
from the stored payloads alone) and of its round form
(:func:`referee.round_forms.page_text`), so no game is named here: a game
without them gets an empty view.
"""

from __future__ import annotations

from typing import Any

from referee import round_forms
from referee.engine.spec import spec
from referee.engine.vocab import EventKind
from referee.models import Match
from referee.pages import bp


@bp.app_template_global("game_log")
def game_log(match: Match) -> dict[str, Any]:
    """The match's log as its game's spec views it (the non-void rounds, closes left out); {} if it has none."""
    view = spec(match.game).log_view
    if view is None:
        return {}
    return view(tuple(match.seats), ((rnd.seq, rnd.payload or {}) for rnd in match.rounds
                                     if not rnd.void and rnd.kind == EventKind.ROUND))


@bp.app_template_global("game_text")
def game_text(game: str) -> dict[str, Any]:
    """The words a game's page and protocol show of its log (Knaker's offences, reasons and consequences)."""
    return round_forms.page_text(game)
