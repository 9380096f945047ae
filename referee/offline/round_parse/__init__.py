"""The round forms' parsing, with no Flask: what was tapped on a match page -> the API's round payload.

One module per registered game (:data:`referee.engine.spec.SPECS`), imported
here by the name the registry gives (so the registry is the one list), with
``parse(form, state_json, players) -> payload``, its inverse ``fields(payload, state_json, players) -> form``
(the correct page's prefill: ``parse(fields(p)) == p``) and ``ERROR_FIELDS`` (rule
ID -> the form field the error is shown next to). It is pure (the standard
library and :mod:`referee.engine` only), so the server's pages
(``referee/round_forms``, which add the translated option texts) and the
engine in the phone's browser (the bundle of :mod:`referee.offline.bundle`,
``round/form`` in :mod:`referee.offline.browser`) read a form the same way.
``form`` is any mapping of field names to text: Werkzeug's ``MultiDict`` on
the server, a plain dict in the browser.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from types import ModuleType
from typing import Any

from referee.engine.spec import SPECS

Parser = Callable[[Mapping[str, str], dict[str, Any], list[str]], dict[str, Any]]

#: Each registered game's parsing module (:data:`referee.engine.spec.SPECS` names the games).
MODULES: dict[str, ModuleType] = {name: import_module(f"{__name__}.{name}") for name in SPECS}


def module(game: str) -> ModuleType | None:
    """The game's parsing module, or None for a name the registry does not know."""
    return MODULES.get(game) if game in SPECS else None
