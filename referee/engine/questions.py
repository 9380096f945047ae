"""The referee's questions as one table: a name → a pure function from a JSON object to a JSON object.

The JSON API (``referee/api/referee_routes.py``) and the engine running in the
phone's browser (Pyodide, ``referee/browser.py``) both answer through this
table, so a question has exactly one answer wherever it is asked, online or
with no network at all. Bad input raises :class:`~referee.engine.BadInput`,
as everywhere in the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from referee.engine import BadInput, dispute, explain, knaker_pile, schloapfer, schwimmen, svangknack, tricks
from referee.engine.cards import card_name

#: A question: the request body and the asker's ``translate`` (gettext) → the answer.
Question = Callable[[Mapping[str, Any], Callable[[str], str]], dict[str, Any]]


def first_dealer(data: Mapping[str, Any], translate: Callable[[str], str]) -> dict[str, Any]:
    """SK-3: the highest drawn card deals first."""
    return {"dealer": svangknack.first_dealer(svangknack.parse_draws(data)), "rule": "SK-3"}


def hand_value(data: Mapping[str, Any], translate: Callable[[str], str]) -> dict[str, Any]:
    """SW-2/SW-3: the value of a three-card hand."""
    cards, deck, feuer = schwimmen.parse_value_request(data)
    return schwimmen.value_json(schwimmen.hand_value(cards, deck, feuer))


def knaker_play(data: Mapping[str, Any], translate: Callable[[str], str]) -> dict[str, Any]:
    """Part B of Knaker: may this be laid here? (an illegal play is an answer too; texts in the asker's language)."""
    return knaker_pile.verdict_json(knaker_pile.judge(knaker_pile.parse_play(data)), translate)


def schloapfer_eyes(data: Mapping[str, Any], translate: Callable[[str], str]) -> dict[str, Any]:
    """SL-2: the eyes of a pile of cards for the given trump."""
    cards, trump = schloapfer.parse_eyes_request(data)
    return schloapfer.eye_count_json(schloapfer.eye_count(cards, trump))


def trick_play(data: Mapping[str, Any], translate: Callable[[str], str]) -> dict[str, Any]:
    """SK-15, KU-3, SL-14: is this deal (or this next card) legal, and who won each trick?

    A broken rule is an answer too (``legal: false``), its reason and the card's name in the asker's language.
    """
    verdict = tricks.judge(tricks.parse_deal(data))
    out = tricks.verdict_json(verdict)
    if verdict.broken is not None:
        out["reason"] = explain(verdict.broken.violation, translate)
        out["card_name"] = card_name(verdict.broken.card, translate)  # what a screen reader says for ``card``
    return out


def trick_dispute(data: Mapping[str, Any], translate: Callable[[str], str]) -> dict[str, Any]:
    """SK-15, KU-3, SL-14 for an argument: may this card of this one trick be played, given what is known?

    Legal or not, the answer names the rule and the reason (in the asker's
    language) and offers the facts about the hand that could change it.
    """
    return dispute.judge_dispute(dispute.parse_dispute(data), translate)


#: ``/api/referee/<name>`` → its answer.
QUESTIONS: dict[str, Question] = {
    "svangknack/dealer": first_dealer,
    "schwimmen/value": hand_value,
    "knaker/play": knaker_play,
    "schloapfer/eyes": schloapfer_eyes,
    "tricks": trick_play,
    "tricks/dispute": trick_dispute,
}


def answer(name: str, data: object, translate: Callable[[str], str] = str) -> dict[str, Any]:
    """The answer to question ``name`` for the request body ``data`` (a JSON object).

    ``translate`` turns an English message template into the asker's language
    (the request's gettext on the server, the page's in the browser).
    """
    if not isinstance(data, Mapping):
        raise BadInput("body", "The request body must be a JSON object.")
    return QUESTIONS[name](data, translate)
