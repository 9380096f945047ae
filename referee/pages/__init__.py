"""The phone pages: server-rendered, one form per action, no rule arithmetic.

Rights: the phone that creates a night keeps its edit right in the signed
session cookie; the edit link (``/e/<token>``) hands it to a second phone,
the view link (``/v/<token>``) lets guests look.
"""

from __future__ import annotations

import functools
import re
import secrets
from typing import Any

import segno
from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import get_locale
from flask_babel import gettext as _
from markupsafe import Markup
from wtforms.fields.choices import SelectChoice

from referee import ledger, payment_qr, round_forms
from referee.engine import BadInput, RuleViolation
from referee.engine.records import describe_options
from referee.engine.spec import SPECS, spec, title
from referee.ledger import idempotency, payments, rights, tables
from referee.messages import explain
from referee.models import Match, Night, db
from referee.pages import entry_words, error_rows, guest_pages, phone_rights, secret_pages
from referee.pages.forms import (
    CloseForm,
    MatchForm,
    NightForm,
    PlayerForm,
    RoundForm,
    VoidForm,
    option_texts,
    options_from,
    seats_from,
)
from referee.pages.phone_rights import can_edit, require
from referee.web import amounts, idempotent, titles
from referee.web.caller import caller, grants

bp = Blueprint("pages", __name__)

#: How many of the latest rounds the match page lists (the rest: "show all").
HISTORY = 10

PAGE_GAMES = round_forms.PAGE_GAMES


# --- rights ------------------------------------------------------------------

# Every blueprint's pages (a tournament's too): what this phone may do there, and whether the answer holds a secret,
# go out with the answer for the service worker (static/sw.js).
bp.after_app_request(phone_rights.right_headers)
bp.app_url_defaults(secret_pages.note)
bp.after_app_request(secret_pages.mark)


def _night(night_id: int, edit: bool = False) -> Night:
    try:
        night = ledger.get_night(night_id)
    except ledger.NotFound:
        abort(404)
    require(night, edit)
    return night


def _match(match_id: int, edit: bool = False) -> Match:
    try:
        match = ledger.get_match(match_id)
    except ledger.NotFound:
        abort(404)
    require(match.night, edit, match.id)
    return match


@bp.app_context_processor
def _context() -> dict[str, Any]:
    return {"can_edit": can_edit, "game_title": title, "game_spec": SPECS.get,
            "lang": str(get_locale() or "en")}


# An amount's text on every page (the one place is referee/web/amounts.py): with its currency, and as a form
# field shows it and takes it back ("12,50" in Swedish: the forms read a comma).
bp.add_app_template_filter(amounts.money, "money")
bp.add_app_template_filter(amounts.plain, "plain_money")
bp.add_app_template_filter(amounts.example, "amount_example")
# A match as the table names it, "Kul 2", not by its id (referee/web/titles.py).
bp.add_app_template_global(titles.match_title, "match_title")
bp.add_app_template_global(titles.match_number, "match_no")
# An entry of a log as the table counts and names it: "3" (none for a close or a dot), "Void deal 3".
bp.add_app_template_global(titles.entry_number, "entry_no")
bp.add_app_template_global(entry_words.void_title, "void_title")


def qr_svg(data: str | segno.QRCode, scale: int = 4) -> Markup:
    """An inline SVG QR code of a link or a made payment code (no external image, CSP-friendly)."""
    if isinstance(data, segno.QRCode):
        return Markup(payment_qr.qr_svg(data, scale=scale))
    return _link_svg(data, scale)


@functools.lru_cache(maxsize=256)
def _link_svg(link: str, scale: int) -> Markup:
    """A link's code, made once per process: the hall display shows the same link on every fetch (15 ms each)."""
    return Markup(segno.make(link, error="m").svg_inline(scale=scale, dark="#000", light="#fff", omitsize=True))


# --- start, language, links --------------------------------------------------

@bp.get("/")
def start() -> Any:
    found = (db.session.get(Night, i) for i in rights.edit_granted_ids(grants()))
    nights = [n for n in found if n is not None and can_edit(n)]
    return render_template("pages/start.html", nights=nights)


@bp.get("/lang/<code>")
def set_lang(code: str) -> Any:
    if code in ("en", "sv", "de"):
        session["lang"] = code
    return redirect(same_site(request.args.get("next", "/")))


#: A path of this site: one slash, then no second slash or backslash (``//host`` and ``/\\host`` are other sites
#: to a browser), and no whitespace or control character anywhere (browsers drop tabs and newlines, so
#: ``/\t/evil.com`` is ``//evil.com``; a newline in a header is refused by the server).
_SAME_SITE = re.compile(r"/(?![/\\])[^\s\\\x00-\x1f\x7f]*")


