"""A protocol's cost follows what it prints: many voided events are lines of text (issue 25, item 9).

An import of 6,000 voided rounds made an 18 s protocol: each was a row of
the game's table. A log with more than ``VOID_ROWS`` voided events now lists
them all under "Voided entries", one line each (number, what was entered,
why it was voided), and the game's table shows the counted events only; a
log with a few voids keeps them in the table, struck through. On SQLite and
PostgreSQL. (The time is in ``docs/reliability.md``; tests are not timed.)
"""

from __future__ import annotations

import re
from typing import Any

from referee.reports.rounds import VOID_ROWS
from tests.pdf_helpers import pdf_text

PLAYERS = ["Anna", "Bo", "Cia"]


def _kul_night(client: Any, voids: int) -> tuple[dict[str, Any], int]:
    rounds = [{"seq": k + 1, "payload": {"last_trick": "Bo"}, "void": True, "void_reason": f"slip {k + 1}"}
              for k in range(voids)]
    rounds += [{"seq": voids + 1, "payload": {"last_trick": "Cia"}}]
    export = {"format": "referee-night", "version": 1, "currency": "SEK",
              "night": {"name": "Voids", "currency": "SEK"}, "players": [{"name": p} for p in PLAYERS],
              "matches": [{"game": "kul", "seats": PLAYERS, "first_dealer": "Anna", "stake_minor": 100,
                           "rounds": rounds}]}
    reply = client.post("/api/import", json=export)
    assert reply.status_code == 201, reply.get_json()
    night = reply.get_json()
    return night, night["matches"][0]["id"]


def _protocol(client: Any, night: dict[str, Any], match: int) -> str:
    resp = client.get(f"/matches/{match}/protocol.pdf?view={night['view_token']}")
    assert resp.status_code == 200 and resp.mimetype == "application/pdf"
    return " ".join(pdf_text(resp.data).split())


def test_many_voided_rounds_are_one_line_each(client: Any) -> None:
    voids = VOID_ROWS + 1
    text = _protocol(client, *_kul_night(client, voids))
    deals, listed = text[text.index("Deals"):text.index("Voided entries")], text[text.index("Voided entries"):]
    # the counted deal, in the table: round 1 as the table counts (the voided ones never happened; each
    # took the place of round 1 in turn)
    assert "slip" not in deals and re.search(r"\b1 Cia\b", deals)
    for k in (1, 2, voids):
        assert f"1 last_trick: Bo void: slip {k}" in listed, listed[:400]
    assert len(re.findall(r"last_trick: Bo void: slip \d+", listed)) == voids


def test_a_few_voided_rounds_stay_in_the_table(client: Any) -> None:
    text = _protocol(client, *_kul_night(client, 2))
    assert "Voided entries" not in text
    assert "void: slip 1" in text and "void: slip 2" in text
