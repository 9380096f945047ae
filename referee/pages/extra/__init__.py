"""The phone pages beyond the night and match pages: each game's referee tools (the eye counter, the
trick referee), the settlement, the season, the table display, the offline support.

Every module in this package registers its routes on the pages blueprint
(``from referee.pages import bp``); :func:`load` imports them all once, so
each lives in one file of its own.
"""

from __future__ import annotations

import importlib
import pkgutil

from referee import ledger
from referee.engine.cards import SUIT_SYMBOLS, SUITS
from referee.models import Match
from referee.pages import can_view

#: The suit buttons of the card pickers (trick referee, eye counter): code, symbol, red.
SUIT_BUTTONS: tuple[tuple[str, str, bool], ...] = tuple((s, SUIT_SYMBOLS[s], s in ("H", "D")) for s in SUITS)


def opened_match(raw: str | None, game: str) -> Match | None:
    """The match a referee tool was opened from (``?match=``), if it is of ``game`` and this phone may see it.

    Anything else (no id, a garbled or too large id, another game, a night
    this phone has no right to) opens the tool on its own, showing no names.
    """
    if not raw or not (raw.isascii() and raw.isdigit() and len(raw) < 10):  # no "²", no id beyond the database's
        return None
    try:
        match = ledger.get_match(int(raw))
    except ledger.NotFound:
        return None
    if match.game != game or not can_view(match.night):
        return None
    return match


def load() -> None:
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
