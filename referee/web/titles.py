"""Matches and entries numbered as the table counts them, not by a database id or a log position.

Why (issue 42.6): pages and sheets titled a match by its database id ("Kul
#1915" on a night with two Kul matches) and an entry by its place in the
log, where a close, a reopening and a Knaker penalty dot take places too
("Runda 2 sparad" after Spel 1). The table counts "the second Kul" of the
evening and "game 2" of a match:

- a match's number is its place among the night's matches of its game, in
  the order they were made (ids grow): it never changes once given;
- an entry's number is its place among the match's games (rounds, deals)
  that count: a close, a dot and a voided entry (the deal never happened)
  take none, as Knaker's own game number counts (``game_no``).
"""

from __future__ import annotations

from flask import g
from sqlalchemy import select

from referee.engine.spec import spec, title
from referee.engine.vocab import EventKind
from referee.models import Match, Round, db


def match_numbers(night_id: int) -> dict[int, int]:
    """Each match of the night (by id) and its number among the night's matches of its game: 1, 2, …

    Kept for the request (``g``): a night page titles all its matches, a settlement sheet each column."""
    kept: dict[int, dict[int, int]] = g.setdefault("match_numbers", {})
    if night_id not in kept:
        counts: dict[str, int] = {}
        numbers: dict[int, int] = {}
        for match_id, game in db.session.execute(
                select(Match.id, Match.game).where(Match.night_id == night_id).order_by(Match.id)):
            counts[game] = counts.get(game, 0) + 1
            numbers[match_id] = counts[game]
        kept[night_id] = numbers
    return kept[night_id]


def match_number(match: Match) -> int:
    """The match's number among its night's matches of its game."""
    return match_numbers(match.night_id).get(match.id, 0)


def match_title(match: Match) -> str:
    """"Kul 2": the game's name and the match's number (see :func:`match_number`); "Schwimmen / 31 · 2" for a
    name that ends in a number itself."""
    return numbered(match.game, match_number(match))


def numbered(game: str, number: int) -> str:
    """A game's name and a match's number: "Kul 2", "Schwimmen / 31 · 2"."""
    name = title(game)
    return f"{name}{' · ' if name[-1:].isdigit() else ' '}{number}"


def entry_numbers(match: Match) -> dict[int, int]:
    """Each counted entry of the match's log (by ``seq``) and its number: 1, 2, … (see the module's note).

    One query of the log's positions (and, for a game with dots, its payloads), kept for the request."""
    kept: dict[int, dict[int, int]] = g.setdefault("entry_numbers", {})
    if match.id not in kept:
        dots = spec(match.game).has_dots
        query = (select(Round.seq, Round.payload) if dots else select(Round.seq)).where(
            Round.match_id == match.id, Round.kind == EventKind.ROUND, Round.void.is_(False)).order_by(Round.seq)
        numbers: dict[int, int] = {}
        for row in db.session.execute(query):
            if dots and isinstance(row[1], dict) and "dot" in row[1]:
                continue
            numbers[row[0]] = len(numbers) + 1
        kept[match.id] = numbers
    return kept[match.id]


def entry_number(rnd: Round, match: Match | None = None) -> int | None:
    """The entry's number as the table counts it; None for a close or a dot. A voided entry has the number
    of the place it took (the entry made again after it has the same: "round 3, struck; round 3")."""
    match = match or rnd.match  # (a round just written knows only its match's id)
    if rnd.kind != EventKind.ROUND or (spec(match.game).has_dots and "dot" in (rnd.payload or {})):
        return None
    numbers = entry_numbers(match)
    return numbers.get(rnd.seq) or sum(1 for seq in numbers if seq < rnd.seq) + 1


def forget(match_id: int) -> None:
    """Forget the request's numbers of a match whose log just changed (a save, a void)."""
    g.get("entry_numbers", {}).pop(match_id, None)
