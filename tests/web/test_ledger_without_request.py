"""The ledger driven with no request at all (issue 48.1): plain values in, rows and answers out.

Why: the ledger used to read ``flask.request`` (the idempotency key and the
body), ``flask.session`` (a phone's grants), ``request.remote_addr`` (the
wrong-token count) and ``current_app.config`` (the match's event limit), so
it could only run inside a request. A script, a command or a test now drives
it in an app context (Flask-SQLAlchemy's ``db`` handle) with no request: a
night, a match, rounds under an idempotency key and a fingerprint, a replay
and a key reused, a payment, a phone's grants in a dict, a caller's wrong
tokens counted to the 429, and the event limit from the ledger's settings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask import has_request_context

from referee import ledger
from referee.engine import BadInput
from referee.ledger import idempotency, payments, rights
from referee.ledger.ratelimit import Caller, FailureLimiter
from referee.models import IdempotentReply, Payment, Round, db
from tests.conftest import make_app

PLAYERS = ["Anna", "Bo", "Cia"]
ROUND = {"participants": PLAYERS, "tricks": {"Anna": 2, "Bo": 1, "Cia": 0}}


def _render(result: Any) -> tuple[int, dict[str, Any]]:
    row, _state = result
    return 201, {"seq": row.seq}


def test_a_script_drives_the_ledger(backend: str, tmp_path: Path) -> None:
    app = make_app(backend, tmp_path)
    with app.app_context():
        assert not has_request_context()
        night = ledger.create_night("Fredag", "SEK", PLAYERS)
        match = ledger.create_match(night, "svangknack", PLAYERS, "Anna", "3.00",
                                    {"forced_participation": "always"})

        idem = idempotency.bind("api", "round-1", "fingerprint-a", _render)
        assert idem is not None and idempotency.bind("api", None, "fingerprint-a", _render) is None
        row, _state = ledger.add_round(match.id, ROUND, idem=idem)
        assert row.seq == 1 and idem.answer == (201, {"seq": 1})
        with pytest.raises(idempotency.Replayed) as replayed:  # the same key and fingerprint: the first answer
            idempotency.bind("api", "round-1", "fingerprint-a", _render)
        assert (replayed.value.status, replayed.value.body) == (201, {"seq": 1})
        with pytest.raises(idempotency.KeyReused):  # the same key with another request's fingerprint
            idempotency.bind("api", "round-1", "fingerprint-b", _render)
        ledger.add_round(match.id, ROUND, idem=idempotency.bind("api", "round-2", "fingerprint-c", _render))
        assert db.session.query(Round).filter_by(match_id=match.id).count() == 2
        assert db.session.query(IdempotentReply).count() == 2

        night = ledger.get_night(night.id)
        plan = payments.settlement(night).plan.transfers
        assert plan, "two rounds of Svängknack leave someone owing"
        first = plan[0]
        payments.record_payment(night, first.payer, first.payee, ledger.night_money(night).format(first.amount),
                                idem=idempotency.bind("api", "pay-1", "fingerprint-d",
                                                      lambda p: (201, {"id": p.row.id})))
        assert db.session.query(Payment).filter_by(night_id=night.id).count() == 1


def test_rights_take_grants_and_a_caller(backend: str, tmp_path: Path) -> None:
    app = make_app(backend, tmp_path)
    with app.app_context():
        assert not has_request_context()
        night = ledger.create_night("Fredag", "SEK", PLAYERS)
        grants: dict[str, Any] = {}
        caller = Caller("192.0.2.7", FailureLimiter(limit=2, window=60))
        assert rights.phone_access(night, grants) == rights.NO_ACCESS
        rights.grant_night(grants, night, edit=True)
        assert rights.phone_access(night, grants) == rights.Access(rights.Right.EDIT)
        assert rights.edit_granted_ids(grants) == [night.id]
        assert rights.night_access(night, night.view_token, caller, grants=None) == rights.Access(rights.Right.VIEW)
        assert rights.link("wrong", caller) is None and rights.link("wrong-again", caller) is None
        with pytest.raises(rights.TooManyWrong) as blocked:  # this address only: another still tries
            rights.link("wrong-a-third-time", caller)
        assert blocked.value.wait > 0
        assert rights.link("wrong", Caller("192.0.2.8", caller.limiter)) is None
        assert rights.link(night.edit_token, caller) is not None  # a right token still opens (issue 44.5)


def test_the_event_limit_comes_from_the_ledgers_settings(backend: str, tmp_path: Path) -> None:
    app = make_app(backend, tmp_path)
    with app.app_context():
        assert ledger.match_events_limit() == app.config["MAX_MATCH_EVENTS"]
        ledger.configure(db.engine, ledger.Settings(max_match_events=1))
        night = ledger.create_night("Fredag", "SEK", PLAYERS)
        match = ledger.create_match(night, "svangknack", PLAYERS, "Anna", "3.00", {"forced_participation": "always"})
        ledger.add_round(match.id, ROUND)
        with pytest.raises(BadInput):
            ledger.add_round(match.id, ROUND)
