"""Each game's page module: its round form turned into the API's payload.

A game has phone pages when ``referee/pages/round_forms/<game>.py`` exists (imported below) with
``parse(form, state_json, players) -> payload`` and ``ERROR_FIELDS`` (rule
ID -> the form field the error is shown next to), optionally ``OPTION_TEXT``
(option name -> lazily translated label and explanation for the new-match
form), and the templates ``templates/pages/match_<game>.html`` and
``templates/pages/summary_<game>.html`` (one line per logged event). The payload then goes through the same
service and engine as a JSON request.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from werkzeug.datastructures import MultiDict

from referee.engine.spec import SPECS
from referee.pages.round_forms import knaker, kul, schloapfer, schwimmen, svangknack

Parser = Callable[[MultiDict[str, str], dict[str, Any], list[str]], dict[str, Any]]

_FORMS = {m.__name__.rsplit(".", 1)[-1]: m for m in (svangknack, kul, schloapfer, schwimmen, knaker)}

#: Each game's page module, in the registry's order.
MODULES: dict[str, ModuleType] = {name: _FORMS[name] for name in SPECS if name in _FORMS}

#: Games with a round form on the phone pages, in the registry's order.
PAGE_GAMES: tuple[str, ...] = tuple(MODULES)


def parser(game: str) -> Parser | None:
    module = MODULES.get(game)
    return None if module is None else module.parse


def error_field(game: str, rule: str) -> str:
    module = MODULES.get(game)
    return "" if module is None else module.ERROR_FIELDS.get(rule, "")


def option_text(game: str) -> dict[str, tuple[Any, Any]]:
    module = MODULES.get(game)
    return {} if module is None else dict(getattr(module, "OPTION_TEXT", {}))


def choice_text(game: str) -> dict[str, dict[Any, Any]]:
    """``CHOICE_TEXT = {option: {value: lazily translated name}}``: what the new-match form shows for a value."""
    module = MODULES.get(game)
    return {} if module is None else dict(getattr(module, "CHOICE_TEXT", {}))
