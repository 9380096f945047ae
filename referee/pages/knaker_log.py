"""Knaker's helpers for its templates: the games of the log, and the page's wording.

The match page shows a table of every game's places, which the cached state
does not hold (it keeps the standings and the last game only). The places of
a game follow from its logged events alone (KN-7), so they are computed with
the engine's pure :func:`~referee.engine.knaker.places_of` from the stored
payloads, without replaying the match's money.
"""

from __future__ import annotations

from typing import Any

from referee.engine import knaker
from referee.models import Match
from referee.pages import bp
from referee.round_forms import knaker as form


def _events(players: tuple[str, ...], payload: dict[str, Any]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    out = []
    for item in payload.get("events", []):
        ((kind, names),) = item.items()
        out.append((kind, tuple(players.index(n) for n in names)))
    return tuple(out)


@bp.app_template_global("knaker_log")
def knaker_log(match: Match) -> dict[str, Any]:
    """Every counted game's places and scores, and the dots of the game being played.

    ``games``: one entry per non-void game result, in order, with ``seq``,
    ``game_no``, ``places`` and ``scores`` (name -> int) and ``events``.
    ``dots``: the non-void dot rounds since the last counted game result, as
    ``{"seq", "player", "offence", "dots"}`` (``dots`` None: the offence's own).
    """
    players = tuple(match.seats)
    games: list[dict[str, Any]] = []
    dots: list[dict[str, Any]] = []
    for rnd in match.rounds:
        if rnd.void or rnd.kind != "round":
            continue
        payload = rnd.payload or {}
        if "events" in payload:
            places = knaker.places_of(players, _events(players, payload))
            scores = knaker.scores_of(places)
            games.append({"seq": rnd.seq, "game_no": len(games) + 1, "events": payload["events"],
                          "places": dict(zip(players, places, strict=True)),
                          "scores": dict(zip(players, scores, strict=True))})
            dots = []
        elif "dot" in payload:
            dot = payload["dot"]
            dots.append({"seq": rnd.seq, "player": dot.get("player"), "offence": dot.get("offence"),
                         "dots": dot.get("dots")})
    return {"games": games, "dots": dots}


@bp.app_template_global("knaker_text")
def knaker_text() -> dict[str, Any]:
    """The page's wording of offences, lost reasons and consequences, and the offences' dots and rules."""
    offences = [{"name": name, "label": form.OFFENCE_TEXT[name], "dots": o.dots, "rule": o.rule,
                 "fixed": o.fixed, "next_game": o.next_game} for name, o in knaker.OFFENCES.items()]
    return {"offences": offences, "offence": form.OFFENCE_TEXT,
            "dots": {name: o.dots for name, o in knaker.OFFENCES.items() if o.dots is not None},
            "reasons": form.REASONS,
            "consequence": form.CONSEQUENCE_TEXT, "kinds": form.KINDS}


@bp.app_template_global("knaker_referee_url")
def knaker_referee_url() -> str | None:
    """The Knaker referee page (part B, another module's page), or None while it does not exist."""
    from flask import url_for
    from werkzeug.routing import BuildError

    try:
        return url_for("pages.knaker_referee")
    except BuildError:
        return None
