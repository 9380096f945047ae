"""The settlement page and what is entered on it: payments, their voids, carried debts, payment details.

The arithmetic (who pays whom, what is still open) is :mod:`referee.ledger.payments`;
these views only read forms, call it, and show the outcome.
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from referee import ledger, payment_codes
from referee.engine import BadInput, RuleViolation
from referee.ledger import debts, paying, payments
from referee.messages import explain
from referee.models import Night
from referee.pages import _field_error, _night, bp, offline
from referee.pages.filters import qr_svg
from referee.pages.forms import PaymentDetailsForm, RoundForm, VoidForm
from referee.web import amounts, balance_lines, pay

#: The most lines of the players' "why?" the settlement page carries at once; past that, one player's at a time.
PAGE_LINES = 500


@bp.get("/nights/<int:night_id>/settlement")
def settlement(night_id: int) -> Any:
    return _page(_night(night_id), request.args.get("plan"))


def _refused(nt: Night, exc: RuleViolation | BadInput, plan: str | None = None) -> Any:
    """A refused payment or void: the settlement page with the reason, as a 422 (nothing was stored).

    Not a redirect: the phone's offline queue sends its entries with fetch,
    which follows a redirect and would take the refusal for "saved".
    """
    flash(explain(exc), "error")
    return _page(nt, plan), 422


def _page(nt: Night, plan_kind: str | None) -> Any:
    s = payments.settlement(nt)
    leader = payments.leader_of(nt)
    # No leader, no plan through one (issue 43.4): the page shows the fewest payments and asks for a leader.
    kind = "leader" if plan_kind == "leader" and leader else "fewest"
    plan = payments.leader_plan(s) if kind == "leader" else s.plan
    details = paying.player_details(nt)
    transfers = []
    for why in payments.explain(s, plan):
        qr = pay.payment_qr(nt, details.get(why.payee), why.amount)
        transfers.append({"why": why, "qr": qr_svg(qr[1]) if qr else None, "qr_kind": qr[0] if qr else None,
                          "pay": pay.pay_action(nt, details.get(why.payee), why.amount)})
    form = RoundForm()
    form.form_token.data = secrets.token_urlsafe(16)
    return render_template("pages/settlement.html", night=nt, s=s, plan=plan, kind=kind, transfers=transfers,
                           leader=leader, no_leader=plan_kind == "leader" and not leader,
                           pot_party=ledger.POT_PARTY, form=form, void_form=VoidForm(),
                           later=debts.later_nights(nt), details=details, money=ledger.night_money(nt),
                           explained=balance_lines.page_rows(nt, request.args.get("why"), PAGE_LINES),
                           why=request.args.get("why"),
                           page_url=url_for("pages.settlement", night_id=nt.id, plan=plan_kind))


@bp.post("/nights/<int:night_id>/payments")
def add_payment(night_id: int) -> Any:
    nt = _night(night_id, edit=True)
    form = RoundForm()
    if not form.validate_on_submit():
        abort(400, _("The form has expired; reload the page."))
    try:  # a double tap or a resent entry of the phone's queue pays once
        with offline.once():
            payments.record_payment(nt, request.form.get("payer"), request.form.get("payee"),
                                    request.form.get("amount", ""), idem=offline.page_idem())
    except (RuleViolation, BadInput) as exc:
        return _refused(nt, exc, request.form.get("plan"))
    flash(_("Payment recorded."), "ok")
    return redirect(url_for("pages.settlement", night_id=night_id, plan=request.form.get("plan") or None))


@bp.post("/nights/<int:night_id>/payments/<int:payment_id>/void")
def void_payment(night_id: int, payment_id: int) -> Any:
    nt = _night(night_id, edit=True)
    form = VoidForm()
    if not form.validate_on_submit():
        abort(400, _("The form has expired; reload the page."))
    if request.form.get("confirm") != "yes":
        page = _confirm_void_payment(nt, payment_id, form)
        if page is not None:
            return page
    try:  # a resent entry of the phone's queue is made once
        with offline.once():
            payments.void_payment(nt, payment_id, form.reason.data or "", idem=offline.page_idem())
    except (RuleViolation, BadInput) as exc:
        return _refused(nt, exc)
    except ledger.NotFound:
        abort(404)
    flash(_("The payment is void."), "ok")
    return redirect(url_for("pages.settlement", night_id=night_id))


def _confirm_void_payment(nt: Night, payment_id: int, form: VoidForm) -> Any:
    """The second step of voiding a payment: which payment, then Confirm or Back (issue 19).

    None when there is no such open payment: the void itself then says why (or 404s).
    """
    s = payments.settlement(nt)
    p = next((p for p in s.payments + s.carries_out if p.id == payment_id and not p.void), None)
    if p is None:
        return None
    back = url_for("pages.settlement", night_id=nt.id)
    amount = amounts.money(p.amount, nt.currency)
    party = {ledger.POT_PARTY: _("the pot (game leader)")}
    payer, payee = party.get(p.payer, p.payer), party.get(p.payee or "", p.payee)
    if p.kind == "payment":
        what = _("%(payer)s paid %(payee)s %(amount)s", payer=payer, payee=payee, amount=amount)
    elif p.kind == "opening":
        what = _("Opening balance of %(name)s: %(amount)s", name=payer, amount=amount)
    else:
        what = _("Carried to a later night: %(name)s %(amount)s", name=payer, amount=amount)
    return render_template("pages/confirm.html", night=nt, form=form, title=_("Void this payment?"),
                           lines=[what, _("The payment stays in the list, struck through, and the amount is "
                                          "open again.")],
                           back=back, back_label=_("Settlement"), action=request.path,
                           fields={"reason": form.reason.data or None}, button=_("Void"),
                           button_id="confirm-void-payment", box_id="void-payment-confirm")


@bp.post("/nights/<int:night_id>/carry")
def carry(night_id: int) -> Any:
    nt = _night(night_id, edit=True)
    if not RoundForm().validate_on_submit():
        abort(400, _("The form has expired; reload the page."))
    try:
        target = int(request.form.get("to_night", ""))
    except ValueError:
        target = 0
    try:
        debts.carry_debts(nt, target)
    except (RuleViolation, BadInput) as exc:
        flash(explain(exc), "error")
    else:
        flash(_("What was open is carried to the later night as opening balances."), "ok")
    return redirect(url_for("pages.settlement", night_id=night_id))


@bp.route("/nights/<int:night_id>/players/<name>/details", methods=["GET", "POST"])
def payment_details(night_id: int, name: str) -> Any:
    nt = _night(night_id, edit=True)
    player = paying.player_details(nt).get(name)
    if player is None:
        abort(404)
    form = PaymentDetailsForm(obj=None)
    error: BadInput | None = None
    if request.method == "GET":
        form.swish.data, form.iban.data, form.holder.data = player.swish, player.iban, player.account_holder
    elif form.validate_on_submit():
        try:
            paying.set_payment_details(nt, name, form.swish.data or "", form.iban.data or "",
                                         form.holder.data or "")
        except BadInput as exc:
            error = exc
            _field_error(form, exc.field, explain(exc))
        else:
            flash(_("Payment details of %(name)s saved.", name=name), "ok")
            return redirect(url_for("pages.settlement", night_id=night_id))
    bank = payment_codes.bank_name(player.iban) if player.iban else None
    return render_template("pages/payment_details.html", night=nt, name=name, form=form,
                           bank=bank), 422 if error else 200
