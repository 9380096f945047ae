"""One load, one parse, one settlement per request (issue 48.3), counted on a real app on both backends.

A round from the match page and a payment from the API each go downhill
through the layers once: the match (or the night) is read once, the state
made once, the form read once, the payload checked once, the settlement
worked out once. What is counted: SQL statements that load a match or
read the payments (SQLAlchemy's ``before_cursor_execute`` on the app's engine), and
calls of the functions every such step goes through, wrapped in place:
:func:`referee.ledger.fold.stored_state` (every ``state_of``), the game's
form parser, the spec's ``state_json`` and ``parse_round``, and
:func:`referee.ledger.payments.settlement`.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Callable, Iterator
from types import MappingProxyType
from typing import Any

import pytest
from sqlalchemy import event

from referee.engine import spec as registry
from referee.ledger import fold, payments
from referee.models import db
from referee.offline import round_parse
from tests.web.helpers import Api
from tests.web.test_pages import create_match, create_night, round_form

Counts = Counter[Any]


def views_made_twice(counts: Counts) -> int:
    """How many states were made into the API's view more than once."""
    return sum(1 for key, n in counts.items() if isinstance(key, tuple) and key[0] == "view" and n > 1)


def _counted(counts: Counts, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        counts[name] += 1
        return fn(*args, **kwargs)
    return wrapper


@pytest.fixture
def counts(app: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Counts]:
    """The counts of one request: reset by the test right before it (``counts.clear()``)."""
    seen: Counts = Counter()
    monkeypatch.setattr(fold, "stored_state", _counted(seen, "state", fold.stored_state))
    monkeypatch.setattr(payments, "settlement", _counted(seen, "settlement", payments.settlement))
    game = "svangknack"
    parse = round_parse.MODULES[game].parse  # the one parser; the pages' module re-exports it
    from referee import round_forms
    monkeypatch.setattr(round_parse.MODULES[game], "parse", _counted(seen, "form parse", parse))
    monkeypatch.setattr(round_forms.MODULES[game], "parse", _counted(seen, "page's form parse", parse))
    rules = registry.SPECS[game]

    def state_json(state: Any, money: Any) -> Any:
        seen["state_json"] += 1
        seen["view", id(state)] += 1  # each state made into the API's view, by identity (states are frozen)
        return rules.state_json(state, money)

    counted = dataclasses.replace(rules, state_json=state_json,
                                  parse_round=_counted(seen, "parse_round", rules.parse_round))
    monkeypatch.setattr(registry, "SPECS", MappingProxyType({**registry.SPECS, game: counted}))

    def statement(_conn: Any, _cursor: Any, sql: str, *_rest: Any) -> None:
        # A match loaded as a row (not the night's count of them, nor the titles' list of ids and games).
        if sql.lstrip().startswith("SELECT matches.id,") and "matches.seats" in sql:
            seen["match load"] += 1
        if re.search(r"\bFROM payments\b", sql):
            seen["payments read"] += 1

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", statement)
    yield seen
    event.remove(engine, "before_cursor_execute", statement)


def test_a_round_from_the_form_is_loaded_and_read_once(client: Any, counts: Counts) -> None:
    match_id = create_match(client, create_night(client))
    form = round_form(client, match_id) | {"tricks_3": "1", "tricks_1": "2"}
    counts.clear()
    assert client.post(f"/matches/{match_id}/rounds", data=form).status_code == 302
    # (On PostgreSQL the new state's view goes with the live notification: a second state_json, of another state.)
    assert counts["match load"] == 1 and counts["state"] == 1, counts
    assert counts["form parse"] == 1 and counts["parse_round"] == 1, counts
    assert counts["page's form parse"] == 0 and views_made_twice(counts) == 0, counts


def test_a_refused_round_is_read_once_and_drawn_once(client: Any, counts: Counts) -> None:
    """SK-8 (two players with two tricks): the ledger reads the form and checks it once; the page is drawn once.

    The refusal's page loads the match again, once: a keyed write that fails looks for a twin that may have
    made it (:func:`referee.ledger.idempotency.guard`), which ends the transaction, and the page shows the
    match as it is after that. (The error rows read the tapped fields once more to show them: that is
    the page's display, :mod:`referee.pages.error_rows`.)
    """
    match_id = create_match(client, create_night(client))
    form = round_form(client, match_id) | {"tricks_1": "2", "tricks_3": "2"}
    counts.clear()
    resp = client.post(f"/matches/{match_id}/rounds", data=form)
    assert resp.status_code == 422 and "(SK-8)" in resp.get_data(as_text=True)
    assert counts["form parse"] == 1 and counts["parse_round"] == 1, counts
    assert counts["match load"] == 2 and counts["state"] == 2, counts


def test_a_payment_is_settled_once(client: Any, counts: Counts) -> None:
    """The reply's settlement is the one the payment was checked against, with the payment in it."""
    api = Api(client)
    api.new_night(["Anna", "Bo", "Cia", "Dan"])
    match = api.new_match("svangknack", ["Anna", "Bo", "Cia", "Dan"], stake="3.00")
    status, _body = api.round(match["id"], {"participants": ["Bo", "Dan"], "tricks": {"Bo": 2, "Dan": 1}})
    assert status == 201, _body
    status, before = api.call("GET", f"/api/nights/{api.night['id']}/settlement")
    first = next(t for t in before["transfers"] if t["from"] and t["to"])  # player to player
    counts.clear()
    status, paid = api.call("POST", f"/api/nights/{api.night['id']}/payments",
                            {"from": first["from"], "to": first["to"], "amount": "1.00"},
                            headers={"Idempotency-Key": "pay-once"})
    assert status == 201, paid
    assert counts["settlement"] == 1 and counts["state"] == 1 and counts["payments read"] == 1, counts
    status, after = api.call("GET", f"/api/nights/{api.night['id']}/settlement")
    assert paid["settlement"] == after, "the reply's settlement is the night's as stored"
