"""Svängknack's round form: tap who knocked and the tricks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from referee.offline.round_parse.svangknack import ERROR_FIELDS, parse

OPTION_TEXT: dict[str, tuple[Any, Any]] = {
    "first_pot": (_l("First pot"), _l("Who pays into the first pot: every player or only the dealer (SK-5).")),
    "forced_participation": (_l("Forced participation"),
                             _l("Must everyone play: never, in the first round of every fresh pot, "
                                "or always (SK-10).")),
}

#: What the new-match form shows for each option value (never the code).
CHOICE_TEXT: dict[str, dict[Any, Any]] = {
    "first_pot": {"all": _l("every player"), "dealer_only": _l("only the dealer")},
    "forced_participation": {"never": _l("never"), "fresh_pot": _l("first round of a fresh pot"),
                             "always": _l("always")},
}

def table_card(name: str, me: Mapping[str, Any], view: Mapping[str, Any]) -> dict[str, Any]:
    """The table display's card of a player (``referee.pages.table``): the svängare is tagged."""
    return {"tags": [_("svängar")] if name == view.get("svangare") else []}


__all__ = ["CHOICE_TEXT", "ERROR_FIELDS", "OPTION_TEXT", "parse", "table_card"]
