"""Each game's page module: its round form turned into the API's payload, and its options in words.

Below the pages and the sheets (both use it, neither is imported here). Every
game of the registry (:data:`referee.engine.spec.SPECS`) has its module
``referee/round_forms/<game>.py``, imported here by the registered name (the
registry is the one list: a sixth game's form is found without a line here,
and a registered game without one fails at import). It holds
``parse(form, state_json, players) -> payload`` and ``ERROR_FIELDS`` (rule
ID -> the form field the error is shown next to), optionally ``OPTION_TEXT``
(option name -> lazily translated label and explanation for the new-match
form), ``CHOICE_TEXT``, ``table_card`` and ``page_text`` (the words its
templates show of its log), and the templates ``templates/pages/match_<game>.html`` and
``templates/pages/summary_<game>.html`` (one line per logged event). The payload then goes through the same
service and engine as a JSON request.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from types import ModuleType
from typing import Any

from flask_babel import format_decimal, gettext
from werkzeug.datastructures import MultiDict

from referee.engine.records import describe_options
from referee.engine.spec import SPECS
from referee.offline import round_parse

Parser = Callable[[MultiDict[str, str], dict[str, Any], list[str]], dict[str, Any]]

#: Each registered game's page module, in the registry's order (imported by the name the registry gives).
MODULES: dict[str, ModuleType] = {name: import_module(f"{__name__}.{name}") for name in SPECS}

#: Games with a round form on the phone pages, in the registry's order.
PAGE_GAMES: tuple[str, ...] = tuple(MODULES)


def parser(game: str) -> Parser | None:
    module = MODULES.get(game)
    return None if module is None else module.parse


def prefill(game: str, payload: Mapping[str, Any], state: dict[str, Any], players: list[str]) -> dict[str, str]:
    """A stored round's payload as its form's fields (the inverse of the game's parser): the correct page's form
    starts as the round was entered. ``state``: the state (as JSON) the round was played on."""
    parse_module = round_parse.module(game)
    return {} if parse_module is None else dict(parse_module.fields(payload, state, players))


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


def page_text(game: str) -> dict[str, Any]:
    """The words the game's templates show of its log (its module's ``page_text()``), {} if it has none."""
    module = MODULES.get(game)
    make = getattr(module, "page_text", None)
    return {} if make is None else dict(make())


def option_texts(game: str, described: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The engine's option descriptions with the game page's translated label and text.

    A game's round-form module may define ``OPTION_TEXT = {name: (label, text)}``
    with lazy-translated strings; the engine's English ``doc`` is the fallback.
    """
    texts, names = option_text(game), choice_text(game)
    out = []
    for opt in described:
        label, doc = texts.get(opt["name"], (opt["name"], opt["doc"]))
        named = names.get(opt["name"], {})
        choices = [(c, named.get(c, c)) for c in opt.get("choices") or []]
        out.append(opt | {"label": label, "doc": doc, "choice_labels": choices})
    return out


def options_in_words(game: str, options: dict[str, Any]) -> list[tuple[str, str]]:
    """A match's options as the reader says them (issue 28): the form's label and the chosen value's name,
    yes/no, a number in the reader's locale; never ``first_pot = all``."""
    out = []
    for opt in option_texts(game, describe_options(SPECS[game].Options)):
        if opt["name"] not in options:
            continue
        value = options[opt["name"]]
        if isinstance(value, bool):
            said = gettext("on") if value else gettext("off")
        elif isinstance(value, int):
            said = str(format_decimal(value))
        elif value is None:
            said = "–"
        else:
            said = str(dict(opt["choice_labels"]).get(value, value))
        out.append((str(opt["label"]), said))
    return out
