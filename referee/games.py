"""The registry of games: API name -> engine module.

The one place that knows which games exist; the service layer, the API and
the pages look games up here and drive them through the engine's common
interface (``referee.engine.Game``).
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import cast

from referee.engine import Game

#: API name -> module under ``referee.engine``, in the order the pages list them.
GAMES: dict[str, str] = {
    "svangknack": "svangknack",
    "kul": "kul",
    "schloapfer": "schloapfer",
    "schwimmen": "schwimmen",
    "knaker": "knaker",
}

TITLES: dict[str, str] = {
    "svangknack": "Svängknack",
    "kul": "Kul",
    "schloapfer": "Schloapfer",
    "schwimmen": "Schwimmen / 31",
    "knaker": "Knaker",
}


#: Games whose ``start`` takes ``carried_in``: a pot carried from an earlier
#: night's match of the same game and group (SK-14 ``carry``).
CARRY_GAMES = frozenset({"svangknack", "kul"})


@cache
def game(name: str) -> Game:
    """The engine module of a game; ``KeyError`` for an unknown name."""
    return cast(Game, importlib.import_module(f"referee.engine.{GAMES[name]}"))
