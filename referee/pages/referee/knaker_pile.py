"""Knaker part B at the table: the pile referee page, "may I lay this here?" (issue 7).

Not a match page: nothing is stored. The whole page state travels in the form
itself (hidden inputs), so the page works without JavaScript as a sequence of
POSTs to ``/referee/knaker``; ``static/js/knaker_referee.js`` adds cards,
starts lays and undoes without a round trip and fetches the verdict from
``POST /referee/knaker/verdict`` (the same checks, answered as JSON with HTML
fragments rendered by the page's own macros).

The form's fields:

- ``pile``: the discard pile bottom to top, codes separated by spaces
  (``5H 5S 7C``). A ``*`` after a code marks a card laid by the asking player,
  as ``knaker_pile.lay`` returns it when the player lays again (it matters only
  for the hexa-kajak handicap, KN-17.2.6).
- ``lays``: the turn, lays separated by ``;``, each ``source:cards``
  (``hand:5D 5C;face_up:6H 8D``). Only the last lay may be empty (after
  "next lay": the next tapped card starts it).
- ``history``: a JSON list of earlier ``[pile, lays]`` pairs for "undo" (the
  latest :data:`HISTORY` changes of the cards; toggles are not in it).
- toggles: ``target`` (``pile`` or ``lay``: where a tapped card goes),
  ``suit`` (of the next tapped rank), ``source`` (of the lay being built),
  ``instick``, ``last_card``, ``dots`` (0 ... 5), ``double_deck``,
  ``no_insticks``, ``hexa_kajak`` (handicaps).
- buttons: ``add`` (a rank, taken in the chosen suit, or ``XR``/``XB``) and
  ``action``: ``new_lay``, ``undo``, ``clear_lays``, ``clear_pile``, ``lay``
  ("Lay it"), ``type`` (the typed cards of ``typed``), ``ask``.

No rule arithmetic here: every verdict, the pile after "Lay it" (a flip
empties it) and every check of the cards themselves (unknown cards, more
copies than the deck holds, a 10 lying on the pile) come from
:mod:`referee.engine.knaker_pile`. Bad cards become a message on the page
(status 400), never a 500; an illegal play is an ordinary answer (200).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from flask import get_template_attribute, jsonify, render_template, request
from flask_babel import gettext as _
from werkzeug.datastructures import MultiDict

from referee import json_depth
from referee.engine import BadInput
from referee.engine import knaker_pile as kp
from referee.engine.cards import RANKS, SUIT_SYMBOLS, SUITS, parse_card
from referee.messages import card_name, explain
from referee.pages import bp

#: How many earlier steps "undo" can go back.
HISTORY = 40
#: Dots offered as toggles: from 5 the player is disqualified (KN-16.8), more change nothing.
DOTS = tuple(range(6))
#: Longest text accepted in one state field (a double deck has 110 cards).
MAX_TEXT = 2000
MAX_HISTORY_TEXT = 100_000

TEMPLATE = "pages/knaker_referee.html"
#: The boxes the page and the script's fragments share (a template of macros only).
PARTS = "pages/knaker_referee_parts.html"

LaySpec = tuple[str, tuple[str, ...]]


# --- the page state -------------------------------------------------------------

@dataclass(frozen=True)
class Board:
    """The cards on the page: the pile (bottom to top) and the lays of the turn."""

    pile: tuple[str, ...] = ()
    lays: tuple[LaySpec, ...] = ()

    def texts(self) -> tuple[str, str]:
        """The hidden fields ``pile`` and ``lays``."""
        return " ".join(self.pile), ";".join(f"{src}:{' '.join(cards)}" for src, cards in self.lays)

    @property
    def played(self) -> tuple[LaySpec, ...]:
        """The lays with cards (the request's ``lays``)."""
        return tuple(lay for lay in self.lays if lay[1])

    def with_source(self, source: str) -> Board:
        """The source toggle belongs to the lay being built (the last one)."""
        if not self.lays or self.lays[-1][0] == source:
            return self
        return replace(self, lays=self.lays[:-1] + ((source, self.lays[-1][1]),))

    def add(self, codes: tuple[str, ...], target: str, source: str) -> Board:
        if target == "pile":
            return replace(self, pile=self.pile + codes)
        if not self.lays:
            return replace(self, lays=((source, codes),))
        src, cards = self.lays[-1]
        return replace(self, lays=self.lays[:-1] + ((src, cards + codes),))

    def next_lay(self, source: str) -> Board:
        if not self.lays or not self.lays[-1][1]:
            return self
        return replace(self, lays=self.lays + ((source, ()),))


@dataclass(frozen=True)
class Settings:
    """The toggles of the page."""

    target: str = "pile"
    suit: str = "S"
    source: str = "hand"
    instick: bool = False
    last_card: bool = False
    dots: int = 0
    double_deck: bool = False
    handicaps: tuple[str, ...] = ()


def read_settings(form: MultiDict[str, str]) -> Settings:
    """Toggles from the form; a value no control can send falls back to its default."""
    def pick(name: str, choices: tuple[str, ...], default: str) -> str:
        value = form.get(name, default)
        return value if value in choices else default

    dots_text = form.get("dots", "0")
    dots = int(dots_text) if dots_text in [str(d) for d in DOTS] else 0
    return Settings(target=pick("target", ("pile", "lay"), "pile"), suit=pick("suit", SUITS, "S"),
                    source=pick("source", kp.SOURCES, "hand"), instick=_on(form, "instick"),
                    last_card=_on(form, "last_card"), dots=dots, double_deck=_on(form, "double_deck"),
                    handicaps=tuple(h for h in kp.HANDICAPS if _on(form, h)))


def _on(form: MultiDict[str, str], name: str) -> bool:
    return form.get(name) in ("on", "1", "true")


def _code(token: str, field: str, allow_self: bool) -> str:
    """One card of a state field in its canonical code (``*``: laid by the asking player)."""
    mine = allow_self and token.endswith("*")
    return parse_card(token[:-1] if mine else token, field).code + ("*" if mine else "")


def read_board(pile_text: str, lays_text: str) -> Board:
    """The hidden fields as a :class:`Board`; :class:`BadInput` if they cannot be read."""
    if len(pile_text) > MAX_TEXT or len(lays_text) > MAX_TEXT:
        raise BadInput("pile", _("Far more cards than a double deck holds."))
    pile = tuple(_code(tok, "pile", True) for tok in pile_text.split())
    lays: list[LaySpec] = []
    parts = [p.strip() for p in lays_text.split(";")] if lays_text.strip() else []
    for n, part in enumerate(parts):
        source, sep, cards = part.partition(":")
        if not sep or source.strip() not in kp.SOURCES:
            raise BadInput("lays", _("A lay must start with its source (%(sources)s).",
                                     sources=", ".join(kp.SOURCES)))
        codes = tuple(_code(tok, "lays", False) for tok in cards.split())
        if codes or n == len(parts) - 1:  # only the lay being built may be empty
            lays.append((source.strip(), codes))
    return Board(pile, tuple(lays))


def read_history(text: str) -> list[tuple[str, str]]:
    """Earlier states for undo; anything unreadable is simply no history."""
    if len(text) > MAX_HISTORY_TEXT:
        return []
    try:
        data = json_depth.loads(text, "history") if text else []
    except ValueError:
        return []
    if not isinstance(data, list):
        return []
    return [(p, s) for p, s in (tuple(e) for e in data if isinstance(e, list) and len(e) == 2)
            if isinstance(p, str) and isinstance(s, str)][-HISTORY:]


# --- the engine's questions ---------------------------------------------------------

def request_json(board: Board, settings: Settings) -> dict[str, Any]:
    """The board as the API's request (``POST /api/referee/knaker/play``)."""
    return {
        "pile": [{"card": c[:-1], "by": "self"} if c.endswith("*") else c for c in board.pile],
        "lays": [{"cards": list(cards), "source": src} for src, cards in board.played],
        "source": settings.source,
        "instick": settings.instick,
        "last_card": settings.last_card,
        "dots": settings.dots,
        "double_deck": settings.double_deck,
        "handicaps": list(settings.handicaps),
    }


def check(board: Board, settings: Settings) -> kp.Verdict | None:
    """The verdict on the turn (None before a card is laid); BadInput for impossible cards."""
    data = request_json(board, settings)
    if data["lays"]:
        return kp.judge(kp.parse_play(data))
    if board.pile:
        # No lay yet, but the pile must already be possible. The engine reads a pile only
        # together with a lay, so its top card stands in as the lay: every card is counted
        # once against the deck, and the rest may not hold a 10 (KN-4.1). Then the top card
        # alone, on a pile of its own, for the 10 check (a black joker cannot exceed the deck).
        top = board.pile[-1].rstrip("*")
        kp.parse_play({**data, "pile": data["pile"][:-1], "lays": [[top]]})
        kp.parse_play({"pile": [top], "lays": [["XB"]]})
    return None


# --- the actions --------------------------------------------------------------------

@dataclass
class Outcome:
    """What one POST did: the new board and settings, and what to tell the leader."""

    board: Board
    settings: Settings
    history: list[tuple[str, str]]
    error: str | None = None
    laid: kp.Verdict | None = None
    refused: bool = False  # "Lay it" on an illegal play


def _tapped(value: str, suit: str) -> tuple[str, ...]:
    """A card button: a rank in the chosen suit, or a joker."""
    value = value.strip().upper()
    if value in ("XR", "XB"):
        return (value,)
    if value not in RANKS:
        raise BadInput("add", _("%(value)s is not a rank.", value=value[:12]))
    return (value + suit,)


def _typed(text: str) -> tuple[str, ...]:
    tokens = re.split(r"[\s,;]+", text.strip())[:120]
    codes = tuple(parse_card(tok, "typed").code for tok in tokens if tok)
    if not codes:
        raise BadInput("typed", _("Type cards like 5H 10S QD XR, separated by spaces."))
    return codes


def act(board: Board, settings: Settings, history: list[tuple[str, str]],
        form: MultiDict[str, str]) -> Outcome:
    """Apply the tapped button to the page state."""
    out = Outcome(board, settings, history)
    action = form.get("action", "ask")
    try:
        if "add" in form or action == "type":
            codes = _tapped(form["add"], settings.suit) if "add" in form else _typed(form.get("typed", ""))
            new = board.add(codes, settings.target, settings.source)
            check(new, settings)  # refuse impossible cards before they reach the page
            _push(out, new)
        elif action == "new_lay":
            _push(out, board.next_lay(settings.source))
        elif action == "clear_lays":
            _push(out, Board(board.pile, ()))
        elif action == "clear_pile":
            _push(out, Board((), board.lays))
        elif action == "undo":
            if history:
                pile_text, lays_text = history[-1]
                out.board, out.history = read_board(pile_text, lays_text), history[:-1]
            else:
                out.error = _("Nothing to undo.")
        elif action == "lay":
            _lay(out)
    except BadInput as exc:
        out.error = explain(exc)
    return out


def _push(out: Outcome, new: Board) -> None:
    if new != out.board:
        out.history = (out.history + [out.board.texts()])[-HISTORY:]
        out.board = new


def _lay(out: Outcome) -> None:
    """ "Lay it": the pile after the turn (empty after a flip), the next player's turn."""
    if not out.board.played:
        out.error = _("Tap the cards to be laid first.")
        return
    play = kp.parse_play(request_json(out.board, out.settings))
    verdict = kp.judge(play)
    if not verdict.legal:
        out.refused = True
        return
    pile = tuple(pc.card.code + ("*" if pc.by_self else "") for pc in kp.lay(play))
    _push(out, Board(pile, ()))
    out.laid = verdict
    # The next question usually comes from the next player: no instick or last card yet.
    out.settings = replace(out.settings, instick=False, last_card=False)


# --- views --------------------------------------------------------------------------

def _chip(code: str) -> dict[str, Any]:
    mine = code.endswith("*")
    card = parse_card(code.rstrip("*"))
    text = "★" if card.is_joker else f"{card.rank}{SUIT_SYMBOLS[card.suit]}"
    return {"code": card.code, "text": text, "red": card.suit in ("H", "D", "R"), "mine": mine,
            "name": card_name(card.code)}


def _verdict_view(v: kp.Verdict | None) -> dict[str, Any] | None:
    if v is None:
        return None
    view = kp.verdict_json(v, _)
    view["outcome_text"] = _(kp.RULE_TEXT[v.outcome_rule]) if v.outcome_rule in kp.RULE_TEXT else ""
    view["levels"] = [_(kp.LEVEL_WORDS[e]) for e in v.effects if e in kp.LEVEL_WORDS]
    return view


def page_context(board: Board, settings: Settings, history: list[tuple[str, str]],
                 error: str | None = None, laid: kp.Verdict | None = None, refused: bool = False) -> dict[str, Any]:
    """Everything the template needs; the verdict of the board is asked here."""
    verdict: kp.Verdict | None = None
    if error is None:
        try:
            verdict = check(board, settings)
        except BadInput as exc:
            error = explain(exc)
    if board.lays:
        settings = replace(settings, source=board.lays[-1][0])
    pile_text, lays_text = board.texts()
    bad = verdict.lay_index if verdict is not None and not verdict.legal else None
    return {
        "pile": [_chip(c) for c in board.pile],
        "lays": [{"source": src, "cards": [_chip(c) for c in cards], "bad": i == bad}
                 for i, (src, cards) in enumerate(board.lays)],
        "pile_text": pile_text, "lays_text": lays_text, "history_text": json.dumps(history),
        "can_undo": bool(history), "s": settings, "error": error,
        "verdict": _verdict_view(verdict), "laid": _verdict_view(laid), "refused": refused,
        "ranks": RANKS, "suits": [(s, SUIT_SYMBOLS[s], s in ("H", "D")) for s in SUITS],
        "sources": kp.SOURCES, "dots_choices": DOTS,
    }


@bp.route("/referee/knaker", methods=["GET", "POST"])
def knaker_referee() -> Any:
    """The referee page; every button posts the whole state back."""
    if request.method == "GET":
        return render_template(TEMPLATE, c=page_context(Board(), Settings(), []))
    settings = read_settings(request.form)
    history = read_history(request.form.get("history", ""))
    try:
        board = read_board(request.form.get("pile", ""), request.form.get("lays", "")).with_source(settings.source)
    except BadInput as exc:
        message = _("The cards on this page could not be read (%(reason)s), so it starts again from an "
                    "empty pile.", reason=explain(exc))
        return render_template(TEMPLATE, c=page_context(Board(), settings, [], error=message)), 400
    out = act(board, settings, history, request.form)
    ctx = page_context(out.board, out.settings, out.history, error=out.error, laid=out.laid, refused=out.refused)
    status = 400 if ctx["error"] else (422 if out.refused else 200)
    return render_template(TEMPLATE, c=ctx), status


@bp.post("/referee/knaker/verdict")
def knaker_referee_verdict() -> Any:
    """For the page's script: the verdict of the posted state, as HTML fragments in JSON.

    ``ok`` is false when the cards are impossible (the script then takes back its last tap).
    """
    settings = read_settings(request.form)
    try:
        board = read_board(request.form.get("pile", ""), request.form.get("lays", "")).with_source(settings.source)
    except BadInput as exc:
        board, error = Board(), explain(exc)
    else:
        error = None
    ctx = page_context(board, settings, read_history(request.form.get("history", "")), error=error)
    verdict_box = get_template_attribute(PARTS, "verdict_box")
    board_box = get_template_attribute(PARTS, "board_box")
    return jsonify({"ok": ctx["error"] is None, "error": ctx["error"], "verdict": verdict_box(ctx),
                    "board": board_box(ctx)})
