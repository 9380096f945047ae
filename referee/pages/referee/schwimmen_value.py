"""Schwimmen's extra page (the hand-value referee) and the small display helpers its pages use.

``/referee/schwimmen/value``: pick three cards of a deck (32, 36 or 52; Feuer
on or off) and see the value and the rule behind it (SW-2, SW-3, SW-5). It is a
GET form (works without JavaScript; a link can be shared); with JavaScript the
result part is fetched as a fragment (``?fragment=1``) on every tap. The value
is the engine's (``hand_value``, ``explain``), as for the JSON endpoint
``POST /api/referee/schwimmen/value``.

The template filters only format what the engine computed: a value in half
points as "30½", suits with red hearts and diamonds, a game's one-line summary.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flask import render_template, request
from flask_babel import gettext as _
from markupsafe import Markup, escape

from referee.engine import BadInput, RuleViolation
from referee.engine import schwimmen as sw
from referee.engine.cards import SUIT_SYMBOLS, parse_card
from referee.messages import card_name, explain
from referee.pages import bp
from referee.round_forms.schwimmen import card_codes

#: Suits in the order the picker shows them: clubs, spades, hearts, diamonds (SW-6's ranking).
PICKER_SUITS = ("C", "S", "H", "D")
RED = ("H", "D")


# --- display helpers ---------------------------------------------------------

@bp.app_template_filter("sw_num")
def sw_num(value: Any) -> str:
    """A hand value as the table says it: 30, 30½ (a JSON number, or None -> "–")."""
    if value is None or value == "":
        return "–"
    half = round(float(value) * 2)
    return f"{half // 2}½" if half % 2 else str(half // 2)


@bp.app_template_filter("sw_suits")
def sw_suits(text: Any) -> Markup:
    """Text with ♥ and ♦ wrapped in ``<span class="suit-red">`` (screen and PDF), escaped."""
    out = str(escape(text))
    for suit in RED:
        symbol = SUIT_SYMBOLS[suit]
        out = out.replace(symbol, f'<span class="suit-red">{symbol}</span>')
    return Markup(out)


def _options(options: Mapping[str, Any]) -> tuple[int, bool]:
    deck = options.get("deck", 32)
    return (deck if deck in sw.DECKS else 32), bool(options.get("feuer", True))


@bp.app_template_filter("sw_explain")
def sw_explain(cards: Any, options: Mapping[str, Any] | None = None) -> str:
    """How a hand counts ("♣ A K 9 = 30"): typed text or a list of codes; "" for no valid hand."""
    codes = card_codes(cards) if isinstance(cards, str) else list(cards or [])
    deck, feuer = _options(options or {})
    try:
        hand = tuple(parse_card(c) for c in codes)
        sw.hand_value(hand, deck, feuer)
    except (BadInput, RuleViolation):
        return ""
    return sw.explain(hand, feuer)


@bp.app_template_filter("sw_card")
def sw_card(code: str) -> Markup:
    """One card for people: ``A<span class="suit-red">♥</span>``."""
    return sw_suits(code[:-1] + SUIT_SYMBOLS.get(code[-1:], code[-1:]))


def value_ranges(halves: Sequence[int]) -> str:
    """Possible values (half points) as ranges: "8–11, 15–21, 24–31, 30½, 32".

    No suit totals more than 31, so a 32 is Feuer; it is listed last, after 30½.
    """
    whole = sorted(h // 2 for h in halves if h % 2 == 0 and h < sw.FEUER)
    parts: list[tuple[int, int]] = []
    for v in whole:
        if parts and parts[-1][1] == v - 1:
            parts[-1] = (parts[-1][0], v)
        else:
            parts.append((v, v))
    texts = [str(a) if a == b else f"{a}–{b}" for a, b in parts]
    texts += [f"{h // 2}½" for h in halves if h % 2]
    texts += ["32" for h in halves if h == sw.FEUER]
    return ", ".join(texts)


@bp.app_template_global("sw_possible")
def sw_possible(options: Mapping[str, Any]) -> str:
    deck, feuer = _options(options)
    return value_ranges(sw.possible_values(deck, feuer))


@bp.app_template_global("sw_game_values")
def sw_game_values(payload: Mapping[str, Any], options: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(name, value text) per player of a stored game entered by hands or values, in the log's order."""
    if payload.get("hands"):
        return [(name, sw_num(_half_value(cards, options))) for name, cards in payload["hands"].items()]
    if payload.get("points"):
        return [(name, sw_num(v)) for name, v in payload["points"].items()]
    return []