def same_site(target: str) -> str:
    """``target`` if it is a relative path of this site, else ``/`` (never an open redirect, never a 500)."""
    return target if _SAME_SITE.fullmatch(target) and target.isprintable() else "/"


@bp.get("/e/<token>")
@secret_pages.secret_address("token")
def edit_link(token: str) -> Any:
    found = rights.link(token, caller())  # 429 after too many wrong tokens; a wrong one is counted
    if found is None:
        abort(404)
    night, edit = found
    phone_rights.grant(night, edit)
    target = request.args.get("next", "")  # the table display's code opens the display itself (issue 28),
    if re.fullmatch(r"/matches/\d+/table|/tournaments/\d+/(?:hall|me)", target):  # the hall's, the players' view
        return redirect(target)
    return redirect(url_for("pages.night", night_id=night.id))


@bp.get("/t/<token>")
@secret_pages.secret_address("token")
def table_link(token: str) -> Any:
    """A tournament table's link (issue 30): this phone may enter, void and close that table's rounds only.

    The session keeps the table token's fingerprint under the match (a new
    token, the organiser's revoke, ends the grant) and the night's view right.
    """
    found = rights.table_link(token, caller())  # 429 after too many wrong tokens; a wrong one is counted
    if found is None:
        abort(404)
    phone_rights.grant_table(found)
    return redirect(url_for("pages.match", match_id=found.match_id))


@bp.get("/v/<token>")
def view_link(token: str) -> Any:
    return edit_link(token)


# --- nights ------------------------------------------------------------------

@bp.route("/nights/new", methods=["GET", "POST"])
def new_night() -> Any:
    form = NightForm()
    if form.validate_on_submit():
        try:
            if form.group_token.data and rights.group(form.group_token.data, caller()) is None:  # wrong: counted
                raise ledger.NotFound("No group has that token.")
            night = ledger.create_night(form.name.data, form.currency.data, form.player_names(),
                                          date=form.date.data, place=form.place.data or "",
                                          leader=form.leader.data or "",
                                          group_token=form.group_token.data or None, caller=caller(),
                                          language=str(get_locale() or "en"))
        except BadInput as exc:
            _field_error(form, exc.field, explain(exc))
        except ledger.NotFound as exc:
            form.group_token.errors = [str(exc)]
        else:
            phone_rights.grant(night, edit=True)
            return redirect(url_for("pages.night", night_id=night.id))
    return render_template("pages/night_new.html", form=form)


def _field_error(form: Any, field: str, message: str) -> None:
    target = getattr(form, field, None)
    if target is None or not hasattr(target, "errors"):
        flash(message, "error")
        return
    target.errors = [*list(target.errors or []), message]


@bp.get("/nights/<int:night_id>")
def night(night_id: int) -> Any:
    nt = _night(night_id)
    result = payments.settlement(nt).result
    pots = result.get(ledger.POT_PARTY, 0)
    balances = {name: result[name] for name in nt.player_names}
    base = request.host_url.rstrip("/")
    view_url = base + url_for("pages.view_link", token=nt.view_token)
    edit_url = base + url_for("pages.edit_link", token=nt.edit_token)
    return render_template("pages/night.html", night=nt, balances=balances, pots=pots,
                           view_url=view_url, edit_url=edit_url, view_qr=qr_svg(view_url),
                           edit_qr=qr_svg(edit_url), player_form=PlayerForm(), revoke_form=RoundForm())


@bp.post("/nights/<int:night_id>/revoke")
def revoke(night_id: int) -> Any:
    """A new edit link; every other phone loses its edit right (this one keeps it)."""
    nt = _night(night_id, edit=True)
    if not RoundForm().validate_on_submit():
        abort(400, _("The form has expired; reload the page."))
    if request.form.get("confirm") != "yes":
        return render_template("pages/confirm.html", night=nt, form=RoundForm(), title=_("New edit link?"),
                               lines=[_("The old edit link stops working, and every other phone that used it "
                                        "loses its right to enter rounds; this phone keeps it.")],
                               back=url_for("pages.night", night_id=night_id), back_label=nt.name,
                               action=request.path, fields={}, button=_("New edit link (logs out other phones)"),
                               button_id="confirm-revoke", box_id="revoke-confirm")
    ledger.revoke_edit_token(nt)
    phone_rights.grant(ledger.get_night(night_id), edit=True)
    flash(_("The old edit link no longer works; other phones must be given the new one."), "ok")
    return redirect(url_for("pages.night", night_id=night_id))


