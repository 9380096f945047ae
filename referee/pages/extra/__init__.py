"""Extra phone pages of a game (referee tools such as the eye counter).

Every module in this package registers its routes on the pages blueprint
(``from referee.pages import bp``); :func:`load` imports them all once, so a
game's pages live in one file of their own.
"""

from __future__ import annotations

import importlib
import pkgutil


def load() -> None:
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
