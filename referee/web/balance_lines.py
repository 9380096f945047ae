"""A player's explained balance as the house shows it: JSON for the API, rows for the pages and the sheet.

The lines are the ledger's (:mod:`referee.ledger.explain`); here they get
words in the request's language (the catalog's gettext) and amounts through
the app's one money filter, the same for the API, the settlement page, the
player's own view and the settlement sheet.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from flask import current_app
from flask_babel import get_translations

from referee.engine import why as engine_why
from referee.ledger import explain as ledger_explain
from referee.ledger.inputs import night_money
from referee.models import Night
from referee.web import titles


def _fmt(night: Night) -> Callable[[int], str]:
    """The money filter for the night's currency, each amount formatted once per call (Babel takes about
    60 µs an amount; a 300-round night's lines repeat a few dozen amounts thousands of times)."""
    money_filter = current_app.jinja_env.filters["money"]

    @functools.cache
    def fmt(minor: int) -> str:
        return str(money_filter(minor, night.currency))
    return fmt


def _translator() -> Callable[[str], str]:
    """The request's gettext, each template looked up once per call (the lines repeat a dozen templates)."""
    catalog = get_translations()

    @functools.cache
    def translate(text: str) -> str:
        return str(catalog.ugettext(text))
    return translate


def sentence(line: ledger_explain.Line, fmt: Callable[[int], str], translate: Callable[[str], str]) -> str:
    """A line's why, in the language of ``translate``."""
    return engine_why.joined(line.why, translate, fmt)


def explained_json(night: Night, exp: ledger_explain.Explanation) -> dict[str, Any]:
    """``GET /api/nights/<id>/players/<name>/explain`` (API.md, Nights)."""
    money, fmt, translate = night_money(night), _fmt(night), _translator()
    lines = []
    for line in exp.lines:
        out: dict[str, Any] = {"kind": line.kind}
        if line.match is not None:
            out |= {"match": line.match, "game": line.game}
        if line.round is not None:
            out["round"] = line.round
        out["amount"] = money.format(line.amount)
        if line.rule:
            out["rule"] = line.rule
        out["why"] = sentence(line, fmt, translate)
        lines.append(out)
    return {"player": exp.player, "balance": money.format(exp.balance), "result": money.format(exp.result),
            "lines": lines}


def _head(night: Night, game: str | None, match_id: int | None) -> str:
    """A group's heading: the match as the table counts it ("Kul 2", referee/web/titles.py), never its id."""
    if match_id is None or not game:
        return ""
    return titles.numbered(game, titles.match_numbers(night.id).get(match_id, 0))


def rows(night: Night, exp: ledger_explain.Explanation) -> list[dict[str, Any]]:
    """The lines grouped by match for a page or the sheet: each group's heading and its lines as text."""
    fmt, translate = _fmt(night), _translator()
    groups = []
    for match_id, lines in exp.by_match():
        game = lines[0].game
        groups.append({"match": match_id, "head": _head(night, game, match_id), "lines": [
            {"kind": line.kind, "round": line.round, "amount": line.amount, "rule": line.rule,
             "why": sentence(line, fmt, translate)} for line in lines]})
    return groups


def compact(night: Night, exp: ledger_explain.Explanation) -> dict[str, Any]:
    """The sheet's form of the lines: one short line per move ("65: 7,00 kr 2+3") that names its reasons by
    number, and the numbered reasons once, amounts left out ("2 took 2 of 3 tricks: … (SK-8)").

    Why: the sentences in full made a 300-round night four pages per player; the issue asks for two.
    """
    legend: dict[str, int] = {}  # the reason without its amounts -> its number
    translate = _translator()
    groups = []
    for match_id, lines in exp.by_match():
        game = lines[0].game
        out = []
        for line in lines:
            refs = []
            for part in line.why:
                key = part.text(translate, lambda _minor: "…")
                refs.append(str(legend.setdefault(key, len(legend) + 1)))
            out.append({"round": line.round, "amount": line.amount, "refs": "+".join(refs)})
        groups.append({"head": _head(night, game, match_id), "lines": out})
    return {"balance": exp.balance, "groups": groups, "legend": [(n, key) for key, n in legend.items()]}


def sheet_rows(night: Night, asked: str) -> dict[str, dict[str, Any]] | None:
    """The sheet's appendix: everybody's lines (``*``), one player's, or None (no such player: None too)."""
    found = ledger_explain.explain_all(night)
    if asked == "*":
        return {name: compact(night, exp) for name, exp in found.items()}
    return {asked: compact(night, found[asked])} if asked in found else None


def _shown(night: Night, exp: ledger_explain.Explanation) -> dict[str, Any]:
    return {"balance": exp.balance, "result": exp.result, "groups": rows(night, exp)}


def page_rows(night: Night, asked: str | None, limit: int) -> dict[str, dict[str, Any]]:
    """Every player's balance and result, and their lines while the night has at most ``limit`` of them in
    all; past that only ``asked``'s (the others' ``groups`` None: the page links to them one at a time).

    Why: the largest night (1,000 matches, 20,000 events, 480 players) has tens of thousands of lines; all
    of them in one page would be megabytes for a phone that wants one player's.
    """
    found = ledger_explain.explain_all(night)
    many = sum(len(exp.lines) for exp in found.values()) > limit
    return {name: {"balance": exp.balance, "result": exp.result,
                   "groups": rows(night, exp) if not many or name == asked else None}
            for name, exp in found.items()}


def all_rows(night: Night) -> dict[str, dict[str, Any]]:
    """Every player's balance, result and grouped lines (the settlement page and sheet)."""
    return {name: _shown(night, exp) for name, exp in ledger_explain.explain_all(night).items()}


def one(night: Night, name: str) -> dict[str, Any] | None:
    """One player's balance, result and grouped lines (the player's own view); None for no such player."""
    exp = ledger_explain.explain(night, name)
    return None if exp is None else _shown(night, exp)
