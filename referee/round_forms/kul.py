"""Kul's round form: one tap, who took the last trick of the deal."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask_babel import lazy_gettext as _l

from referee.offline.round_parse.kul import ERROR_FIELDS, parse

OPTION_TEXT: dict[str, tuple[Any, Any]] = {
    "marks_to_win": (_l("Marks to win"), _l("The first player with this many last tricks takes the pot (KU-4).")),
}

#: What the new-match form shows for each option value.
CHOICE_TEXT: dict[str, dict[Any, Any]] = {"marks_to_win": {3: _l("3 marks"), 2: _l("2 marks")}}

def table_card(name: str, me: Mapping[str, Any], view: Mapping[str, Any]) -> dict[str, Any]:
    """The table display's card of a player (``referee.pages.table``): a dot per mark."""
    return {"marks": "\N{BLACK CIRCLE}" * int(view["marks"].get(name, 0))}


__all__ = ["CHOICE_TEXT", "ERROR_FIELDS", "OPTION_TEXT", "parse", "table_card"]
