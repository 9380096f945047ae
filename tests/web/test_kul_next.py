"""Kul's undo and next game on the server side (issue 42.2; the browser's view is tests/browser/test_kul_taps.py).

On both backends: the undo voids only the deal this phone saved last, only while it is the last event and
recent; undoing the winning deal reopens the game; the next game is only offered and made after a win, once
per form key.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from referee.models import Round, db
from tests.web.helpers import Api

SEATS = ["Anna", "Bo", "Cia"]


def setup(client: Any) -> tuple[Api, int]:
    api = Api(client)
    api.new_night(SEATS)
    client.get(f"/e/{api.night['edit_token']}")
    return api, api.new_match("kul", SEATS, stake="2.00", options={"marks_to_win": 2})["id"]


def tap(client: Any, mid: int, name: str, token: str) -> Any:
    """The leader's one tap on the Kul form (its form key as the page gives it)."""
    return client.post(f"/matches/{mid}/rounds", data={"last_trick": name, "form_token": token})


def undo_form(client: Any, mid: int) -> tuple[str, str] | None:
    html = client.get(f"/matches/{mid}").get_data(as_text=True)
    found = re.search(r'<form method="post" action="(/matches/\d+/rounds/\d+/undo)".*?name="form_token"[^>]*'
                      r'value="([^"]+)"', html, re.S)
    return (found[1], found[2]) if found else None


def test_the_undo_voids_the_deal_this_phone_saved_last_and_undoing_the_win_reopens_the_game(app: Any) -> None:
    client = app.test_client()
    api, mid = setup(client)
    assert tap(client, mid, "Cia", "k1").status_code == 302
    assert tap(client, mid, "Cia", "k2").status_code == 302  # the winning tap: Cia has 2 marks (KU-4)
    assert api.match(mid)["state"]["winner"] == "Cia"
    offer = undo_form(client, mid)
    assert offer is not None and offer[0] == f"/matches/{mid}/rounds/2/undo"
    assert 'id="next-game"' in client.get(f"/matches/{mid}").get_data(as_text=True)
    for _twice in range(2):  # a resent tap (the same key) is one void
        assert client.post(offer[0], data={"form_token": offer[1]}).status_code == 302
    body = api.match(mid)
    assert [(r["round"], r["void"]) for r in body["rounds"]] == [(1, False), (2, True)]
    assert body["state"]["winner"] is None and not body["state"]["finished"] and body["state"]["pot"] == "6.00"
    page = client.get(f"/matches/{mid}").get_data(as_text=True)
    assert 'id="next-game"' not in page and 'class="kul-form"' in page and undo_form(client, mid) is None


def test_no_undo_for_another_phones_deal_an_older_deal_or_a_late_tap(app: Any) -> None:
    client = app.test_client()
    api, mid = setup(client)
    other = app.test_client()
    other.get(f"/e/{api.night['edit_token']}")
    assert tap(other, mid, "Bo", "o1").status_code == 302  # another phone's deal: not this phone's to undo
    assert undo_form(client, mid) is None and undo_form(other, mid) is not None
    assert client.post(f"/matches/{mid}/rounds/1/undo", data={"form_token": "x1"}).status_code == 302
    assert tap(client, mid, "Anna", "c1").status_code == 302
    assert tap(client, mid, "Cia", "c2").status_code == 302
    assert client.post(f"/matches/{mid}/rounds/2/undo", data={"form_token": "x2"}).status_code == 302  # not last
    from referee.pages import kul_next  # (here: the other tests of this file run, and fail, without it)

    with app.app_context():  # deal 3 saved longer ago than the server takes an undo
        late = db.session.query(Round).filter_by(match_id=mid, seq=3).one()
        late.created_at -= timedelta(seconds=kul_next.UNDO_TAKEN + 1)
        db.session.commit()
    assert undo_form(client, mid) is None
    refused = client.post(f"/matches/{mid}/rounds/3/undo", data={"form_token": "x3"}, follow_redirects=True)
    assert "can no longer be undone" in refused.get_data(as_text=True)
    assert [r["void"] for r in api.match(mid)["rounds"]] == [False, False, False]


def test_the_next_game_only_after_a_win_and_only_in_kul(app: Any) -> None:
    client = app.test_client()
    api, mid = setup(client)
    refused = client.post(f"/matches/{mid}/next", data={"form_token": "n2"}, follow_redirects=True)
    assert "no winner yet" in refused.get_data(as_text=True)
    assert len(client.get(f"/api/nights/{api.night['id']}",
                          headers={"Authorization": f"Bearer {api.token}"}).get_json()["matches"]) == 1
    other = api.new_match("svangknack", SEATS, stake="3.00")["id"]
    assert client.post(f"/matches/{other}/next", data={"form_token": "n0"}).status_code == 404
    assert client.post(f"/matches/{other}/rounds/1/undo", data={"form_token": "n1"}).status_code == 404


def test_no_next_game_at_a_tournament_table(app: Any) -> None:
    """A tournament's tables come from its draw: a won Kul table offers no next game, and a post is refused."""
    from referee import ledger
    from referee.ledger import tournaments

    with app.app_context():
        cup = tournaments.create(tournaments.check({"name": "Cup", "currency": "SEK", "game": "kul", "table_size": 3,
                                                    "players": ["Anna", "Bo", "Cia"], "series": 1, "stake": "1.00",
                                                    "seed": "next"}))
        mid = tournaments.current_tables(cup)[0].match_id
        while not ledger.state_of(ledger.get_match(mid)).finished:
            ledger.add_round(mid, {"last_trick": ledger.get_match(mid).seats[0]})
        token = cup.night.edit_token
    client = app.test_client()
    client.get(f"/e/{token}")
    page = client.get(f"/matches/{mid}")
    assert page.status_code == 200 and 'id="next-game"' not in page.get_data(as_text=True)
    refused = client.post(f"/matches/{mid}/next", data={"form_token": "t1"})
    assert refused.status_code == 409 and "draw" in refused.get_data(as_text=True)
