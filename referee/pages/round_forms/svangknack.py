"""Svängknack's round form: tap who knocked and the tricks."""

from __future__ import annotations

from typing import Any

from flask_babel import lazy_gettext as _l

from referee.round_parse.svangknack import ERROR_FIELDS, parse

OPTION_TEXT: dict[str, tuple[Any, Any]] = {
    "first_pot": (_l("First pot"), _l("Who pays into the first pot: every player (all) or only the dealer "
                                      "(dealer_only) (SK-5).")),
    "forced_participation": (_l("Forced participation"),
                             _l("Must everyone play: never, in the first round of every fresh pot (fresh_pot), "
                                "or always (SK-10).")),
}

__all__ = ["ERROR_FIELDS", "OPTION_TEXT", "parse"]
