"""The trick referee's dispute mode through the Flask test client (issue 28 item 5).

``POST /api/referee/tricks/dispute``: the answer's shape, the 400s with their
field, the reason in the request's language. The page
``/referee/tricks/<game>/dispute``: opened from a match it names the players
in seat order and the svängare as leader (nothing typed); without JavaScript
the form posts and the verdict comes back from the same engine; bad input is
a 422 with the message, never a 500. The verdicts themselves are the engine's
(tests/engine/test_dispute.py).
"""

from __future__ import annotations

from typing import Any

URL = "/api/referee/tricks/dispute"
BODY = {"game": "svangknack", "trump": "H", "players": ["Anna", "Bo", "Cia", "Dan"], "leader": "Bo",
        "trick": ["KD", "5D", "3C", "AD"], "card": "3C", "known": ["suit"]}


def _match(client: Any) -> tuple[dict[str, Any], int]:
    night = client.post("/api/nights", json={"name": "Bråk", "currency": "SEK",
                                             "players": ["Anna", "Bo", "Cia", "Dan"]}).get_json()
    auth = {"Authorization": f"Bearer {night['edit_token']}"}
    match = client.post(f"/api/nights/{night['id']}/matches", headers=auth,
                        json={"game": "svangknack", "players": ["Anna", "Bo", "Cia", "Dan"], "dealer": "Anna",
                              "stake": "3.00"}).get_json()
    return night, int(match["id"])


def test_api_answer_in_three_languages(client: Any) -> None:
    en = client.post(URL, json=BODY, headers={"Accept-Language": "en"})
    assert en.status_code == 200
    body = en.get_json()
    assert body == {"legal": False, "rule": "SK-15", "reason": "Dan had to follow suit with a ♦ (SK-15).",
                    "player": "Dan", "card": "3C", "position": 3, "order": ["Bo", "Cia", "Dan", "Anna"],
                    "known": ["suit"], "facts": [{"id": "suit", "label": "had ♦"},
                                                 {"id": "trump", "label": "had a trump (♥)"}],
                    "winner": "Anna", "card_name": "three of clubs"}
    sv = client.post(URL, json=BODY, headers={"Accept-Language": "sv"}).get_json()
    de = client.post(URL, json=BODY, headers={"Accept-Language": "de"}).get_json()
    assert len({body["reason"], sv["reason"], de["reason"]}) == 3
    assert all("SK-15" in t["reason"] and "♦" in t["reason"] for t in (sv, de))
    assert sv["facts"][0]["label"] != "had ♦" and de["facts"][0]["label"] != "had ♦"


def test_api_bad_input_is_400_with_field(client: Any) -> None:
    for change, field in (({"card": "AS"}, "card"), ({"known": ["telepathy"]}, "known"), ({"trick": []}, "trick"),
                          ({"trick": ["KD", "KD"]}, "tricks"), ({"trump": "X"}, "trump")):
        r = client.post(URL, json=BODY | change)
        assert r.status_code == 400, change
        assert r.get_json()["field"] == field
    assert client.post(URL, data="[1", content_type="application/json").status_code == 400


def test_page_from_a_match_names_the_players(client: Any) -> None:
    night, match_id = _match(client)
    client.get(f"/e/{night['edit_token']}")
    page = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert f'/referee/tricks/svangknack/dispute?match={match_id}' in page
    html = client.get(f"/referee/tricks/svangknack/dispute?match={match_id}").get_data(as_text=True)
    for name in ("Anna", "Bo", "Cia", "Dan"):
        assert f'name="leader" value="{name}"' in html
    assert 'name="leader" value="Bo" checked' in html  # the svängare, left of the dealer Anna
    assert 'aria-live="polite"' in html


def test_page_without_javascript_posts_and_answers(client: Any) -> None:
    night, match_id = _match(client)
    client.get(f"/e/{night['edit_token']}")
    form = {"trump": "H", "leader": "Bo", "players": ["Anna", "Bo", "Cia", "Dan"], "trick": "KD 5D 3C AD",
            "card": "3C", "known": "suit"}
    r = client.post(f"/referee/tricks/svangknack/dispute?match={match_id}", data=form)
    html = r.get_data(as_text=True)
    assert r.status_code == 200
    assert "Dan had to follow suit with a ♦ (SK-15)." in html and "Not allowed" in html
    assert "The trick goes to Anna." in html
    bad = client.post(f"/referee/tricks/svangknack/dispute?match={match_id}", data=form | {"trick": "KD ZZ"})
    assert bad.status_code == 422 and 'id="td-error"' in bad.get_data(as_text=True)


def test_page_alone_and_unknown_game(client: Any) -> None:
    assert client.get("/referee/tricks/knaker/dispute").status_code == 404
    r = client.post("/referee/tricks/kul/dispute", data={"players": "Anna, Bo, Cia", "leader": "Anna",
                                                          "trick": "KD 9C", "known": "suit"})
    assert r.status_code == 200 and "Bo had to follow suit with a ♦ (KU-3)." in r.get_data(as_text=True)


def test_page_names_nobody_to_a_phone_without_rights(client: Any, app: Any) -> None:
    _night, match_id = _match(client)
    stranger = app.test_client()  # no edit or view link opened
    html = stranger.get(f"/referee/tricks/svangknack/dispute?match={match_id}").get_data(as_text=True)
    assert "Anna" not in html and "Cia" not in html and 'name="leader" value=' not in html
