"""The games by API name, as the service layer, the API and the pages have always asked for them.

A thin view of the registry (:mod:`referee.engine.spec`), which is where a
game is listed, titled and given its capabilities; the names here are kept
so that their many callers need not change. ``game(name)`` is the game's
engine module, driven through the engine's common interface
(``referee.engine.Game``).
"""

from __future__ import annotations

from typing import cast

from referee.engine import Game
from referee.engine.spec import SPECS

#: API name -> module under ``referee.engine``, in the order the pages list them.
GAMES: dict[str, str] = {name: spec.module.__name__.rsplit(".", 1)[-1] for name, spec in SPECS.items()}

TITLES: dict[str, str] = {name: spec.title for name, spec in SPECS.items()}


#: Games whose ``start`` takes ``carried_in``: a pot carried from an earlier
#: night's match of the same game and group (SK-14 ``carry``).
CARRY_GAMES = frozenset(name for name, spec in SPECS.items() if spec.can_carry)


def game(name: str) -> Game:
    """The engine module of a game; ``KeyError`` for an unknown name."""
    return cast(Game, SPECS[name].module)
