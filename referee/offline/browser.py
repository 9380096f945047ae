"""The engine's door in the phone's browser (Pyodide): JSON in, JSON out, no network.

``static/js/pyengine.js`` loads Pyodide and the engine bundle (built from the
source at install time by :mod:`referee.offline.bundle`, never a second copy of a
rule) and calls :func:`ask`. The answers are those of the JSON API, status
included: the referee's questions come from the same table
(:mod:`referee.engine.questions`), a round is checked by the same
``parse_round``/``apply`` as the service layer, and messages are translated
with the same catalogs (:func:`referee.engine.explain`). Nothing here imports
Flask, so the bundle holds only the engine, this module, the game registry
and the compiled catalogs.
"""

from __future__ import annotations

import gettext
import json
from functools import cache
from pathlib import Path
from typing import Any

from referee.engine import BadInput, RuleViolation, explain, questions
from referee.engine.money import Money
from referee.engine.records import dump, expect_int, expect_object, expect_str, load
from referee.engine.spec import SPECS, spec
from referee.offline import round_parse

#: The compiled catalogs, beside this module in the bundle as in the source tree.
LOCALES = Path(__file__).resolve().parent.parent / "translations"


@cache
def _translate(lang: str) -> Any:
    return gettext.translation("messages", LOCALES, languages=[lang], fallback=True).gettext


def check_round(data: dict[str, Any]) -> dict[str, Any]:
    """A round checked against the match as the page last saw it (the service layer's check).

    ``data``: ``game``, ``digits`` (the currency's minor-unit digits),
    ``state`` (the match's snapshot) and ``round`` (the API's round payload).
    Answers ``{"legal": true, "state": ...}`` with the state the round
    leads to; a broken rule raises :class:`RuleViolation` as on the server.
    """
    expect_object(data, "body", {"game", "digits", "state", "round"}, {"game", "state", "round"})
    name = expect_str(data["game"], "game")
    if name not in SPECS:
        raise BadInput("game", "game must be one of: %(games)s.", games=", ".join(SPECS))
    money = Money(expect_int(data.get("digits", 2), "digits"))
    rules = spec(name)
    state = load(rules.State, data["state"])
    new_state = rules.apply(state, rules.parse_round(state, data["round"], money))
    return {"legal": True, "state": rules.state_json(new_state, money)}


def check_form(data: dict[str, Any]) -> dict[str, Any]:
    """A match page's round form checked as the page's POST would be, with no server (issue 16).

    ``data``: ``game``, ``digits``, ``state`` (the match's snapshot, or the
    one a waiting round leads to), ``players`` (the seats) and ``form`` (field
    name -> text, as the form would post it). The form is read by the same
    parser as the server's page (:mod:`referee.offline.round_parse`) against the
    state's view, then checked by the engine. Answers ``{"legal": true,
    "round": payload, "state": view, "snapshot": ...}``, the snapshot being
    the state the round leads to (for the next round's check); a broken rule
    raises :class:`RuleViolation` as on the server.
    """
    expect_object(data, "body", {"game", "digits", "state", "players", "form"}, {"game", "state", "players", "form"})
    name = expect_str(data["game"], "game")
    parser = round_parse.module(name)
    if parser is None:
        raise BadInput("game", "game must be one of: %(games)s.", games=", ".join(SPECS))
    players = data["players"]
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise BadInput("players", "players must be a list of names.")
    form = data["form"]
    if not isinstance(form, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in form.items()):
        raise BadInput("form", "The form could not be read; reload the page and try again.")
    money = Money(expect_int(data.get("digits", 2), "digits"))
    rules = spec(name)
    state = load(rules.State, data["state"])
    payload = parser.parse(form, rules.state_json(state, money), players)
    new_state = rules.apply(state, rules.parse_round(state, payload, money))
    return {"legal": True, "round": payload, "state": rules.state_json(new_state, money),
            "snapshot": dump(new_state)}


def answer(name: str, data: object, lang: str = "en") -> tuple[int, dict[str, Any]]:
    """``(status, body)`` as the API answers question ``name`` (``"knaker/play"``, ``"round/check"``…)."""
    translate = _translate(lang)
    try:
        if name in ("round/check", "round/form"):
            if not isinstance(data, dict):
                raise BadInput("body", "The request body must be a JSON object.")
            return 200, check_round(data) if name == "round/check" else check_form(data)
        return 200, questions.answer(name, data, translate)
    except BadInput as exc:
        return 400, {"error": explain(exc, translate), "field": exc.field}
    except RuleViolation as exc:
        return 422, {"error": explain(exc, translate), "rule": exc.rule}


def ask(name: str, body: str, lang: str = "en") -> str:
    """:func:`answer` over JSON text, the form Pyodide passes most cheaply to JavaScript."""
    status, result = answer(name, json.loads(body), lang)
    return json.dumps({"status": status, "body": result})
