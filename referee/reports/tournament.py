"""A tournament's sheets (issue 30): the table cards and the final standings with the night's settlement.

- ``/tournaments/<id>/tables.pdf``: one A6 card per table of the current
  series: tournament, series, table number, the seats in order, and the QR
  code of the table's leader link (``/t/<table_token>``). It hands out edit
  rights for the tables, so only the organiser (the night's edit right)
  prints it.
- ``/tournaments/<id>/final.pdf``: the standings, the prizes, and the
  night's settlement (who pays whom), for whoever may read the night.

The QR codes are the sheets' PNG codes (:mod:`referee.reports.codes`). The
final sheet's long lists (standings, balances, transfers: 480 players and
their payments at the largest night) are text grids (:mod:`referee.reports.grid`),
one line of text per row: as HTML table rows they took WeasyPrint seconds.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, render_template, request, url_for
from flask_babel import gettext as _

from referee import ledger
from referee.ledger import payments, rights, tournament_view, tournaments
from referee.ledger.tournament_view import table_tokens
from referee.models import Night, Tournament
from referee.reports import allowed, kept_pdf, pdf_response
from referee.reports.codes import qr_img
from referee.reports.grid import Column, Row, fit
from referee.web.caller import caller, grants

bp = Blueprint("tournament_sheets", __name__)


def _found(tournament_id: int) -> Tournament:
    try:
        return tournaments.get(tournament_id)
    except ledger.NotFound:
        abort(404)


def base_url() -> str:
    return request.host_url.rstrip("/")


def players_link(night: Night, tournament_id: int) -> str:
    """The players' own view, through the night's view link (scanning it gives the view right)."""
    return base_url() + url_for("pages.view_link", token=night.view_token,
                                next=url_for("hall.me", tournament_id=tournament_id))


def table_link(token: str) -> str:
    """A table's leader link (``/t/<table_token>``: enters, voids, closes that table's rounds only)."""
    return base_url() + url_for("pages.table_link", token=token)


@bp.get("/tournaments/<int:tournament_id>/tables.pdf")
def table_cards(tournament_id: int) -> Response:
    found = _found(tournament_id)
    auth = request.headers.get("Authorization", "")
    token = auth[7:].strip() if auth.lower().startswith("bearer ") else None
    if not rights.night_access(found.night, token, caller(), grants=grants()).may_edit():  # the organiser's right only
        abort(403)
    return pdf_response(kept_pdf(found.night, ("tables", found.id), lambda: table_cards_html(found)),
                        f"tables-{tournament_id}.pdf")


def table_cards_html(found: Tournament) -> str:
    view = tournament_view.view(found, organiser=False, minor=True)
    tokens = table_tokens(found)
    cards = []
    for table in view["tables"]:
        token = tokens.get(table["table"])
        link = table_link(token) if token else ""
        cards.append({"table": table, "link": link,
                      "qr": qr_img(link, _("Link for the table's leader")) if link else None})
    return render_template("reports/table_cards.html", t=view, night=found.night, cards=cards)


@bp.get("/tournaments/<int:tournament_id>/final.pdf")
def final_sheet(tournament_id: int) -> Response:
    found = _found(tournament_id)
    if not allowed(found.night):
        abort(403)
    return pdf_response(kept_pdf(found.night, ("final", found.id), lambda: final_html(found)),
                        f"tournament-{tournament_id}.pdf")


def final_html(found: Tournament) -> str:
    night = found.night
    view = tournament_view.view(found, organiser=False, minor=True)
    s = payments.settlement(night)
    money_text = current_app.jinja_env.filters["money"]

    def money(minor: int) -> str:
        return str(money_text(minor, night.currency))

    def party(name: str) -> str:
        return _("the pot (game leader)") if name == ledger.POT_PARTY else name

    knockout = view["format"] == "knockout"
    standings = fit([Column(_("Place"), right=True), Column(_("Player")),
                     Column(_("Out in series") if knockout else _("Result"), right=True),
                     Column(_("Matches"), right=True)],
                    [Row([str(r["place"]), r["player"],
                          str(r["out_in_series"] or "–") if knockout else money(r["minor"]), str(r["matches"])])
                     for r in view["standings"]])
    prizes = fit([Column(_("Place"), right=True), Column(_("Player")), Column(_("Prize"), right=True)],
                 [Row([str(p["place"]), p["player"], money(p["minor"])]) for p in view["prizes"]])
    balances = fit([Column(_("Player")), Column(_("Open"), right=True)],
                   [Row([party(name), money(s.open.get(name, 0))]) for name in s.parties])
    explained = payments.explain(s, s.plan)
    transfers = fit([Column(_("Pays")), Column(_("To")), Column(_("Amount"), right=True)],
                    [Row([party(w.payer), party(w.payee), money(w.amount)]) for w in explained])
    record = request.host_url.rstrip("/") + url_for("pages.view_link", token=night.view_token)
    return render_template("reports/tournament_final.html", t=view, night=night, standings=standings,
                           prizes=prizes if view["prizes"] else None, balances=balances,
                           transfers=transfers if explained else None, exact=s.plan.exact, note=s.plan.note,
                           record_qr=qr_img(record, _("Online record")))
