"""Printable sheets (WeasyPrint): score protocols of matches, settlement sheets.

A protocol is the match replayed from its log, one step per event (void
events shown struck through with their reason). The common frame is
``templates/reports/protocol.html``; each game supplies only its part,
``templates/reports/protocol_<game>.html``, which gets the steps and the
engine's JSON states before and after each step.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, abort, current_app, g, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from markupsafe import Markup
from weasyprint import HTML

from referee import exports, ledger
from referee.engine.cards import SUIT_SYMBOLS, parse_card
from referee.engine.spec import spec
from referee.ledger import by_version, fingerprint, fold, paying, payments, rights
from referee.messages import relocale
from referee.models import Match, Night
from referee.reports import sheet
from referee.reports.codes import qr_img
from referee.reports.rounds import VOID_ROWS, balance_grids, pot_word, void_grid
from referee.reports.rounds import svangknack_grid as grid
from referee.reports.step import Step
from referee.round_forms import options_in_words
from referee.web import amounts, balance_lines, pay
from referee.web.caller import caller, grants

bp = Blueprint("reports", __name__)


# ``|num`` (an amount of the engine's state in the reader's locale) and ``|pot_word`` for the sheets.
bp.add_app_template_filter(amounts.num, "num")
bp.add_app_template_filter(pot_word, "pot_word")


def steps(match: Match) -> list[Step]:
    """Replay the log once, keeping each event's before and after.

    A void event leaves the state as it was; it is listed so the sheet can
    strike it through.
    """
    module = spec(match.game)
    money = ledger.night_money(match.night)
    out: list[Step] = []
    state_json: dict[str, Any] | None = None
    for rnd, before, state in fold.steps(match):  # a log that no longer replays: fold.CorruptLog
        before_json = state_json if state_json is not None else module.state_json(before, money)
        state_json = before_json if state is before else module.state_json(state, money)
        out.append(Step(rnd, before_json, state_json, before, state))
    return out


@bp.app_template_global()
def suit_symbol(suit: str) -> str:
    """A suit's letter (``H``) as its symbol (``♥``), for the deal logs of the protocols and match pages."""
    return SUIT_SYMBOLS.get(suit, suit)


@bp.app_template_global("deal_tricks")
def deal_tricks(deal: dict[str, Any]) -> list[dict[str, Any]]:
    """A stored deal log as the protocol prints it: per trick, who played which card, and who won.

    Who played each card follows from the leader and the winners (the
    winner of a trick leads the next), so the log needs no seats of its own.
    """
    players = list(deal.get("players") or [])
    winners = list(deal.get("winners") or [])
    lead = deal.get("leader")
    out: list[dict[str, Any]] = []
    for k, trick in enumerate(deal.get("tricks") or []):
        start = players.index(lead) if lead in players else 0
        cards = []
        for i, code in enumerate(trick):
            card = parse_card(code)
            cards.append((players[(start + i) % len(players)], card.label, not card.is_black))
        winner = winners[k] if k < len(winners) else None
        out.append({"n": k + 1, "cards": cards, "winner": winner})
        lead = winner
    return out


@bp.app_template_filter("css_string")
def css_string(text: str) -> Markup:
    """``text`` as a quoted CSS string, for ``content:`` in a ``<style>`` (the PDF footer's night name).

    HTML escaping is wrong there (a style sheet is raw text: ``Tom & Jerry``
    printed as ``Tom &amp; Jerry``); every character but ASCII letters and
    digits is written as a six-digit CSS escape instead (a space too: CSS
    swallows one after an escape), so no quote, backslash or ``</style>``
    can end the string or the sheet.
    """
    return Markup('"' + "".join(ch if ch.isalnum() and ch.isascii() else f"\\{ord(ch):06x}"
                                for ch in text) + '"')


@bp.app_template_filter("short_fingerprint")
def short_fingerprint(night: object) -> str:
    """A night's fingerprint as every sheet prints it, its first 16 characters (issue 46.2); "" for no night.

    A season's sheet stands for a group, not a night, and has none.
    """
    return fingerprint.fingerprint(night)[:16] if isinstance(night, Night) else ""


