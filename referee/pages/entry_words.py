"""What a page calls an entry of a match's log: its game's word and the number the table counts it by.

Why (issue 42.6): every save said "Round N saved" and every void page "Void
round N", with N the place in the log: Schwimmen and Knaker play games and
Schloapfer deals (``GameSpec.round_word``), a Knaker penalty dot took a
round's number ("Runda 2 sparad" after Spel 1), and the page that reopens a
closed match was titled "Stryk runda 5". The number is the table's
(:func:`referee.web.titles.entry_number`). Each sentence is a whole msgid of
its own, so a translation can put the word and the number where its
language wants them.
"""

from __future__ import annotations

from flask_babel import gettext as _

from referee.engine.spec import spec
from referee.engine.vocab import EventKind
from referee.models import Match, Round
from referee.web.titles import entry_number, entry_numbers


def _word(match: Match) -> str:
    return spec(match.game).round_word


def _dot_player(match: Match, rnd: Round) -> str | None:
    dot = (rnd.payload or {}).get("dot") if spec(match.game).has_dots else None
    return str(dot.get("player", "")) if isinstance(dot, dict) else None


def label(match: Match, seq: int) -> str:
    """An entry of the log (by ``seq``) as the table names it: "Deal 3", "Game 2", "Round 4"."""
    n = entry_numbers(match).get(seq, seq)
    word = _word(match)
    if word == "deal":
        return _("Deal %(n)s", n=n)
    if word == "game":
        return _("Game %(n)s", n=n)
    return _("Round %(n)s", n=n)


def void_title(rnd: Round) -> str:
    """The void page's title and button: "Void deal 3", "Reopen the match", "Void the dot of Bo"."""
    match = rnd.match
    if rnd.kind == EventKind.CLOSE:
        return _("Reopen the match")
    player = _dot_player(match, rnd)
    if player is not None:
        return _("Void the dot of %(name)s", name=player)
    n = entry_number(rnd, match)
    word = _word(match)
    if word == "deal":
        return _("Void deal %(n)s", n=n)
    if word == "game":
        return _("Void game %(n)s", n=n)
    return _("Void round %(n)s", n=n)


def saved(match: Match, rnd: Round) -> str:
    """The note after a save: "Deal 3 saved.", "Game 2 saved.", "Dot for Bo saved."."""
    player = _dot_player(match, rnd)
    if player is not None:
        return _("Dot for %(name)s saved.", name=player)
    return _saved(match, entry_number(rnd, match))


def _saved(match: Match, n: int | None) -> str:
    word = _word(match)
    if word == "deal":
        return _("Deal %(n)s saved.", n=n)
    if word == "game":
        return _("Game %(n)s saved.", n=n)
    return _("Round %(n)s saved.", n=n)


def saved_again(match: Match, seq: object) -> str:
    """The note after a form sent twice: the first save named as the table counts it."""
    n = entry_numbers(match).get(seq) if isinstance(seq, int) else None
    word = _word(match)
    if word == "deal":
        return _("Deal %(n)s was already saved; it counts once.", n=n or "?")
    if word == "game":
        return _("Game %(n)s was already saved; it counts once.", n=n or "?")
    return _("Round %(n)s was already saved; it counts once.", n=n or "?")


def voided(match: Match, rnd: Round) -> str:
    """The note after a void, worked out before it (while the entry still counts): "Deal 3 is void; …"."""
    if rnd.kind == EventKind.CLOSE:
        return _("The match is open again.")
    player = _dot_player(match, rnd)
    if player is not None:
        return _("The dot of %(name)s is void.", name=player)
    n = entry_number(rnd, match)
    word = _word(match)
    if word == "deal":
        return _("Deal %(n)s is void; the match was recomputed without it.", n=n)
    if word == "game":
        return _("Game %(n)s is void; the match was recomputed without it.", n=n)
    return _("Round %(n)s is void; the match was recomputed without it.", n=n)
