"""The correct page of a stored round (issue 42): the round's form as it was entered, checked before it is stored.

A correction is for a deal that happened but was entered wrong (a void is for an entry that should not be
there). The page draws the game's round form on the state before the round, set to the facts it was entered
with (its dealer and svängare), prefilled with the stored entry through the inverse of the game's form parser
(``referee/offline/round_parse``). Its first post is a dry run: the page shows which later rounds' money would
change (the void page's preview), or that nothing later changes, or the refusal with its rule; the confirm
button posts the same fields again with ``confirm=yes``, which corrects the round for real. Svängknack and Kul
share their match page's form (``pages/_form_<game>.html``); the other games get the parser's fields as plain
text fields (``pages/_form_fields.html``).
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from werkzeug.datastructures import MultiDict

from referee import ledger, round_forms
from referee.engine import BadInput, RuleViolation
from referee.engine.spec import spec
from referee.engine.vocab import EventKind
from referee.models import Match, Round
from referee.pages import _match, bp, entry_words, offline
from referee.pages.forms import RoundForm
from referee.pages.matches import CHANGES_SHOWN, POST_ONLY, stale_fields
from referee.web.titles import entry_number

#: Fields of the correct page's post that are the page's own, not the round's.
PAGE_ONLY = (*POST_ONLY, "confirm", "reason", "extra")


@bp.route("/matches/<int:match_id>/rounds/<int:seq>/correct", methods=["GET", "POST"])
def correct_round(match_id: int, seq: int) -> Any:
    """GET: the form as the round was entered; POST: its dry run; POST with ``confirm=yes``: the correction."""
    m = _match(match_id, edit=True)
    rnd = ledger.round_at(m.id, seq)
    if rnd is None or rnd.kind != EventKind.ROUND or entry_number(rnd, m) is None:
        abort(404)  # a close is reopened and a dot voided, not corrected
    view = spec(m.game).state_json(ledger.state_to_correct(m, rnd), ledger.night_money(m.night))
    if request.method == "GET":
        posted = MultiDict(round_forms.prefill(m.game, rnd.payload or {}, view, list(m.seats)))
        return _page(m, rnd, view, posted, None, None, None)
    form = RoundForm()
    if not form.validate_on_submit():
        abort(400, _("The form has expired; reload the page."))
    parse = round_forms.parser(m.game)
    if parse is None:  # an old row's game with no round form
        abort(404)
    posted = _tapped(request.form)
    reason = (request.form.get("reason") or "").strip()
    try:
        payload = parse(posted, view, list(m.seats))
        if request.form.get("confirm") == "yes":
            said = entry_words.corrected(m, rnd)  # named while it still counts
            with offline.once():  # a resent entry of the phone's queue is made once
                ledger.correct_round(match_id, seq, payload, reason, idem=offline.page_idem())
            flash(said, "ok")
            return redirect(url_for("pages.match", match_id=match_id))
        changes = ledger.correct_round(match_id, seq, payload, reason, dry_run=True).changes
    except (RuleViolation, BadInput) as exc:
        return _page(m, rnd, view, posted, None, exc, reason, status=422)
    except ledger.Conflict:  # other phones kept writing: the page asks for the form again
        abort(409, _("Another phone changed the match meanwhile; reload the page."))
    return _page(m, rnd, view, posted, changes, None, reason)


def _tapped(form: Any) -> MultiDict[str, str]:
    """The round's fields of the post: the page's own left out; ``extra`` ("name=value") of the simpler form
    adds a field the stored entry did not have (a loser, a passed player)."""
    fields: MultiDict[str, str] = MultiDict(
        [(k, v) for k, v in stale_fields(form) if k not in PAGE_ONLY])
    name, sep, value = (form.get("extra") or "").partition("=")
    if sep and name.strip():
        fields[name.strip()] = value.strip()
    return fields


def _page(m: Match, rnd: Round, view: dict[str, Any], posted: MultiDict[str, str],
          changes: list[dict[str, Any]] | None, refused: RuleViolation | BadInput | None, reason: str | None,
          status: int = 200) -> Any:
    """The page: the stored entry, the form (prefilled, or as last posted), and after a dry run its preview
    and the confirm form carrying the same fields."""
    form = RoundForm()
    form.form_token.data = secrets.token_urlsafe(16)
    state = ledger.state_to_correct(m, rnd)
    summary = f"pages/summary_{m.game if m.game in round_forms.PAGE_GAMES else 'generic'}.html"
    error_field = round_forms.error_field(m.game, getattr(refused, "rule", "")) or getattr(refused, "field", "")
    body = render_template(
        "pages/correct.html", match=m, night=m.night, rnd=rnd, view=view, state=state, form=form,
        posted=posted, error=None, error_field="", error_rows=[], summary_template=summary,
        forms=[f"pages/_form_{m.game}.html", "pages/_form_fields.html"],
        round_action=url_for("pages.correct_round", match_id=m.id, seq=rnd.seq),
        save_label=_("Check the correction"), changes=changes, refused=refused, refused_field=error_field,
        reason=reason or "", shown=CHANGES_SHOWN, confirm_fields=list(posted.items(multi=True)))
    return body, status