def render_pdf(html: str) -> bytes:
    """HTML to PDF; fonts are the system's (DejaVu on Debian), embedded by WeasyPrint.

    Python's cyclic garbage collector is paused for the render: WeasyPrint
    allocates hundreds of thousands of small objects (boxes, styles, text
    runs), which set off collections that walk the whole heap again and again
    (about a tenth of a long protocol's time) and find next to nothing; what
    the render leaves behind is collected when the collector runs again
    afterwards. Only the thread that paused it turns it back on.

    After a long document (:data:`LONG_HTML`) the render's garbage is
    collected at once and the C heap's free pages handed back to the system
    (``malloc_trim``): a worker that printed the largest night's sheets kept
    its peak (837 MB) for good, though nothing of it was in use.
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        return bytes(HTML(string=html, base_url=request.host_url).write_pdf(pdf_tags=True))  # tagged (issue 50.7)
    finally:
        if paused:
            gc.enable()
            if len(html) > LONG_HTML:
                gc.collect()
                _trim()


#: A document this long (characters of HTML) is collected after and its free memory given back: a page
#: of a sheet is a few thousand characters, so the common sheets pay nothing (a collection costs ~0.1 s).
LONG_HTML = 100_000
_LIBC = ctypes.util.find_library("c")
_malloc_trim = getattr(ctypes.CDLL(_LIBC), "malloc_trim", None) if _LIBC else None


def _trim() -> None:
    """Hand the C heap's free pages back to the system (glibc only; elsewhere nothing)."""
    if _malloc_trim is not None:
        _malloc_trim(0)


def kept_pdf(night: Night, what: tuple[Any, ...], html: Callable[[], str]) -> bytes:
    """The sheet ``what`` of this version of ``night``, rendered once per version, language and host.

    Why: at the end of a club evening many phones ask for the same sheet at
    once; three settlement sheets of the largest night took three renders
    (45 s before issue 45.6). The first reader renders, the others at the
    same moment wait for its answer (:mod:`referee.ledger.by_version`, which
    forgets it when the night changes). Only a request that may read the
    sheet gets here. The sheet is in the night's language unless the request
    asks for one (:func:`in_night_language`).
    """
    in_night_language(night)
    return by_version.kept(night, ("pdf", *what, str(get_locale()), request.host_url),
                           lambda: render_pdf(html()), wait=RENDER_WAIT)


def in_night_language(night: Night) -> None:
    """Let the night's language answer for a request that asks for none (``referee.select_locale``): a PDF
    app opening a sheet's link sends no Accept-Language and has no cookie; it got English before."""
    if night.language and g.get("night_language") != night.language:
        g.night_language = night.language
        relocale()  # a locale already worked out for this request (an error text, the rights check) is forgotten


#: Seconds a reader waits for another's render of the same sheet before it renders its own (a sheet of
#: the largest night takes a few seconds on a loaded machine; a render that failed lets the waiters go at once).
RENDER_WAIT = 30.0


def pdf_response(data: bytes, filename: str) -> Response:
    resp = Response(data, mimetype="application/pdf")
    resp.headers["Content-Disposition"] = f'inline; filename="{filename}"'
    return resp


def allowed(night: Night) -> bool:
    """Readers of a sheet: a phone with rights, or the night's view or edit token (a wrong one is counted)."""
    auth = request.headers.get("Authorization", "")
    token = auth[7:].strip() if auth.lower().startswith("bearer ") else request.args.get("view", "")
    return rights.night_access(night, token or None, caller(), grants=grants()).may_view()


def readable(night: Night) -> Night:
    """``night``, or a 403 for a request that may not read its sheets."""
    if not allowed(night):
        abort(403)
    return night


def readable_night(night_id: int) -> Night:
    """The night of the URL (404 if none) once the request may read it (403 otherwise)."""
    try:
        night = ledger.get_night(night_id)
    except ledger.NotFound:
        abort(404)
    return readable(night)


@bp.get("/matches/<int:match_id>/protocol.pdf")
def protocol(match_id: int) -> Response:
    try:
        match = ledger.get_match(match_id)
    except ledger.NotFound:
        abort(404)
    readable(match.night)
    data = kept_pdf(match.night, ("protocol", match.id), lambda: protocol_html(match))
    return pdf_response(data, f"protocol-{match.game}-{match.id}.pdf")


@bp.app_template_global()
def svangknack_grid(rounds: list[Step]) -> Any:
    """The rounds of a Svängknack protocol as a text grid (``reports/_grid.html``)."""
    return grid(rounds)


