"""A match's pages: the new-match form, the match page with its round form, entering, voiding and closing.

A round form goes to the ledger once per post; a refusal re-renders the page with the rule and what was tapped,
a 409 (another phone's round came first) shows the taps apart so that they are not stored twice.
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import abort, current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from wtforms.fields.choices import SelectChoice

from referee import ledger, round_forms
from referee.engine import BadInput, RuleViolation
from referee.engine.records import describe_options
from referee.engine.spec import spec
from referee.ledger import idempotency, tables
from referee.messages import explain
from referee.models import Match, Round
from referee.pages import _field_error, _match, _night, bp, entry_words, error_rows, guest_pages, offline
from referee.pages.forms import CloseForm, MatchForm, RoundForm, VoidForm, option_texts, options_from, seats_from
from referee.pages.phone_rights import can_edit
from referee.web import idempotent, titles

#: How many of the latest rounds the match page lists (the rest: "show all").
HISTORY = 10

PAGE_GAMES = round_forms.PAGE_GAMES


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
        close_form=close_form, money=money, where=tables.table_of_match(match.id), saved=saved_note(match))
    return body, status


def saved_note(match: Match) -> dict[str, Any] | None:
    """The round this page answers the save of (its flash, ``saved N``), to show above the form with its line.

    Read through the flashes the page shows (a background fetch takes none, ``offline.flashed_messages``); the
    base template leaves a ``saved`` flash to the match page when it is given ``saved``.
    """
    for category, text in offline.flashed_messages(with_categories=True):
        kind, _sep, seq = str(category).partition(" ")
        if kind == "saved" and seq.isdigit():
            return {"text": text, "round": ledger.round_at(match.id, int(seq))}
    return None


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
    if m.game not in PAGE_GAMES:  # an old row's game with no round form
        abort(404)
    expected = expected_seq(form)
    try:  # the ledger reads the form with the state it checks the round on (one load, one parse)
        idem = idempotent.from_request(saved_round, form=True)
        rnd, _state = ledger.add_round(match_id, None, form=request.form, idem=idem, expected_seq=expected)
    except idempotency.Replayed as done:
        return round_saved_again(match_id, done)
    except (RuleViolation, BadInput) as exc:
        return render_match(ledger.get_match(match_id), error=exc, posted=request.form, status=422)
    except ledger.Conflict as exc:
        return render_match(exc.match, stale=request.form, status=409, conflict=explain(exc))
    return round_saved(m, rnd)


#: Where the page after a save goes: the note saying what was saved, right above the next round's form (its
#: anchor scrolls there without JavaScript; static/js/form_view.js then keeps as much of the state above it in
#: view as the form and the Save bar leave room for).
SAVED_ANCHOR = "saved"


def round_saved(match: Match, rnd: Round) -> Any:
    """The answer to a saved round: the match page, scrolled to the next round's form, saying what was saved.

    The flash's category carries the round's number (``saved N``): the match page shows the note above its form
    with that round's line of the history (what was saved), not at the top of the page, which the scroll leaves.
    """
    flash(entry_words.saved(match, rnd), f"saved {rnd.seq}")
    return redirect(url_for("pages.match", match_id=match.id, _anchor=SAVED_ANCHOR))


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
    changes, refused = _void_preview(match_id, seq) if not rnd.void and error is None else (None, None)
    return render_template("pages/void.html", match=m, night=m.night, rnd=rnd, form=form, error=error,
                           summary_template=summary, changes=changes, refused=refused,
                           shown=CHANGES_SHOWN), 422 if error else 200


#: The later rounds a void's preview lists (the rest are counted): a void early in a long match changes many.
CHANGES_SHOWN = 30


def _void_preview(match_id: int, seq: int) -> tuple[list[dict[str, Any]] | None, Any]:
    """What the void would change later (its dry run, issue 42), or the reason it would be refused."""
    try:
        return ledger.void_round(match_id, seq, "", dry_run=True).changes, None
    except (RuleViolation, BadInput) as exc:
        return None, exc
    except ledger.Conflict:  # other phones kept writing: the page shows no preview, the void still checks
        return None, None


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
