"""The round forms' parsing, with no Flask: what was tapped on a match page -> the API's round payload.

One module per game with ``parse(form, state_json, players) -> payload`` and
``ERROR_FIELDS`` (rule ID -> the form field the error is shown next to). It is
pure (the standard library and :mod:`referee.engine` only), so the server's
pages (``referee/pages/round_forms``, which add the translated option texts)
and the engine in the phone's browser (the bundle of :mod:`referee.bundle`,
``round/form`` in :mod:`referee.browser`) read a form the same way. ``form``
is any mapping of field names to text: Werkzeug's ``MultiDict`` on the server,
a plain dict in the browser.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from referee import games

Parser = Callable[[Mapping[str, str], dict[str, Any], list[str]], dict[str, Any]]


def module(game: str) -> ModuleType | None:
    """The game's parsing module, or None for a game without a round form."""
    if game not in games.GAMES:
        return None
    try:
        return importlib.import_module(f"{__name__}.{game}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{game}":
            raise
        return None
