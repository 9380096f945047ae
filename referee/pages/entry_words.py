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

from referee.engine import N_
from referee.engine.spec import spec
from referee.engine.vocab import EventKind
from referee.models import Match, Round
from referee.web.titles import entry_number, entry_numbers

#: Each sentence about an entry, in the three words a game counts its entries by (``GameSpec.round_word``): one whole
#: msgid each (marked with ``N_`` for extraction, translated when said), so a language places word and number freely.
_SENTENCES: dict[str, dict[str, str]] = {
    "label": {"deal": N_("Deal %(n)s"), "game": N_("Game %(n)s"), "round": N_("Round %(n)s")},
    "void": {"deal": N_("Void deal %(n)s"), "game": N_("Void game %(n)s"), "round": N_("Void round %(n)s")},
    "saved": {"deal": N_("Deal %(n)s saved."), "game": N_("Game %(n)s saved."), "round": N_("Round %(n)s saved.")},
    "saved_again": {"deal": N_("Deal %(n)s was already saved; it counts once."),
                    "game": N_("Game %(n)s was already saved; it counts once."),
                    "round": N_("Round %(n)s was already saved; it counts once.")},
    "voided": {"deal": N_("Deal %(n)s is void; the match was recomputed without it."),
               "game": N_("Game %(n)s is void; the match was recomputed without it."),
               "round": N_("Round %(n)s is void; the match was recomputed without it.")},
    "correct": {"deal": N_("Correct deal %(n)s"), "game": N_("Correct game %(n)s"),
                "round": N_("Correct round %(n)s")},
    "corrected": {"deal": N_("Deal %(n)s corrected; the match was recomputed with it."),
                  "game": N_("Game %(n)s corrected; the match was recomputed with it."),
                  "round": N_("Round %(n)s corrected; the match was recomputed with it.")},
}


def _said(sentence: str, match: Match, n: object) -> str:
    """``sentence`` in the match's game's word (a game with another word than deal or game says round)."""
    words = _SENTENCES[sentence]
    return _(words.get(spec(match.game).round_word, words["round"]), n=n)


def _dot_player(match: Match, rnd: Round) -> str | None:
    dot = (rnd.payload or {}).get("dot") if spec(match.game).has_dots else None
    return str(dot.get("player", "")) if isinstance(dot, dict) else None


def label(match: Match, seq: int) -> str:
    """An entry of the log (by ``seq``) as the table names it: "Deal 3", "Game 2", "Round 4"."""
    return _said("label", match, entry_numbers(match).get(seq, seq))


def void_title(rnd: Round) -> str:
    """The void page's title and button: "Void deal 3", "Reopen the match", "Void the dot of Bo"."""
    match = rnd.match
    if rnd.kind == EventKind.CLOSE:
        return _("Reopen the match")
    player = _dot_player(match, rnd)
    if player is not None:
        return _("Void the dot of %(name)s", name=player)
    return _said("void", match, entry_number(rnd, match))


def saved(match: Match, rnd: Round) -> str:
    """The note after a save: "Deal 3 saved.", "Game 2 saved.", "Dot for Bo saved."."""
    player = _dot_player(match, rnd)
    if player is not None:
        return _("Dot for %(name)s saved.", name=player)
    return _said("saved", match, entry_number(rnd, match))


def saved_again(match: Match, seq: object) -> str:
    """The note after a form sent twice: the first save named as the table counts it."""
    n = entry_numbers(match).get(seq) if isinstance(seq, int) else None
    return _said("saved_again", match, n or "?")


def voided(match: Match, rnd: Round) -> str:
    """The note after a void, worked out before it (while the entry still counts): "Deal 3 is void; …"."""
    if rnd.kind == EventKind.CLOSE:
        return _("The match is open again.")
    player = _dot_player(match, rnd)
    if player is not None:
        return _("The dot of %(name)s is void.", name=player)
    return _said("voided", match, entry_number(rnd, match))


def correct_title(rnd: Round) -> str:
    """The correct page's title and link: "Correct deal 3", "Correct game 2", "Correct round 3"."""
    return _said("correct", rnd.match, entry_number(rnd, rnd.match))


def corrected(match: Match, rnd: Round) -> str:
    """The note after a correction, worked out before it (while the entry still counts): "Round 3 corrected; …"."""
    return _said("corrected", match, entry_number(rnd, match))