@bp.app_template_global()
def svangknack_balances(rounds: list[Step], seats: list[str]) -> Any:
    """The running balances of a protocol as text grids, as many players to a grid as fit."""
    return balance_grids(rounds, seats)


def protocol_html(match: Match) -> str:
    """The protocol's HTML; a log with more than ``VOID_ROWS`` voided events lists them as lines of text.

    So its cost follows what it prints: a voided event is one line, not a
    row of the game's table (see :data:`referee.reports.rounds.VOID_ROWS`).
    """
    module = spec(match.game)
    money = ledger.night_money(match.night)
    final = module.state_json(ledger.state_of(match), money)
    shown = steps(match)
    voided = [s for s in shown if s.round.void]
    if len(voided) > VOID_ROWS:
        shown = [s for s in shown if not s.round.void]
    return render_template("reports/protocol.html", match=match, night=match.night, steps=shown,
                           final=final, money=money, part=f"reports/protocol_{match.game}.html",
                           voided=void_grid(voided) if len(voided) > VOID_ROWS else None,
                           options=options_in_words(match.game, dict(match.options)))


@bp.get("/nights/<int:night_id>/settlement.pdf")
def settlement_sheet(night_id: int) -> Response:
    night = readable_night(night_id)
    # The appendix of the players' lines (issue 46): ?explain=1 for everybody, ?explain=<name> for one player.
    asked = request.args.get("explain", "")
    lines = "" if asked in ("", "0") else "*" if asked in ("1", "on", "yes") else asked
    return pdf_response(kept_pdf(night, ("settlement", lines), lambda: settlement_html(night, explain=lines)),
                        f"settlement-{night.id}.pdf")


def settlement_html(night: Night, *, explain: str = "") -> str:
    """The sheet everyone signs: results per match, the plan with payment QR codes, tick boxes; with
    ``explain`` (a player's name, or ``*`` for all), an appendix of the lines of each balance
    (:mod:`referee.web.balance_lines`)."""
    s = payments.settlement(night)
    details = paying.player_details(night)
    rows = []
    for why in payments.explain(s, s.plan):
        qr = pay.payment_qr(night, details.get(why.payee), why.amount)
        kind = ("Swish" if qr[0] == "swish" else "GiroCode (EPC)") if qr else None
        # Beside the code, what it pays to, as text: for a payer without a camera, or the paper next day.
        action = pay.pay_action(night, details.get(why.payee), why.amount)
        rows.append({"why": why, "qr": qr_img(qr[1], kind) if qr else None, "qr_kind": qr[0] if qr else None,
                     "pay": action})
    record = request.host_url.rstrip("/") + url_for("pages.view_link", token=night.view_token)
    money_text = current_app.jinja_env.filters["money"]

    @functools.cache  # a tournament's thousands of amounts are a few hundred values; Babel takes 60 µs for each
    def money(minor: int) -> str:
        return str(money_text(minor, night.currency))

    @functools.cache
    def plain(minor: int) -> str:
        return str(current_app.jinja_env.filters["plain_money"](minor, night.currency))

    def party(name: str) -> str:
        return _("the pot (game leader)") if name == ledger.POT_PARTY else name

    return render_template("reports/settlement.html", night=night, s=s, rows=rows,
                           results=sheet.results_grid(s, money, party, plain),
                           transfers=sheet.transfers_grid(rows, money, party),
                           record_qr=qr_img(record, _("Online record")), record_url=record,
                           pot_party=ledger.POT_PARTY, explained=_appendix(night, explain))


def _appendix(night: Night, asked: str) -> dict[str, Any] | None:
    """The players' lines the sheet's appendix prints: everybody's (``*``), one player's, or none."""
    if not asked:
        return None
    found = balance_lines.sheet_rows(night, asked)
    if found is None:
        abort(404)
    return found


@bp.get("/nights/<int:night_id>/export.csv")
def export_csv(night_id: int) -> Response:
    """One row per round, result, payment and transfer, for spreadsheets."""
    night = readable_night(night_id)
    resp = Response(exports.export_csv(night).encode("utf-8-sig"), mimetype="text/csv")  # BOM: Excel reads å ä ö
    resp.headers["Content-Disposition"] = f'attachment; filename="night-{night.id}.csv"'
    return resp


# The chart globals register on bp (the pages' templates use them too); imported last, as they take bp.
from referee.reports import charts  # noqa: E402,F401