def _half_value(cards: Sequence[str], options: Mapping[str, Any]) -> Any:
    _deck, feuer = _options(options)
    try:
        return sw.rate(tuple(parse_card(c) for c in cards), feuer).value
    except BadInput:
        return None


@bp.app_template_global("sw_grid")
def sw_grid(options: Mapping[str, Any]) -> list[tuple[str, list[tuple[str, str]]]]:
    """The picker's cards: per suit (clubs, spades, hearts, diamonds), the deck's ranks from the ace down."""
    deck, _feuer = _options(options)
    return [(suit, [(rank + suit, rank) for rank in reversed(sw.DECK_RANKS[deck])]) for suit in PICKER_SUITS]


# --- the hand-value referee page ---------------------------------------------

def _rule_text(kind: str, cards: Sequence[Any], feuer: bool) -> str:
    if kind == "feuer":
        return _("Three aces are Feuer: they count 32. Whoever holds them shows them at once, the game ends "
                 "and every other player loses a life (SW-3, SW-5).")
    if kind == "three_of_a_kind":
        if not feuer and all(c.rank == "A" for c in cards):
            return _("Three aces without Feuer are an ordinary three of a kind: 30½ (SW-3).")
        return _("Three cards of the same rank count 30½ (SW-3).")
    if kind == "31":
        return _("31 is the best suit total (Schnauz). Whoever holds it shows it at once and the game ends; "
                 "the lowest hand loses a life (SW-3, SW-5).")
    return _("A hand counts the highest total of cards of one suit: ace 11, king, queen and jack 10, "
             "number cards their face value (SW-2, SW-3).")


@bp.get("/referee/schwimmen/value")
def schwimmen_value() -> Any:
    """Pick three cards and see their value (SW-2, SW-3, SW-5)."""
    try:
        deck = int(request.args.get("deck", "32"))
    except ValueError:
        deck = 32
    if deck not in sw.DECKS:
        deck = 32
    feuer = request.args.get("feuer", "on") != "off"
    codes = [c.strip().upper() for c in request.args.getlist("card") if c.strip()][:8]
    typed = request.args.get("cards", "")[:60]
    if typed.strip():
        codes += card_codes(typed)
    result: dict[str, Any] | None = None
    error = ""
    if codes:
        try:
            hand = tuple(parse_card(c) for c in codes)
            hv = sw.hand_value(hand, deck, feuer)
        except BadInput as exc:
            error = explain(exc)
        except RuleViolation as exc:
            error = explain(exc) if len(codes) >= 3 else ""
        else:
            # ``spoken``: the cards in words for a screen reader, which reads "♣ A K 9" as symbol and letters.
            result = {"value": hv.value, "kind": hv.kind, "explain": sw.explain(hand, feuer),
                      "spoken": ", ".join(card_name(c.code) for c in hand),
                      "rule": _rule_text(hv.kind, hand, feuer)}
    context = {
        "deck": deck, "feuer": feuer, "chosen": codes, "result": result, "error": error,
        "grid": sw_grid({"deck": deck}), "possible": value_ranges(sw.possible_values(deck, feuer)),
        "typed": typed, "back": request.args.get("m", type=int),
    }
    if request.args.get("fragment"):
        return render_template("pages/schwimmen_value_result.html", **context)
    return render_template("pages/schwimmen_value.html", **context)


@bp.app_template_global("sw_pot_won")
def sw_pot_won(before: Any, after: Any) -> int:
    """The pot the winner(s) of a game took, in minor units: the pot before the game plus, with
    ``pay_per_life``, the stake of every life lost in it (SW-9). 0 when nobody won in this game."""
    if before.winner is not None or before.winners is not None:
        return 0
    if after.winner is None and after.winners is None:
        return 0
    fees = before.stake * len(after.last_losers) if before.options.pay_per_life else 0
    return int(before.pot + fees)
