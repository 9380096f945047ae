"""Which players' rows a refused round is about, so the page can mark them (issue 19).

The engine's :class:`~referee.engine.RuleViolation` and
:class:`~referee.engine.BadInput` carry their parameters (``name``,
``player``, ``svangare``, ``missing`` …) and a ``field`` (``points.Anna``);
the rows are read from those, never from the translated text. An error that
names nobody ("tricks must add up to 3") is about every player the refused
entry gave a figure to: the players named in the payload the form made.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from werkzeug.datastructures import MultiDict

from referee import round_forms
from referee.engine import BadInput, RuleViolation

#: Fields of a round form that stand on their own, in no player's row: an error about one of them (a new stake
#: refused with SK-13 in a round where somebody went bet) is marked at that field, with its reason next to it,
#: and marks no row, though the refused entry gave figures to players (issue 42.4).
OWN_FIELDS = frozenset({"new_stake"})


def _names_in(value: object, players: set[str]) -> set[str]:
    """Player names a parameter holds: one name, a list of names, or names joined by ", "."""
    if isinstance(value, str):
        found = {value} if value in players else set()
        # Lists of names are joined by ", " (SK-10 "missing", SW-6 "players").
        return found | {part for part in value.split(", ") if part in players}
    if isinstance(value, Mapping):
        return set().union(*(_names_in(k, players) | _names_in(v, players) for k, v in value.items()))
    if isinstance(value, Iterable):
        return set().union(*(_names_in(v, players) for v in value))
    return set()


def rows(error: RuleViolation | BadInput | None, posted: MultiDict[str, str] | None, view: dict[str, Any],
         game: str, players: list[str]) -> set[str]:
    """The players whose rows the error concerns (empty when it concerns no row)."""
    if error is None:
        return set()
    if (round_forms.error_field(game, getattr(error, "rule", "")) or getattr(error, "field", "")) in OWN_FIELDS:
        return set()
    seats = set(players)
    named = _names_in(list(getattr(error, "params", {}).values()), seats)
    field = getattr(error, "field", "") or ""
    if "." in field:
        named |= _names_in(field.split(".", 1)[1], seats)
    if named or not posted:
        return named
    parse = round_forms.parser(game)
    if parse is None:
        return set()
    try:
        payload = parse(posted, view, players)
    except (RuleViolation, BadInput, ValueError, KeyError, TypeError):
        return set()
    # The figures of the refused entry: who got tricks, eyes, points, hands (not who is merely named as
    # svängare or ended the game, which say nothing about the error).
    figures = {k: v for k, v in payload.items() if isinstance(v, (Mapping, list)) and k != "events"}
    return _names_in(figures, seats)
