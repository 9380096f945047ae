"""What one night may hold and what one address may create in an hour (issue 45.6), on SQLite and PostgreSQL.

The bounds are :mod:`referee.bounds`: a refused night, tournament, match or
round is a ``400`` naming the bound and writes no row; the address past its
creations is a ``429`` with ``Retry-After`` and a sentence, and another
address still creates. The export of a night at the bounds (480 players,
1,000 matches, the configured events) imports again.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from referee import bounds
from referee.engine import BadInput
from referee.models import db
from tests.conftest import make_app, served_app
from tests.tournament.helpers import bearer
from tests.web.helpers import Api

PLAYERS = ["Anna", "Bo", "Cia"]
ROUND = {"participants": ["Anna", "Bo", "Cia"], "tricks": {"Anna": 1, "Bo": 1, "Cia": 1}}


def rows(app: Any) -> dict[str, int]:
    """Rows of every table (the creations' counts too)."""
    with app.app_context():
        return {t.name: int(db.session.scalar(select(func.count()).select_from(t)) or 0)
                for t in db.metadata.sorted_tables}


@pytest.fixture
def small(backend: str, tmp_path: Path) -> Iterator[Any]:
    """The app with a night of at most 5 events and 3 creations an hour per address."""
    yield from served_app(backend, tmp_path, MAX_IMPORT_EVENTS=5, CREATIONS_PER_HOUR=3)


def _tournament(players: int, table_size: int, series: int) -> dict[str, Any]:
    return {"name": "Klubbkväll", "currency": "SEK", "game": "schwimmen", "table_size": table_size,
            "players": [f"Spelare {k:03d}" for k in range(players)], "series": series, "stake": "1.00"}


def test_a_tournament_past_the_night_bounds_is_refused_and_writes_nothing(app: Any) -> None:
    client = app.test_client()
    before = rows(app)
    # The night: 400 players at tables of 2 over 50 series, 10,000 tables.
    reply = client.post("/api/tournaments", json=_tournament(400, 2, 50))
    body = reply.get_json()
    assert reply.status_code == 400 and body["field"] == "series", body
    assert "play at 10000 tables, and one night holds at most 1000" in body["error"], body
    reply = client.post("/api/tournaments", json=_tournament(bounds.NIGHT_PLAYERS + 1, 4, 1))
    assert reply.status_code == 400 and reply.get_json()["field"] == "players", reply.get_json()
    assert rows(app) == before
    # A club evening of 480 at tables of 4 over 8 series (960 tables) is in.
    reply = client.post("/api/tournaments", json=_tournament(480, 4, 8))
    assert reply.status_code == 201, reply.get_json()
    assert len(reply.get_json()["tables"]) == 120


def test_a_night_at_its_matches_takes_no_more(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounds, "NIGHT_MATCHES", 2)
    api = Api(app.test_client())
    api.new_night(PLAYERS)
    for _ in range(2):
        api.new_match("svangknack", PLAYERS, stake="3.00")
    before = rows(app)
    status, body = api.call("POST", f"/api/nights/{api.night['id']}/matches",
                            {"game": "svangknack", "players": PLAYERS, "stake": "3.00"})
    assert status == 400 and "This night has 2 matches, the most a night may hold" in body["error"], body
    assert rows(app) == before


def test_a_night_at_its_payment_rows_takes_no_more_and_its_export_imports(app: Any,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Payments paid and voided again: at the night's payment rows, one more is a ``400`` that writes nothing,
    and the night's export imports (its rows were more than the import takes, issue 43.6)."""
    monkeypatch.setattr(bounds, "NIGHT_PAYMENTS", 4)
    api = Api(app.test_client())
    api.new_night(PLAYERS)
    match = api.new_match("svangknack", PLAYERS, stake="3.00")
    status, body = api.round(match["id"], {"participants": PLAYERS, "tricks": {"Anna": 3, "Bo": 0, "Cia": 0}})
    assert status == 201, body
    assert api.call("POST", f"/api/matches/{match['id']}/close", {"pot": "split"})[0] == 200
    owes = next(name for name, value in api.call("GET", f"/api/nights/{api.night['id']}")[1]["balances"].items()
                if value.startswith("-"))
    to = next(name for name in PLAYERS if name != owes)
    pay = {"from": owes, "to": to, "amount": "0.01"}
    for _ in range(4):
        status, body = api.call("POST", f"/api/nights/{api.night['id']}/payments", pay)
        assert status == 201, body
        assert api.call("POST", f"/api/nights/{api.night['id']}/payments/{body['payment']['id']}/void",
                        {"reason": "typo"})[0] == 200
    before = rows(app)
    status, body = api.call("POST", f"/api/nights/{api.night['id']}/payments", pay)
    assert status == 400 and "holds 4 payment rows, the most a night may hold" in body["error"], body
    assert rows(app) == before
    status, export = api.call("GET", f"/api/nights/{api.night['id']}/export.json")
    assert status == 200 and len(export["payments"]) == 4
    status, body = api.call("POST", "/api/import", export, token=None)
    assert status == 201, body


def test_a_carry_seats_no_more_players_in_the_later_night_than_a_night_holds(app: Any,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A carry seats its players in the later night: past ``bounds.NIGHT_PLAYERS`` that night's export would not
    import again (issue 43.6); refused with a ``400`` that writes nothing, and a carry that fits goes through."""
    from tests.web.test_settlement import kul_night

    client = app.test_client()
    api, _match = kul_night(client, group="Fredagsgänget")
    later = Api(client)
    later.new_night(["Eva", "Filip"], group_token=api.night["group_token"])
    monkeypatch.setattr(bounds, "NIGHT_PLAYERS", 5)  # 2 + the 4 carried would be 6
    before = rows(app)
    status, body = api.call("POST", f"/api/nights/{api.night['id']}/carry", {"to_night": later.night["id"]})
    assert status == 400 and "would have more than 5 players" in body["error"], body
    assert rows(app) == before
    monkeypatch.setattr(bounds, "NIGHT_PLAYERS", 6)
    assert api.call("POST", f"/api/nights/{api.night['id']}/carry", {"to_night": later.night["id"]})[0] == 200


def test_a_tournament_nights_own_matches_leave_room_for_its_series_to_come(app: Any,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounds, "NIGHT_MATCHES", 7)
    client = app.test_client()
    made = client.post("/api/tournaments", json=_tournament(4, 2, 3)).get_json()  # 2 tables now, 4 to come
    api = Api(client)
    api.token, api.night = made["edit_token"], {"id": made["night"]}
    seats = made["tables"][0]["players"]
    api.new_match("schwimmen", seats, stake="1.00")  # the seventh place
    status, body = api.call("POST", f"/api/nights/{made['night']}/matches",
                            {"game": "schwimmen", "players": seats, "stake": "1.00"})
    assert status == 400 and "This night has 7 matches" in body["error"], body


def test_a_night_at_its_events_takes_no_more_rounds_and_every_table_still_closes(small: Any) -> None:
    api = Api(small.test_client())
    api.new_night(PLAYERS)
    first, second = (int(api.new_match("svangknack", PLAYERS, stake="3.00")["id"]) for _ in range(2))
    for match in (first, second, first):  # 3 rounds; with the two closes kept free, 5 events: the bound
        status, body = api.round(match, ROUND)
        assert status == 201, body
    before = rows(small)
    status, body = api.round(second, ROUND)
    assert status == 400 and body["field"] == "round", body
    assert "This night holds 5 entries, the most a night may hold" in body["error"], body
    assert rows(small) == before
    for match in (first, second):
        status, body = api.call("POST", f"/api/matches/{match}/close", {"pot": "split"})
        assert status == 200, body
    # Full: its export imports again (the import's budget is the night's bound).
    status, export = api.call("GET", f"/api/nights/{api.night['id']}/export.json")
    assert status == 200 and sum(len(m["rounds"]) for m in export["matches"]) == 5
    status, body = api.call("POST", "/api/import", export, token=None)
    assert status == 201, body


def test_one_address_creates_at_most_its_share_an_hour(small: Any) -> None:
    client = small.test_client()
    outsider = {"REMOTE_ADDR": "10.45.6.1"}
    night = {"name": "Kväll", "currency": "SEK", "players": PLAYERS}
    assert client.post("/api/nights", json=night, environ_overrides=outsider).status_code == 201
    tourn = _tournament(6, 3, 1)
    assert client.post("/api/tournaments", json=tourn, environ_overrides=outsider).status_code == 201
    made = client.post("/api/nights", json=night, environ_overrides=outsider)
    assert made.status_code == 201
    export = client.get(f"/api/nights/{made.get_json()['id']}/export.json",
                        headers=bearer(made.get_json()["edit_token"]))
    before = rows(small)
    for path, body in (("/api/nights", night), ("/api/tournaments", tourn), ("/api/import", export.get_json())):
        reply = client.post(path, json=body, environ_overrides=outsider)
        assert reply.status_code == 429, (path, reply.get_json())
        assert "This address has created 3 nights and tournaments within the hour" in reply.get_json()["error"]
        assert 0 < int(reply.headers["Retry-After"]) <= 3960
    assert rows(small) == before
    # The page's form answers the same, in the phone's language.
    page = client.post("/nights/new", data={"name": "Kväll", "currency": "SEK", "players": "Anna\nBo\nCia"},
                       environ_overrides=outsider, headers={"Accept-Language": "sv"})
    assert page.status_code == 429 and "Den här adressen har skapat 3" in page.get_data(as_text=True)
    # Another address (another club behind its own router) still creates.
    assert client.post("/api/nights", json=night, environ_overrides={"REMOTE_ADDR": "10.45.6.2"}).status_code == 201


def test_a_creation_found_past_the_share_inside_its_write_is_refused_with_its_count(
        small: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """As when creations sent at once all passed the early check (tests/faults/test_creation_limit.py races them
    on real servers): the count taken inside the write finds the hour full, and the creation and its count roll
    back together, so a refused creation never fills the next hour."""
    from referee.ledger import ratelimit
    from referee.models import TokenFailure

    client = small.test_client()
    address = {"REMOTE_ADDR": "10.45.6.3"}
    night = {"name": "Kväll", "currency": "SEK", "players": PLAYERS}
    made = [client.post("/api/nights", json=night, environ_overrides=address) for _ in range(3)]
    assert [m.status_code for m in made] == [201] * 3
    export = client.get(f"/api/nights/{made[0].get_json()['id']}/export.json",
                        headers=bearer(made[0].get_json()["edit_token"])).get_json()

    def counted() -> int:
        with small.app_context():
            return int(db.session.scalar(select(func.sum(TokenFailure.count))
                                         .where(TokenFailure.address == "new|10.45.6.3")) or 0)

    assert counted() == 3
    monkeypatch.setattr(ratelimit, "full", lambda caller: None)  # the early check saw room (the race)
    before = rows(small)
    for path, body in (("/api/nights", night), ("/api/tournaments", _tournament(6, 3, 1)), ("/api/import", export)):
        reply = client.post(path, json=body, environ_overrides=address)
        assert reply.status_code == 429, (path, reply.get_json())
        assert "This address has created 3 nights and tournaments within the hour" in reply.get_json()["error"]
        assert 0 < int(reply.headers["Retry-After"]) <= 3960
    assert rows(small) == before and counted() == 3

def test_the_export_of_a_night_at_the_bounds_imports_again(backend: str, tmp_path: Path) -> None:
    """480 players, 1,000 matches (a tournament's 960 tables and 40 more) and the night's events, all of them."""
    from referee import ledger
    from referee.ledger import tournaments as tourneys

    limit = 1_004  # (the configured events: a close of each match and four rounds)
    application = make_app(backend, tmp_path, MAX_IMPORT_EVENTS=limit)
    try:
        with application.test_request_context("/"):
            data = _tournament(bounds.NIGHT_PLAYERS, 4, 8)
            tourn = tourneys.create(tourneys.check(data))
            for _series in range(8):
                for table in tourneys.current_tables(tourneys.get(tourn.id)):
                    ledger.close_match(table.match_id, "split")
                tourneys.next_series(tourn.id)
            night = ledger.get_night(tourn.night_id)
            extra = [ledger.create_match(night, "svangknack", data["players"][k:k + 3], data["players"][k], "3.00")
                     for k in range(bounds.NIGHT_MATCHES - len(night.matches))]
            for match in extra[:-1]:
                ledger.close_match(match.id, "split")
            last = extra[-1]
            played, state = 0, ledger.state_of(last)
            while True:  # rounds until the night is full (its last close kept free): the svängare alone
                try:
                    _round, state = ledger.add_round(last.id, {"participants": [last.seats[(state.dealer + 1) % 3]]})
                except BadInput as refused:
                    assert refused.params == {"n": limit} and "the most a night may hold" in refused.template
                    break
                played += 1
            ledger.close_match(last.id, "split")
            night_id, token = night.id, night.edit_token
        assert played == 4
        client = application.test_client()
        export = client.get(f"/api/nights/{night_id}/export.json", headers=bearer(token)).get_json()
        assert (len(export["players"]), len(export["matches"])) == (bounds.NIGHT_PLAYERS, bounds.NIGHT_MATCHES)
        assert sum(len(m["rounds"]) for m in export["matches"]) == limit
        reply = client.post("/api/import", json=export)
        assert reply.status_code == 201, reply.get_json()
        imported = client.get(f"/api/nights/{reply.get_json()['id']}", headers=bearer(reply.get_json()["edit_token"]))
        assert len(imported.get_json()["matches"]) == bounds.NIGHT_MATCHES
        # with its tournament: the 960 tables of its 8 series, finished as it was (issue 43.6)
        copied = client.get(f"/api/tournaments/{reply.get_json()['tournament']}",
                            headers=bearer(reply.get_json()["edit_token"])).get_json()
        assert copied["finished"] and (copied["series"], copied["of"], len(copied["standings"])) == (8, 8, 480)
    finally:
        with application.app_context():
            db.session.remove()
            db.engine.dispose()


def test_the_largest_rows_of_an_export_fit_the_bytes_its_import_takes(app: Any) -> None:
    """Each kind of row at its largest (names of 40 characters of 4 bytes, a round naming 8 of 9 players, voids
    with reasons of 500 such characters), as the export writes it (UTF-8), fits its share of
    ``bounds.IMPORT_BYTES``, so a night at every bound imports again (issue 43.6: the 16 MiB body held about
    3,000 such events of the night's 20,000)."""
    import json

    from referee.models import Payment

    card = "\N{PLAYING CARD ACE OF SPADES}"  # 4 bytes in UTF-8, 12 as a JSON \\u escape pair
    names = [card * 39 + chr(ord("a") + k) for k in range(9)]  # the most at one table (Schwimmen's 9)
    api = Api(app.test_client())
    api.new_night(names)
    night_id = api.night["id"]
    status, body = api.call("POST", f"/api/nights/{night_id}/players/{names[0]}/details",
                            {"swish": "0701234567", "iban": "SE4550000000058398257466", "holder": "Ö" * 70})
    assert status == 200, body
    match = api.new_match("schwimmen", names, stake="1.00")
    status, body = api.round(match["id"], {"ended_by": "knock", "by": names[0], "losers": names[1:]})
    assert status == 201, body
    status, body = api.call("POST", f"/api/matches/{match['id']}/rounds/1/void", {"reason": card * 500})
    assert status == 200, body
    with app.app_context():
        from referee.ledger import tx

        with tx.writing():  # a voided payment with the longest reason (the payment itself needs a debt)
            db.session.add(Payment(night_id=night_id, kind="payment", payer=names[0], payee=names[1],
                                   amount=10**12, void=True, void_reason=card * 500))
    resp = api.client.get(f"/api/nights/{night_id}/export.json", headers=bearer(api.token))
    assert resp.status_code == 200 and b"\\u" not in resp.data  # UTF-8, not escapes
    export = json.loads(resp.data)

    def size(row: Any) -> int:
        return len(json.dumps(row, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode())

    event = max(size(r) for m in export["matches"] for r in m["rounds"])
    match_row = max(size({k: v for k, v in m.items() if k != "rounds"}) for m in export["matches"])
    payment = max(size(p) for p in export["payments"])
    player = max(size(p) for p in export["players"])
    assert event <= bounds.EVENT_BYTES and payment <= bounds.PAYMENT_BYTES, (event, payment)
    assert match_row <= bounds.MATCH_BYTES and player <= bounds.PLAYER_BYTES, (match_row, player)
    largest = (bounds.NIGHT_EVENTS * event + bounds.NIGHT_PAYMENTS * payment + bounds.NIGHT_MATCHES * match_row
               + bounds.NIGHT_PLAYERS * player)
    assert largest <= bounds.IMPORT_BYTES, largest
    status, body = api.call("POST", "/api/import", raw=resp.data, token=None)
    assert status == 201, body
