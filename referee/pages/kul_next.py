"""Kul's taps after a tap (issue 42.2): undo the deal just saved, and the next game after a win.

Kul's round form is one tap (who took the last trick), so a mis-tap is
saved at once. The leader's page offers, for :data:`UNDO_OFFER` seconds
after its save, one tap that voids exactly that deal through the ledger's
:func:`~referee.ledger.void_round` (the reason says it was undone), instead
of the void page's three steps. The offer is only on the phone that saved
the deal (its form key is among the session's saved keys,
:mod:`referee.pages.queue_keys`), only while the deal is the match's last
event, and it is hidden while the phone is offline (``static/js/kul.js``): an
undo is a write that must reach the server now; a deal still waiting in the
offline queue is taken out of the queue instead.

When a game is won (KU-4), one tap starts the next game of the same night (a phone with the night's
edit right, at a table of no tournament: a tournament's tables come from its draw):
the same players in the same seats, the same stake and options, the winner
dealing (KU-4: "That player deals the next game"). It is the ledger's
:func:`~referee.ledger.create_match`, keyed by the form's one-time token
(:func:`referee.web.idempotent.from_request`) as every page form is, so a
double tap or a resent post makes one match and the second answer leads to it.
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import abort, flash, redirect, url_for
from flask_babel import gettext as _

from referee import ledger
from referee.engine import BadInput, RuleViolation
from referee.engine.spec import spec
from referee.engine.vocab import EventKind
from referee.ledger import idempotency, tables
from referee.messages import explain
from referee.models import Match, Round, now
from referee.pages import _match, bp, offline
from referee.pages.forms import RoundForm
from referee.pages.phone_rights import can_edit, require
from referee.pages.queue_keys import done_keys
from referee.web import idempotent

GAME = "kul"
#: How long the undo is offered after a save (seconds): long enough to see the mis-tap, short enough not to
#: stand in the way of the next deal.
UNDO_OFFER = 10
#: How long after the save the server still takes the undo (seconds): the tap may reach it late on a slow network.
UNDO_TAKEN = 60


def _form() -> RoundForm:
    """A one-button form with its CSRF token and a fresh one-time key (a double tap is one write)."""
    form = RoundForm()
    form.form_token.data = secrets.token_urlsafe(16)
    return form


def _undoable(match: Match, within: float) -> Round | None:
    """The deal this phone saved last, if it may still be undone: the match's last event, a round, not void,
    saved with a form key of this session, at most ``within`` seconds ago."""
    seq = match.snapshot.next_seq - 1
    if match.game != GAME or seq < 1:
        return None
    rnd = ledger.round_at(match.id, seq)
    if rnd is None or rnd.void or rnd.kind != EventKind.ROUND or rnd.idempotency_key not in done_keys():
        return None
    return rnd if (now() - rnd.created_at).total_seconds() <= within else None


@bp.app_template_global("kul_undo")
def undo_offer(match: Match) -> dict[str, Any] | None:
    """What the Kul page's undo box needs (``templates/pages/match_kul.html``), or None when there is none."""
    if not can_edit(match.night, match.id):
        return None
    rnd = _undoable(match, UNDO_OFFER)
    if rnd is None:
        return None
    left = UNDO_OFFER - (now() - rnd.created_at).total_seconds()
    return {"seq": rnd.seq, "who": rnd.payload.get("last_trick", ""), "left_ms": max(int(left * 1000), 0),
            "form": _form()}


@bp.app_template_global("kul_next")
def next_offer(match: Match, view: dict[str, Any]) -> dict[str, Any] | None:
    """The next game's button (``templates/pages/match_kul.html``): after a win, on the page of a phone that may
    make matches in the night (not a tournament table's phone), and not at a tournament's table (its draw does)."""
    if (match.game != GAME or not view.get("winner") or not can_edit(match.night)
            or tables.table_of_match(match.id) is not None):
        return None
    return {"dealer": view["winner"], "form": _form()}


def _back(match_id: int) -> Any:
    return redirect(url_for("pages.match", match_id=match_id))


@bp.post("/matches/<int:match_id>/rounds/<int:seq>/undo")
def undo_deal(match_id: int, seq: int) -> Any:
    """Void the deal just saved (one tap), with the reason that it was undone."""
    m = _match(match_id, edit=True)
    if m.game != GAME:
        abort(404)
    if not RoundForm().validate_on_submit():
        abort(400, _("The form has expired; reload the page."))
    rnd = ledger.round_at(m.id, seq)
    if rnd is None:
        abort(404)
    if rnd.void:  # undone already (a second tap that came with another key): say so again, change nothing
        flash(_("Deal %(n)s is undone: it no longer counts.", n=seq), "ok")
        return _back(match_id)
    last = _undoable(m, UNDO_TAKEN)
    if last is None or last.seq != seq:
        flash(_("Deal %(n)s can no longer be undone here; void it from the history instead.", n=seq), "error")
        return _back(match_id)
    try:
        with offline.once():  # the same tap sent twice is one void
            ledger.void_round(match_id, seq, _("undone right after saving"), idem=offline.page_idem())
    except (RuleViolation, BadInput) as exc:
        flash(explain(exc), "error")
        return _back(match_id)
    flash(_("Deal %(n)s is undone: it no longer counts.", n=seq), "ok")
    return _back(match_id)


def _made(match: Match) -> tuple[int, dict[str, Any]]:
    """What the next game's form key keeps: the new match (a resent tap leads to it)."""
    return 201, {"match": match.id}


@bp.post("/matches/<int:match_id>/next")
def next_game(match_id: int) -> Any:
    """After a win: a new Kul among the same players, with the same stake and options, the winner dealing (KU-4)."""
    m = _match(match_id)
    require(m.night, edit=True)  # a new match of the night: the night's edit right, not a table's (issue 45.3)
    if m.game != GAME:
        abort(404)
    if tables.table_of_match(m.id) is not None:
        abort(409, _("A tournament table's next game comes from the tournament's draw, not from here."))
    if not RoundForm().validate_on_submit():
        abort(400, _("The form has expired; reload the page."))
    money = ledger.night_money(m.night)
    winner = spec(m.game).state_json(ledger.state_of(m), money).get("winner")
    if not winner:
        flash(_("This game has no winner yet; the next game starts when someone has won it (KU-4)."), "error")
        return _back(match_id)
    try:
        made = ledger.create_match(m.night, m.game, list(m.seats), winner, money.format(m.stake), dict(m.options),
                                   idem=idempotent.from_request(_made, form=True))
    except idempotency.Replayed as done:  # the same tap sent twice: one match, and this answer leads to it
        return _back(int(done.body.get("match", match_id)))
    except (RuleViolation, BadInput) as exc:
        flash(explain(exc), "error")
        return _back(match_id)
    flash(_("Next game: the same players and stake; %(name)s deals (KU-4).", name=winner), "ok")
    return _back(made.id)
