"""The referee tools at the table: pages that answer a rules question and store nothing of their own.

``tricks`` (the trick referee, SK-15, KU-3, SL-14), ``knaker_pile`` (Knaker's
pile referee), ``schloapfer_eyes`` (the eye counter, SL-2) and
``schwimmen_value`` (a hand's value, SW-2). Each registers its routes on the
pages blueprint; :mod:`referee.pages` imports them by name, once. This module
holds what they share: the suit buttons of the card pickers and the match a
tool was opened from.
"""

from __future__ import annotations

from referee import ledger
from referee.engine.cards import SUIT_SYMBOLS, SUITS
from referee.models import Match
from referee.pages.phone_rights import can_view

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

