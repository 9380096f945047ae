"""The trick referee on the phone (SK-15, KU-3, SL-14): tap the cards of a deal as they fall.

``/referee/tricks/<game>`` for Svängknack, Kul and Schloapfer. The leader
names who plays (seat order), who leads and trumps, and taps each card; the
verdict is the engine's (:func:`referee.engine.questions.answer`, the same
as ``POST /api/referee/tricks``): who won each trick, or the first broken
rule with its ID. The page's script asks the API on every tap, and the
engine in this browser when there is no network; without JavaScript the
"Check" button posts the form and the page answers the same way.

Opened from a match (``?match=<id>``), the players, the leader and the
match's round form tokens are filled in, and a complete legal deal is
entered as the match's next round with one tap: the server judges the deal
again (it never trusts the page's payload) and enters the verdict's
``round`` through the service layer, like any round.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from flask import abort, render_template, request
from flask_babel import gettext as _

from referee import ledger
from referee.engine import BadInput, RuleViolation, questions, tricks
from referee.engine.cards import RANKS
from referee.engine.spec import SPECS, spec
from referee.ledger import idempotency
from referee.messages import explain
from referee.models import Match
from referee.pages import _match, bp
from referee.pages.forms import RoundForm
from referee.pages.matches import _round_form, expected_seq, round_saved, round_saved_again, saved_round
from referee.pages.phone_rights import can_edit
from referee.pages.referee import SUIT_BUTTONS, opened_match
from referee.web import idempotent

_SPLIT = re.compile(r"[\s,;]+")


@dataclass(frozen=True)
class Setup:
    """What the page holds: who plays (seat order), who leads, trumps and the cards so far."""

    players: tuple[str, ...]
    leader: str
    trump: str
    deal: str

    def tricks(self) -> list[list[str]]:
        """``"AS KS 2S / 5H 9H"`` → ``[["AS", "KS", "2S"], ["5H", "9H"]]`` (empty tricks dropped)."""
        out = [[c for c in _SPLIT.split(part.strip()) if c] for part in self.deal.split("/")]
        return [t for t in out if t]

    def request_json(self, game: str) -> dict[str, Any]:
        """The setup as the API's request (``POST /api/referee/tricks``)."""
        data: dict[str, Any] = {"game": game, "players": list(self.players), "leader": self.leader,
                                "tricks": self.tricks()}
        if SPECS[game].has_trumps:  # Kul has none (KU-3)
            data["trump"] = self.trump
        return data


def deck_ranks(game: str) -> tuple[str, ...]:
    """The ranks of the game's deck, for the card picker (Schloapfer's has no 2 to 5)."""
    return tuple(r for r in RANKS if any(card.rank == r for card in tricks.DECKS[game]))


def _first_leader(match: Match) -> tuple[tuple[str, ...], str]:
    """The match's players still in and who leads: the svängare (Svängknack), else forehand."""
    rules = spec(match.game)
    view = rules.state_json(ledger.state_of(match), ledger.night_money(match.night))
    seats = tuple(match.seats)
    players = tuple(p for p in seats if p in view.get("in_match", seats))  # Schloapfer's players still in
    if SPECS[match.game].has_svangare:
        return players, str(view["svangare"])
    dealer = seats.index(view["dealer"])
    after = [seats[(dealer + i) % len(seats)] for i in range(1, len(seats) + 1)]
    return players, next((p for p in after if p in players), players[0])


def read_setup(values: Any, match: Match | None) -> Setup:
    """The page's fields (or, for a page just opened from a match, the match's defaults)."""
    if "players" not in values and match is not None:
        players, leader = _first_leader(match)
        return Setup(players, leader, "S", "")
    players = tuple(p for p in (x.strip() for x in str(values.get("players", "")).split(",")) if p)[:16]
    # Passed on as typed (cut short): the engine names a trump that is no suit, nothing is defaulted.
    return Setup(players, str(values.get("leader", "")).strip()[:60], str(values.get("trump", "S"))[:20],
                 str(values.get("deal", ""))[:2000])


def _check(game: str, setup: Setup) -> tuple[dict[str, Any] | None, str | None]:
    """The verdict on the deal so far, or the message of impossible input."""
    if not setup.tricks():
        return None, None
    try:
        return questions.answer("tricks", setup.request_json(game), _), None
    except BadInput as exc:
        return None, explain(exc)


def _page(game: str, setup: Setup, match: Match | None, verdict: dict[str, Any] | None, error: str | None,
          status: int = 200) -> Any:
    ranks = deck_ranks(game)
    editable = match is not None and can_edit(match.night, match.id) and not ledger.state_of(match).finished
    return render_template("pages/trick_referee.html", game=game, title=SPECS[game].title, setup=setup,
                           match=match, verdict=verdict, error=error, suits=SUIT_BUTTONS, ranks=ranks,
                           hand_size=tricks.HAND_SIZE[game], form=_round_form(match) if editable else None), status


@bp.route("/referee/tricks/<game>", methods=["GET", "POST"])
def trick_referee(game: str) -> Any:
    if game not in tricks.GAMES:
        abort(404)
    match = opened_match(request.values.get("match"), game)
    setup = read_setup(request.form if request.method == "POST" else request.args, match)
    verdict, error = _check(game, setup) if request.method == "POST" else (None, None)
    return _page(game, setup, match, verdict, error)


@bp.post("/matches/<int:match_id>/rounds/deal")
def round_from_deal(match_id: int) -> Any:
    """One tap: a complete, legal deal becomes the match's next round (the verdict's ``round``)."""
    match = _match(match_id, edit=True)
    if match.game not in tricks.GAMES:
        abort(404)
    form = RoundForm()
    if not form.validate_on_submit():
        abort(400, _("The form has expired; reload the page."))
    expected = expected_seq(form)
    setup = read_setup(request.form, match)
    verdict, error = _check(match.game, setup)
    if verdict is None or not verdict["legal"] or verdict["round"] is None:
        if error is None:
            error = _("The deal is not complete and legal yet; nothing was entered.")
        return _page(match.game, setup, match, verdict, error, 422)
    payload = dict(verdict["round"])
    if SPECS[match.game].has_svangare:
        payload["svangare"] = setup.leader  # the engine checks it against SK-11
    deal = {k: v for k, v in setup.request_json(match.game).items() if k != "game"}
    try:  # the deal is judged again by the service and stored with the round, in its INSERT
        idem = idempotent.from_request(saved_round, form=True)
        rnd, _state = ledger.add_round(match_id, payload, idem=idem, expected_seq=expected, deal=deal)
    except idempotency.Replayed as done:
        return round_saved_again(match_id, done)
    except (RuleViolation, BadInput) as exc:
        return _page(match.game, setup, ledger.get_match(match_id), verdict, explain(exc), 422)
    except ledger.Conflict as exc:
        return _page(match.game, setup, exc.match, verdict, explain(exc), 409)
    return round_saved(match, rnd)
