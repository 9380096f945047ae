"""Ratings per game (issue 47): ``GET /api/groups/<token>/ratings``.

The figures are checked against ``openskill`` called here directly, on
rankings this test works out from what it played (not from the app's own
ranking); the stake must not matter; an export and import of every night,
imported in another order (so every id is renumbered the other way round),
and reading the nights in any order, must give the same figures.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from openskill.models import PlackettLuce

from tests.conftest import make_app
from tests.web.helpers import Api, dec
from tests.web.test_season import group_of, play_kul


def ratings_of(client: Any, token: str) -> dict[str, Any]:
    resp = client.get(f"/api/groups/{token}/ratings")
    assert resp.status_code == 200, resp.get_data(as_text=True)
    body = resp.get_json()
    assert isinstance(body, dict)
    return body


def kul_ranking(players: list[str], last_tricks: list[str]) -> list[int]:
    """Places of a Kul played by :func:`play_kul`: the first to 3 marks wins, the others by marks (more better)."""
    marks = dict.fromkeys(players, 0)
    winner = None
    for who in last_tricks:
        marks[who] += 1
        if marks[who] == 3:
            winner = who
            break
    assert winner is not None
    score = {p: (1 if p == winner else 0, marks[p]) for p in players}
    return [1 + sum(1 for q in players if score[q] > score[p]) for p in players]


#: A hand-made season: per night, its Kul matches as (players, stake, last-trick takers).
SEASON = [
    [(["Anna", "Bo", "Cia"], "1.00", ["Anna", "Bo", "Anna", "Anna"]),
     (["Anna", "Bo", "Cia", "Dan"], "2.00", ["Cia", "Cia", "Dan", "Cia"])],
    [(["Bo", "Cia", "Dan"], "0.50", ["Dan", "Dan", "Dan"]),
     (["Anna", "Dan"], "5.00", ["Anna", "Dan", "Dan", "Anna", "Anna"])],
    [(["Anna", "Bo", "Cia", "Dan"], "1.00", ["Bo", "Bo", "Anna", "Bo"])],
]


def play_season(client: Any, season: list[list[tuple[list[str], str, list[str]]]] = SEASON) -> tuple[str, list[Api]]:
    token: str | None = None
    apis = []
    for night in season:
        api = Api(client)
        api.new_night(["Anna", "Bo", "Cia", "Dan"], **({"group_token": token} if token else {"group": "Kul"}))
        token = token or api.night["group_token"]
        for players, stake, tricks in night:
            play_kul(api, players, stake, tricks)
        apis.append(api)
    assert token is not None
    return token, apis


def test_ratings_agree_with_openskill_on_the_same_rankings(client: Any) -> None:
    token, _apis = play_season(client)
    model = PlackettLuce()
    rated: dict[str, Any] = {}
    matches: dict[str, int] = {}
    trend: dict[str, list[str]] = {}
    for night in SEASON:
        played = set()
        for players, _stake, tricks in night:
            teams = [[rated.get(p) or model.rating()] for p in players]
            after = model.rate(teams, ranks=kul_ranking(players, tricks))
            for p, (r,) in zip(players, after, strict=True):
                rated[p] = r
                matches[p] = matches.get(p, 0) + 1
                played.add(p)
        for p in sorted(played):
            trend.setdefault(p, []).append(f"{rated[p].ordinal():.2f}")
    order = sorted(rated, key=lambda p: (-rated[p].ordinal(), p))
    expected = [{"player": p, "rating": f"{rated[p].ordinal():.2f}", "mu": f"{rated[p].mu:.2f}",
                 "sigma": f"{rated[p].sigma:.2f}", "matches": matches[p], "trend": trend[p]} for p in order]
    assert ratings_of(client, token) == {"kul": expected}


def test_a_steady_winner_at_low_stakes_rates_above_one_big_win(client: Any) -> None:
    api = Api(client)
    api.new_night(["Anna", "Bo"], group="Kul")
    for _ in range(5):
        play_kul(api, ["Anna", "Bo"], "0.50", ["Anna"] * 3)
    play_kul(api, ["Anna", "Bo"], "20.00", ["Bo"] * 3)
    token = api.night["group_token"]
    money = group_of(client, token)["standings"]["SEK"]
    assert dec(money["Bo"]["result"]) > dec(money["Anna"]["result"])  # the money says Bo
    rows = ratings_of(client, token)["kul"]
    assert [r["player"] for r in rows] == ["Anna", "Bo"]  # the ratings say Anna
    assert dec(rows[0]["rating"]) > dec(rows[1]["rating"])
    assert [r["matches"] for r in rows] == [6, 6] and len(rows[0]["trend"]) == 1  # one night: one point


def test_an_open_match_and_a_group_without_matches(client: Any) -> None:
    api = Api(client)
    api.new_night(["Anna", "Bo"], group="Kul")
    assert ratings_of(client, api.night["group_token"]) == {}
    play_kul(api, ["Anna", "Bo"], "1.00", ["Anna", "Bo"])  # not finished: rates nothing
    assert ratings_of(client, api.night["group_token"]) == {}
    assert client.get("/api/groups/not-a-token/ratings").status_code == 404


def test_ratings_survive_export_import_and_any_reading_order(client: Any, tmp_path: Path) -> None:
    from referee.api.ratings import ratings_json
    from referee.ledger import ratings
    from referee.models import Night, db

    token, apis = play_season(client)
    original = ratings_of(client, token)
    exports = []
    for api in apis:
        status, body = api.call("GET", f"/api/nights/{api.night['id']}/export.json")
        assert status == 200, body
        exports.append(body)
    other = make_app(f"sqlite:///{tmp_path / 'other.sqlite3'}", tmp_path)
    there = other.test_client()
    for data in reversed(exports):  # imported last night first: the new ids run the other way
        resp = there.post("/api/import", json=data)
        assert resp.status_code == 201, resp.get_data(as_text=True)
    with other.app_context():
        nights = list(db.session.scalars(db.select(Night)))
        assert [n.id for n in ratings.played_order(nights)] == [3, 2, 1]
        for seed in range(4):
            random.Random(seed).shuffle(nights)
            assert ratings_json(ratings.ratings(nights)) == original
    with client.application.app_context():  # and the original nights read in any order
        mine = list(db.session.scalars(db.select(Night)))
        for seed in range(4):
            random.Random(seed).shuffle(mine)
            assert ratings_json(ratings.ratings(mine)) == original


def test_kept_ratings_are_the_ratings_from_the_log(client: Any) -> None:
    """A read after a match finished (in the last night: only it is rated; in an earlier night: all again)
    gives what a read with nothing kept gives."""
    from referee.ledger import fold, ratings

    token, apis = play_season(client)
    before = ratings_of(client, token)
    for api, tricks in ((apis[-1], ["Cia"] * 3), (apis[0], ["Dan"] * 3)):
        play_kul(api, ["Anna", "Cia", "Dan"], "1.00", tricks)
        kept = ratings_of(client, token)
        assert kept != before
        ratings.clear()
        fold.clear()
        assert ratings_of(client, token) == kept
        before = kept