@bp.post("/nights/<int:night_id>/players")
def add_player(night_id: int) -> Any:
    nt = _night(night_id, edit=True)
    form = PlayerForm()
    if form.validate_on_submit():
        try:
            ledger.add_player(nt, form.name.data)
        except BadInput as exc:
            flash(explain(exc), "error")
    else:
        flash(_("Give the new player a name (at most 40 characters)."), "error")
    return redirect(url_for("pages.night", night_id=night_id))


# --- matches -----------------------------------------------------------------

@bp.route("/nights/<int:night_id>/matches/new", methods=["GET", "POST"])
def new_match(night_id: int) -> Any:
    nt = _night(night_id, edit=True)
    form = MatchForm()
    form.game.choices = [SelectChoice(name, spec(name).title) for name in PAGE_GAMES]
    form.dealer.choices = list(nt.player_names)
    chosen_game = request.values.get("game", PAGE_GAMES[0])
    if chosen_game not in PAGE_GAMES:
        chosen_game = PAGE_GAMES[0]
    described = describe_options(spec(chosen_game).Options)
    error: RuleViolation | None = None
    if request.method == "POST" and request.form.get("action") != "switch" and form.validate_on_submit():
        try:
            seats = seats_from(request.form, nt.player_names)
            match = ledger.create_match(nt, chosen_game, seats, form.dealer.data, form.stake.data or None,
                                          options_from(request.form, described))
        except BadInput as exc:
            _field_error(form, exc.field, explain(exc))
        except RuleViolation as exc:
            error = exc
        else:
            return redirect(url_for("pages.match", match_id=match.id))
    return render_template("pages/match_new.html", night=nt, form=form, game=chosen_game,
                           options=option_texts(chosen_game, described), error=error, posted=request.form)


def _round_form(match: Match) -> RoundForm:
    form = RoundForm()
    form.form_token.data = secrets.token_urlsafe(16)
    form.expected_seq.data = str(match.snapshot.next_seq)
    return form


#: Fields of a round form that belong to the one post, not to what was tapped (not carried into a stale entry).
POST_ONLY = ("csrf_token", "form_token", "expected_seq", "said")


def stale_fields(posted: Any) -> list[tuple[str, str]]:
    """What was tapped in a form another phone's round overtook: every field but the post's own (issue 28)."""
    return [(k, v) for k, v in posted.items(multi=True) if k not in POST_ONLY]


def render_match(match: Match, *, error: RuleViolation | BadInput | None = None,
                 posted: Any = None, status: int = 200, conflict: str | None = None,
                 stale: Any = None) -> Any:
    """The match page: state at a glance, the round form, the history.

    ``stale``: the post another phone's round overtook (a 409): its taps are shown apart, with a choice, and
    the form is empty, so that they are not stored again as the next round by one more tap.
    """
    rules = spec(match.game)
    money = ledger.night_money(match.night)
    state = ledger.state_of(match)
    view = rules.state_json(state, money)
    editing = can_edit(match.night, match.id)
    field = round_forms.error_field(match.game, getattr(error, "rule", "")) or getattr(error, "field", "")
    close_form = CloseForm()
    close_form.to.choices = list(match.seats)
    body = render_template(
        f"pages/match_{match.game}.html" if match.game in PAGE_GAMES else "pages/match_generic.html",
        match=match, night=match.night, state=state, view=view,
        form=_round_form(match) if editing else None,  # (a guest's page has no form)
        follow_gap=0 if editing else int(current_app.config["LIVE_FOLLOW_GAP"] * 1000),
        rounds=ledger.recent_rounds(match, None if request.args.get("all") else HISTORY),
        total_rounds=match.snapshot.next_seq - 1,
        error=error, error_field=field, posted=posted or {}, conflict=conflict,
        stale=stale_fields(stale) if stale is not None else [], stale_said=(stale or {}).get("said", ""),
        stale_token=secrets.token_urlsafe(16),
        error_rows=error_rows.rows(error, posted, view, match.game, list(match.seats)),
        close_form=close_form, money=money, where=tables.table_of_match(match.id))
    return body, status


@bp.get("/matches/<int:match_id>")
def match(match_id: int) -> Any:
    m = _match(match_id)
    return guest_pages.page(m, lambda: render_match(m))


def expected_seq(form: RoundForm) -> int | None:
    """The round number the form was made for (``Expected-Round``); a garbled hidden field is a 400."""
    raw = (form.expected_seq.data or "").strip()
    if raw and not (raw.isascii() and raw.isdigit() and len(raw) < 19):
        abort(400, _("The form has expired; reload the page."))  # not the page's own value
    return int(raw or 0) or None


