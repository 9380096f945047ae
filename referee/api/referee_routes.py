"""The referee's questions: pure engine functions behind JSON endpoints.

They need no night and no token: they read nothing and write nothing.
"""

from __future__ import annotations

from typing import Any

from flask import jsonify, request

from referee.api import bp
from referee.engine import BadInput, knaker_pile, schloapfer, schwimmen, svangknack, tricks
from referee.messages import explain


def _json() -> dict[str, Any]:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise BadInput("body", "The request body must be a JSON object.")
    return data


@bp.post("/referee/svangknack/dealer")
def first_dealer() -> Any:
    """SK-3: the highest drawn card deals first."""
    draws = svangknack.parse_draws(_json())
    return jsonify({"dealer": svangknack.first_dealer(draws), "rule": "SK-3"})


@bp.post("/referee/schwimmen/value")
def hand_value() -> Any:
    """SW-2/SW-3: the value of a three-card hand."""
    cards, deck, feuer = schwimmen.parse_value_request(_json())
    return jsonify(schwimmen.value_json(schwimmen.hand_value(cards, deck, feuer)))


@bp.post("/referee/knaker/play")
def knaker_play() -> Any:
    """Part B of Knaker: may this be laid here? Illegal plays answer 200 too."""
    play = knaker_pile.parse_play(_json())
    return jsonify(knaker_pile.verdict_json(knaker_pile.judge(play)))


@bp.post("/referee/schloapfer/eyes")
def schloapfer_eyes() -> Any:
    """SL-2: the eyes of a pile of cards for the given trump."""
    cards, trump = schloapfer.parse_eyes_request(_json())
    return jsonify(schloapfer.eye_count_json(schloapfer.eye_count(cards, trump)))


@bp.post("/referee/tricks")
def trick_play() -> Any:
    """SK-15, KU-3, SL-14: is this deal (or this next card) legal, and who won each trick?

    A broken rule answers 200 with ``legal: false`` (the question was well formed);
    the reason is in the request's language.
    """
    verdict = tricks.judge(tricks.parse_deal(_json()))
    out = tricks.verdict_json(verdict)
    if verdict.broken is not None:
        out["reason"] = explain(verdict.broken.violation)
    return jsonify(out)
