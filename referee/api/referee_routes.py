"""The referee's questions: pure engine functions behind JSON endpoints.

They need no night and no token: they read nothing and write nothing. The
answers come from :mod:`referee.engine.questions`, the same table the
in-browser engine answers from.
"""

from __future__ import annotations

from typing import Any

from flask import jsonify, request
from flask_babel import gettext

from referee.api import bp
from referee.engine import questions


def _answer(name: str) -> Any:
    return jsonify(questions.answer(name, request.get_json(silent=True), gettext))


@bp.post("/referee/svangknack/dealer")
def first_dealer() -> Any:
    """SK-3: the highest drawn card deals first."""
    return _answer("svangknack/dealer")


@bp.post("/referee/schwimmen/value")
def hand_value() -> Any:
    """SW-2/SW-3: the value of a three-card hand."""
    return _answer("schwimmen/value")


@bp.post("/referee/knaker/play")
def knaker_play() -> Any:
    """Part B of Knaker: may this be laid here? Illegal plays answer 200 too."""
    return _answer("knaker/play")


@bp.post("/referee/schloapfer/eyes")
def schloapfer_eyes() -> Any:
    """SL-2: the eyes of a pile of cards for the given trump."""
    return _answer("schloapfer/eyes")


@bp.post("/referee/tricks")
def trick_play() -> Any:
    """SK-15, KU-3, SL-14: is this deal (or this next card) legal, and who won each trick?

    A broken rule answers 200 with ``legal: false`` (the question was well formed);
    the reason is in the request's language.
    """
    return _answer("tricks")


@bp.post("/referee/tricks/dispute")
def trick_dispute() -> Any:
    """The dispute mode: may this card of this one trick be played, given what is known of the hand?

    Legal or not, the answer is 200 with the rule and the reason in the request's language.
    """
    return _answer("tricks/dispute")
