"""A night's pages: creating one, its page with the links and codes, a new edit link, a late player."""

from __future__ import annotations

from typing import Any

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _

from referee import ledger, night_changes
from referee.engine import BadInput
from referee.ledger import fingerprint, payments, rights, tournament_entries
from referee.messages import explain
from referee.pages import _field_error, _night, bp, phone_rights
from referee.pages.filters import money_filter, qr_svg
from referee.pages.forms import NightForm, PlayerForm, RoundForm
from referee.web.caller import caller


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



@bp.get("/nights/<int:night_id>")
def night(night_id: int) -> Any:
    nt = _night(night_id)
    result = payments.settlement(nt).result
    pots = result.get(ledger.POT_PARTY, 0)
    balances = {name: result[name] for name in nt.player_names}
    base = request.host_url.rstrip("/")
    view_url = base + url_for("pages.view_link", token=nt.view_token)
    edit_url = base + url_for("pages.edit_link", token=nt.edit_token)
    chain = fingerprint.night_chain(nt)
    return render_template("pages/night.html", night=nt, balances=balances, pots=pots,
                           view_url=view_url, edit_url=edit_url, view_qr=qr_svg(view_url),
                           edit_qr=qr_svg(edit_url), player_form=PlayerForm(), revoke_form=RoundForm(),
                           fingerprint=chain.fingerprint, events=len(chain.events))


@bp.get("/nights/<int:night_id>/changes")
def night_changes_since(night_id: int) -> Any:
    """What changed since this phone last looked (issue 46.2): the night page's script asks, a fragment answers.

    ``after`` and ``since`` are the number of events and the fingerprint the phone kept (``localStorage``).
    """
    nt = _night(night_id)
    try:
        after = night_changes.seen_count(request.args.get("after"))
    except BadInput:
        abort(400)
    chain = fingerprint.night_chain(nt)
    seen = fingerprint.since(chain, after, request.args.get("since") or "")
    def amount(minor: int) -> str:
        return money_filter(minor, nt.currency)

    return render_template("pages/_night_changes.html", seen=seen,
                           lines=[night_changes.describe(ev, chain, nt, amount) for ev in seen.events])


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
            tournament_entries.join_night(nt, form.name.data)  # a tournament's night: a late player
        except (BadInput, tournament_entries.Refused) as exc:
            flash(explain(exc), "error")
    else:
        flash(_("Give the new player a name (at most 40 characters)."), "error")
    return redirect(url_for("pages.night", night_id=night_id))