@bp.post("/matches/<int:match_id>/rounds")
def add_round(match_id: int) -> Any:
    m = _match(match_id, edit=True)
    form = RoundForm()
    if not form.validate_on_submit():
        abort(400, _("The form has expired; reload the page."))
    parser = round_forms.parser(m.game)
    if parser is None:
        abort(404)
    view = spec(m.game).state_json(ledger.state_of(m), ledger.night_money(m.night))
    expected = expected_seq(form)
    try:
        payload = parser(request.form, view, list(m.seats))
        idem = idempotent.from_request(saved_round, form=True)
        rnd, _state = ledger.add_round(match_id, payload, idem=idem, expected_seq=expected)
    except idempotency.Replayed as done:
        return round_saved_again(match_id, done)
    except (RuleViolation, BadInput) as exc:
        return render_match(ledger.get_match(match_id), error=exc, posted=request.form, status=422)
    except ledger.Conflict as exc:
        return render_match(exc.match, stale=request.form, status=409, conflict=explain(exc))
    flash(entry_words.saved(m, rnd), "ok")
    return redirect(url_for("pages.match", match_id=match_id))


def saved_round(entered: tuple[Any, Any]) -> tuple[int, dict[str, Any]]:
    """What a round form's key keeps: the round's number (a resent form says it counts once)."""
    return 201, {"round": entered[0].seq}


def round_saved_again(match_id: int, done: idempotency.Replayed) -> Any:
    """The answer to a round form sent again with its key: nothing entered, the first round named."""
    flash(entry_words.saved_again(ledger.get_match(match_id), done.body.get("round")), "ok")
    return redirect(url_for("pages.match", match_id=match_id))


@bp.route("/matches/<int:match_id>/rounds/<int:seq>/void", methods=["GET", "POST"])
def void_round(match_id: int, seq: int) -> Any:
    """Voiding asks once more (with a reason): it is the one tap that rewrites history."""
    m = _match(match_id, edit=True)
    rnd = ledger.round_at(m.id, seq)
    if rnd is None:
        abort(404)
    form = VoidForm()
    error: RuleViolation | BadInput | None = None
    if request.method == "POST":
        if not form.validate_on_submit():
            abort(400, _("The form has expired; reload the page."))
        said = entry_words.voided(m, rnd)  # named while it still counts
        try:  # a resent entry of the phone's queue is made once
            with offline.once():
                ledger.void_round(match_id, seq, form.reason.data or "", idem=offline.page_idem())
        except (RuleViolation, BadInput) as exc:
            error = exc
        else:
            flash(said, "ok")
            return redirect(url_for("pages.match", match_id=match_id))
    summary = f"pages/summary_{m.game if m.game in PAGE_GAMES else 'generic'}.html"
    return render_template("pages/void.html", match=m, night=m.night, rnd=rnd, form=form, error=error,
                           summary_template=summary), 422 if error else 200


@bp.post("/matches/<int:match_id>/close")
def close_match(match_id: int) -> Any:
    """Closing asks once more (issue 19): the first post shows what will happen, ``confirm`` does it.

    A second step page works with and without JavaScript; a close can still be
    undone from the history (Reopen…, a void of the close), as long as no later
    night took a carried pot.
    """
    m = _match(match_id, edit=True)
    form = CloseForm()
    form.to.choices = list(m.seats)
    if not form.validate_on_submit():
        abort(400, _("The form has expired; reload the page."))
    to = form.to.data if form.pot.data == "award" else None
    known = to is None or to in m.seats  # an unknown player goes straight to the engine's refusal
    if request.form.get("confirm") != "yes" and known:
        back = url_for("pages.match", match_id=match_id)
        return render_template("pages/close_confirm.html", match=m, night=m.night, form=form, to=to,
                               pot=form.pot.data, state=ledger.state_of(m), title=_("Close the match?"),
                               back=back, back_label=_("Back to the match"), action=request.path,
                               crumb=titles.match_title(m),
                               fields={"pot": form.pot.data, "to": to}, button=_("Close the match"),
                               button_id="confirm-close", box_id="close-confirm")
    try:  # a resent entry of the phone's queue is made once
        with offline.once():
            ledger.close_match(match_id, form.pot.data, to, idem=offline.page_idem())
    except (RuleViolation, BadInput) as exc:
        return render_match(ledger.get_match(match_id), error=exc, status=422)
    flash(_("The match is closed."), "ok")
    return redirect(url_for("pages.match", match_id=match_id))


# The modules that register their routes, filters and hooks on bp, named one by one (no package scan):
# imported last, as they take ``bp`` and the helpers above from this module.
from referee.pages import addresses, game_log, offline, season, settlement, table  # noqa: E402,F401
from referee.pages.referee import knaker_pile, schloapfer_eyes, schwimmen_value, trick_dispute, tricks  # noqa: E402,F401
