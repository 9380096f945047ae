"""The organiser's pages of a tournament (issue 30): create it, see its tables, draw the next series, finish.

A tournament is a night whose matches are its tables, so rights are the
night's: the organiser holds the night's edit right (given to the phone that
creates it, or by the edit link), the hall and the players' view need the
view right (``referee.pages.hall``). Everything shown comes from the one
view of the ledger (:func:`referee.ledger.tournament_view.view`, the body of ``GET /api/tournaments/<id>``,
with the amounts also in minor units)
plus, for the organiser only, each current table's link.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from markupsafe import Markup

from referee import ledger
from referee.engine import BadInput, RuleViolation
from referee.engine.records import describe_options
from referee.engine.spec import SPECS, example_stake, spec
from referee.engine.tournament import Format
from referee.ledger import tournament_entries, tournament_view, tournaments
from referee.ledger.tournament_view import table_tokens
from referee.messages import explain
from referee.models import Tournament
from referee.pages import _field_error
from referee.pages.filters import qr_svg
from referee.pages.forms import PlayerForm, RoundForm, option_texts, options_from
from referee.pages.phone_rights import grant, require
from referee.pages.tournament_forms import TournamentForm
from referee.reports.tournament import players_link, table_link
from referee.web.caller import caller

bp = Blueprint("tournaments", __name__)


def tournament(tournament_id: int, edit: bool) -> Tournament:
    """The tournament of the URL (404 if none) once this phone holds the right on its night (403 otherwise)."""
    try:
        found = tournaments.get(tournament_id)
    except ledger.NotFound:
        abort(404)
    require(found.night, edit)
    return found


@bp.route("/tournaments/new", methods=["GET", "POST"])
def new() -> Any:
    form = TournamentForm()
    game = request.values.get("game", "")
    if game not in SPECS:
        game = next(iter(SPECS))
    described = describe_options(spec(game).Options)
    # A game switched without the page's script (or its options not yet shown) is shown, not created with
    # another game's options: the options posted are for the game named in ``options_for``.
    switch = request.form.get("action") == "switch" or request.form.get("options_for", game) != game
    if not switch and form.validate_on_submit():
        try:
            created = tournaments.create(tournaments.check(form.body(options_from(request.form, described))),
                                         caller=caller(),
                                         language=str(get_locale() or "en"))
        except BadInput as exc:
            _field_error(form, exc.field, explain(exc))
        except RuleViolation as exc:
            flash(explain(exc), "error")
        else:
            grant(created.night, edit=True)
            return redirect(url_for("tournaments.page", tournament_id=created.id))
    status = 400 if request.method == "POST" and not switch else 200
    return render_template("pages/tournament_new.html", form=form, game=game, options=option_texts(game, described),
                           posted=request.form, stake_example=example_stake(game)), status


@bp.get("/tournaments/<int:tournament_id>")
def page(tournament_id: int, status: int = 200, playing: list[int] | None = None) -> Any:
    found = tournament(tournament_id, edit=True)
    view = tournament_view.view(found, organiser=False, minor=True)
    links: dict[int, tuple[str, Markup]] = {}
    for number, token in table_tokens(found).items():
        link = table_link(token)
        links[number] = (link, qr_svg(link, scale=3))
    players = players_link(found.night, found.id)
    return render_template("pages/tournament.html", t=view, night=found.night, links=links,
                           playing=playing or [], form=RoundForm(), players_url=players, late_form=PlayerForm(),
                           page_url=url_for("tournaments.page", tournament_id=found.id)), status


@bp.get("/tournaments/<int:tournament_id>/next")
def next_page(tournament_id: int) -> Any:
    """The refused "next" page fetched again (the live stream's refresh, a reload): the organiser's page."""
    tournament(tournament_id, edit=True)  # the organiser's door, as the page it leads to
    return redirect(url_for("tournaments.page", tournament_id=tournament_id))


@bp.post("/tournaments/<int:tournament_id>/next")
def next_series(tournament_id: int) -> Any:
    """"Next series" (or the finish after the last): refused, with the tables still playing named, by the ledger."""
    found = tournament(tournament_id, edit=True)
    if not RoundForm().validate_on_submit():
        abort(400, _("The form has expired; reload the page."))
    try:
        after = tournaments.next_series(found.id)
    except tournaments.StillPlaying as exc:
        tables = ", ".join(str(n) for n in exc.tables)
        flash(_("Not yet: these tables are still playing: %(tables)s.", tables=tables), "error")
        return page(tournament_id, status=409, playing=list(exc.tables))
    except tournaments.Finished:
        flash(_("The tournament is already finished."), "error")
        return redirect(url_for("tournaments.page", tournament_id=tournament_id))
    if after.finished:
        flash(_("The tournament is finished; fees and prizes are in the settlement."), "ok")
    else:
        flash(_("Series %(n)s is drawn.", n=after.current_series), "ok")
    return redirect(url_for("tournaments.page", tournament_id=tournament_id))


@bp.post("/tournaments/<int:tournament_id>/players")
def late_player(tournament_id: int) -> Any:
    """"Add a late player": one field and a button; seated from the next series on (issue 43.2)."""
    found = tournament(tournament_id, edit=True)
    form = PlayerForm()
    if not form.validate_on_submit():
        flash(_("Give the new player a name (at most 40 characters)."), "error")
    else:
        try:
            entry = tournament_entries.register(found.id, form.name.data)
        except (BadInput, tournament_entries.Refused) as exc:
            flash(explain(exc), "error")
        else:
            flash(_("%(name)s plays from series %(n)s on.", name=entry.player, n=entry.joined_series), "ok")
    return redirect(url_for("tournaments.page", tournament_id=tournament_id) + "#entries")


@bp.post("/tournaments/<int:tournament_id>/players/<name>/withdraw")
def withdraw(tournament_id: int, name: str) -> Any:
    """"Withdraw" by a player's name, then the confirm step: the player is not seated again (issue 43.2)."""
    found = tournament(tournament_id, edit=True)
    if not RoundForm().validate_on_submit():
        abort(400, _("The form has expired; reload the page."))
    back = url_for("tournaments.page", tournament_id=tournament_id)
    if request.form.get("confirm") != "yes":
        knockout = found.format == Format.KNOCKOUT
        return render_template(
            "pages/confirm.html", night=found.night, form=RoundForm(), title=_("Withdraw %(name)s?", name=name),
            lines=[_("%(name)s is not seated again; the match at the table goes on or is closed as the game "
                     "allows. The entry fee stays paid.", name=name),
                   _("In a knockout, %(name)s is out in this series, below everyone still at a table.", name=name)
                   if knockout else _("%(name)s keeps the place the results give.", name=name)],
            back=back, back_label=found.name, action=request.path, fields={},
            button=_("Withdraw %(name)s", name=name), button_id="confirm-withdraw", box_id="withdraw-confirm")
    try:
        tournament_entries.withdraw(found.id, name)
    except ledger.NotFound:
        abort(404)
    except tournaments.Finished:
        flash(_("The tournament is already finished."), "error")
    else:
        flash(_("%(name)s has withdrawn and is not seated again.", name=name), "ok")
    return redirect(back + "#entries")
