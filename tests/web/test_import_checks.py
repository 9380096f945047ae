"""An import (no credentials needed) checks everything before it writes anything (issue 25, item 8).

Each file below was accepted, or failed with a 500, before: opening rows that
leave the balances unequal were stored (then the import and every later read
of the night answered 500), a time out of range raised ``OverflowError``, a
payment's ``amount`` disagreeing with its ``amount_minor`` was stored as one
of them, and a void round's payload was never read. Now each is a 400 naming
the field, and nothing is stored; on SQLite and PostgreSQL.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from tests.web.test_exports import _set, counts, small_export

__all__ = ["small_export"]  # the module's fixture, used here


def _add_payments(*rows: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        data["payments"].extend(rows)
    return change


def _opening(payer: str, minor: int, carry: str = "c1", void: bool = False) -> dict[str, Any]:
    return {"kind": "opening", "payer": payer, "amount_minor": minor, "carry_id": carry, "void": void}


REFUSED: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("opening-unequal", _add_payments(_opening("Anna", 500), _opening("Bo", -400)), "payments"),
    ("opening-alone", _add_payments(_opening("Anna", 500)), "payments"),
    ("carry-out-unequal", _add_payments({"kind": "carry_out", "payer": "Cia", "amount_minor": 300, "carry_id": "x"}),
     "payments"),
    ("carry-half-void", _add_payments(_opening("Anna", 500), _opening("Bo", -500, void=True)), "payments"),
    ("created-at-year-1-with-offset", _set("night.created_at", "0001-01-01T00:00:00+01:00"), "night.created_at"),
    ("created-at-year-9999-with-offset", _set("matches.0.rounds.0.created_at", "9999-12-31T23:59:59-01:00"),
     "matches[0].rounds[0].created_at"),
    ("created-at-too-early", _set("payments.0.created_at", "1066-10-14T09:00:00Z"), "payments[0].created_at"),
    ("created-at-too-late", _set("matches.0.created_at", "3000-01-01T00:00:00Z"), "matches[0].created_at"),
    ("payment-amounts-disagree", _set("payments.0.amount", "2.00"), "payments[0].amount"),
    ("void-round-unknown-player", _set("matches.0.rounds.1.payload", {"participants": ["Zed"]}),
     "matches[0].rounds[1].payload.participants"),
    ("void-round-unknown-field", _set("matches.0.rounds.1.payload", {"colour": "red"}),
     "matches[0].rounds[1].payload.colour"),
    # a tournament's fee (issue 43.4) goes from a player into the pot, and is more than zero
    ("fee-to-a-player", _set("payments.0", {"kind": "fee", "payer": "Anna", "payee": "Bo", "amount_minor": 500,
                                            "carry_id": "tournament:1"}), "payments[0].payee"),
    ("fee-of-zero", _set("payments.0", {"kind": "fee", "payer": "Anna", "payee_pot": True, "amount_minor": 0,
                                        "carry_id": "tournament:1"}), "payments[0].amount_minor"),
]


@pytest.mark.parametrize("change, field", [(c, f) for _, c, f in REFUSED], ids=[i for i, _, _ in REFUSED])
def test_refused_before_anything_is_written(app: Any, client: Any, small_export: dict[str, Any], change: Any,
                                            field: str) -> None:
    assert small_export["matches"][0]["rounds"][1]["void"]  # the void round the last cases change
    bad = copy.deepcopy(small_export)
    change(bad)
    with app.app_context():
        before = counts()
    reply = client.post("/api/import", json=bad)  # no credentials: anyone may send a file
    assert (reply.status_code, reply.get_json()["field"]) == (400, field), reply.get_json()
    with app.app_context():
        assert counts() == before


def test_balanced_carries_and_times_at_the_edges_import(app: Any, client: Any, small_export: dict[str, Any]) -> None:
    """What a real night holds still imports: a carry's rows adding up to zero (a void one too), any time zone."""
    good = copy.deepcopy(small_export)
    good["version"] = 1  # rows added by hand: a file of before the hash chain (issue 46.2), not checked against one
    good["payments"] += [_opening("Anna", 500), _opening("Bo", -300), _opening("Cia", -200),
                         _opening("Anna", 100, "c2", void=True), _opening("Cia", -100, "c2", void=True)]
    good["night"]["created_at"] = "1900-01-01T00:30:00+01:00"  # 1899 in UTC: refused
    assert client.post("/api/import", json=good).status_code == 400
    good["night"]["created_at"] = "2999-12-31T23:00:00-00:30"
    reply = client.post("/api/import", json=good)
    assert reply.status_code == 201, reply.get_json()
    night = reply.get_json()
    settlement = client.get(f"/api/nights/{night['id']}/settlement",
                            headers={"Authorization": f"Bearer {night['edit_token']}"})
    assert settlement.status_code == 200
    assert settlement.get_json()["opening"] == {"Anna": "5.00", "Bo": "-3.00", "Cia": "-2.00"}
