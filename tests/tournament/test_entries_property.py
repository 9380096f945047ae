"""A Hypothesis property over random series and knockout tournaments of Kul with late players, withdrawals and
seating (draw or standings), played through the API (the Flask test client) on SQLite and PostgreSQL (issue 43.2).

Checked against a model written here: who is seated in each series (the entrants whose series has come and who had
not left before it was drawn), who goes through a knockout table (never one who left), the places (series: the sum
of each seated player's tables; knockout: the series one went out in, those who left below the others out in it,
then the table's place), seating by the standings (best together, players without a standing last), the prizes
(the pool is every entrant's fee, a late player's who left unseated too) and each balance (tables + prize - fee),
which sum to zero with the pots.

A knockout withdrawal here always leaves someone at the table (a table emptied by withdrawals is covered by
``test_entries.py``), so the model knows who goes on without the seeded draw of an early end.
"""

from __future__ import annotations

from decimal import Decimal
from random import Random
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.tournament.helpers import bearer
from tests.tournament.test_winners import kul_rank, model_prizes, sport_places

NAMES = ["Anna", "Bo", "Cia", "Dan", "Eva", "Filip", "Greta"]
NEVER = 10**6


class Organiser:
    def __init__(self, client: Any) -> None:
        self.client = client
        self.token = ""

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        resp = self.client.open(path, method=method, json=body, headers=bearer(token or self.token))
        return resp.status_code, resp.get_json()

    def ok(self, method: str, path: str, body: Any = None, status: int = 200, token: str | None = None) -> Any:
        got, answer = self.call(method, path, body, token)
        assert got == status, (method, path, got, answer)
        return answer


def play_kul(org: Organiser, table: dict[str, Any], rng: Random, done: bool) -> None:
    """Random deals at a Kul table: to its winner or a close part way (``done``), else a few deals only."""
    seats = table["players"]
    for _ in range(12 if done else rng.randrange(3)):
        if done and rng.random() < 0.15:
            body = {"pot": "split"} if rng.random() < 0.5 else {"pot": "award", "to": rng.choice(seats)}
            org.ok("POST", f"/api/matches/{table['match']}/close", body)
            return
        answer = org.ok("POST", f"/api/matches/{table['match']}/rounds", {"last_trick": rng.choice(seats)},
                        status=201)
        if answer["state"]["finished"]:
            return
    if done:
        org.ok("POST", f"/api/matches/{table['match']}/close", {"pot": "split"})


def fits(n: int, size: int) -> bool:
    """The contract's draw: the fewest tables of at most ``size``, none below Kul's minimum of 2."""
    return n >= 2 and n // -(-n // size) >= 2


def places_without(rank: dict[str, int], gone: set[str]) -> dict[str, int]:
    """A table's ranking without the players who left, placed again as in sport."""
    kept = {name: place for name, place in rank.items() if name not in gone}
    return {name: 1 + sum(1 for p in kept.values() if p < place) for name, place in kept.items()}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(n=st.integers(3, 7), size=st.integers(2, 4), knockout=st.booleans(), series=st.integers(1, 3),
       standings=st.booleans(), fee=st.sampled_from(["", "5.00", "3.33"]),
       split=st.sampled_from([[100], [60, 40], [50, 30, 20]]), rng=st.randoms(use_true_random=False))
def test_late_players_and_withdrawals_agree_with_a_model(client: Any, n: int, size: int, knockout: bool,
                                                         series: int, standings: bool, fee: str, split: list[int],
                                                         rng: Random) -> None:
    org = Organiser(client)
    players = NAMES[:n]
    status, made = org.call("POST", "/api/tournaments", {
        "name": "Klubbkväll", "currency": "SEK", "game": "kul", "players": players, "table_size": size,
        "format": "knockout" if knockout else "series", "series": series, "stake": "1.00", "entry_fee": fee,
        "prizes": split if fee else [], "seed": str(rng.random()),
        "seating": "standings" if standings and not knockout else "draw"})
    assume(status != 400)  # these players cannot be seated so (tables below the game's minimum, prizes)
    assert status == 201, made
    org.token = made["edit_token"]
    tid = made["id"]
    joined = dict.fromkeys(players, 1)
    left: dict[str, int] = {}
    played: list[tuple[int, dict[str, Any], dict[str, int]]] = []  # (series, match, its Kul ranking)
    tables, at, late = made["tables"], 1, 0
    while True:
        seated = sorted(name for t in tables for name in t["players"])
        # the model's seats: series, whose series has come and who had not left; knockout, who went on
        if not knockout:
            assert seated == sorted(p for p in joined if joined[p] <= at and left.get(p, at) >= at), (at, seated)
        # late players and withdrawals, at random moments of the series
        for table in tables:
            play_kul(org, table, rng, done=False)
        for _ in range(rng.randrange(3)):
            if rng.random() < 0.5:
                name = f"Late{late}"
                status, answer = org.call("POST", f"/api/tournaments/{tid}/players", {"name": name})
                if knockout or at >= series:
                    assert status == 409, answer
                else:
                    assert status == 201 and answer["joined_series"] == at + 1, answer
                    joined[name], late = at + 1, late + 1
            else:
                present = [p for p in joined if p not in left]
                if knockout:  # someone at a table of this series who leaves someone else there
                    present = [p for t in tables for p in t["players"] if p not in left
                               and sum(1 for q in t["players"] if q not in left) > 1]
                if present:
                    name = rng.choice(present)
                    org.ok("POST", f"/api/tournaments/{tid}/players/{name}/withdraw")
                    left[name] = at
        for table in tables:
            play_kul(org, table, rng, done=True)
            match = org.ok("GET", f"/api/matches/{table['match']}")
            played.append((at, match, kul_rank(match["state"], table["players"])))
        before = org.ok("GET", f"/api/tournaments/{tid}")  # the standings the next series is seated by
        status, answer = org.call("POST", f"/api/tournaments/{tid}/next")
        if status == 200:
            assert answer["finished"] is True
            if not knockout:  # the last series, or too few left to seat the next one
                upcoming = [p for p in joined if joined[p] <= at + 1 and p not in left]
                assert at >= series or not fits(len(upcoming), size), (at, upcoming)
            break
        assert status == 201, answer
        tables, at = answer["tables"], at + 1
        going = {name for t in tables for name in t["players"]}
        if knockout:  # the best of each table who did not leave goes on, one a table
            assert not going & set(left), (going, left)
            for s, _match, rank in played:
                if s == at - 1:
                    kept = places_without(rank, set(left))
                    through = [name for name in kept if name in going]
                    assert len(through) == 1 and kept[through[0]] == 1, (rank, left, going)
        elif standings:  # best together: a table's players are no better placed than any player at a later table
            place = {row["player"]: row["place"] for row in before["standings"]}
            for k, table in enumerate(tables):
                for later in tables[k + 1:]:
                    worst = max(place.get(p, NEVER) for p in table["players"])
                    assert all(place.get(p, NEVER) >= worst or (worst == NEVER and p not in place)
                               for p in later["players"]), (place, [t["players"] for t in tables])
    got = org.ok("GET", f"/api/tournaments/{tid}")
    assert {row["player"]: (row["joined_series"], row["left_series"]) for row in got["players"]} == {
        p: (joined[p], left.get(p)) for p in joined}

    # the model's standings: only who was seated
    ever = {name for _s, match, _rank in played for name in match["players"]}
    if knockout:
        last_series = {name: s for s, match, _rank in played for name in match["players"]}
        last_place = {name: rank[name] for _s, _match, rank in played for name in rank}
        final = max(last_series.values())
        finals = [rank for s, _match, rank in played if s == final]
        champions = {name for name, place in places_without(finals[0], set(left)).items() if place == 1}
        assert len(finals) == 1
        want = sport_places({name: (NEVER if name in champions else last_series[name],
                                    -1 if left.get(name) == last_series[name] else 0, -last_place[name])
                             for name in ever})
    else:
        totals = dict.fromkeys(ever, Decimal(0))
        for _s, match, _rank in played:
            for name, amount in match["state"]["balances"].items():
                totals[name] += Decimal(amount)
        want = sport_places({name: (total,) for name, total in totals.items()})
    assert {row["player"]: row["place"] for row in got["standings"]} == want

    # the prizes: the pool is every entrant's fee, split among the places
    minor = int(Decimal(fee or "0") * 100)
    paid = {row["player"]: int(Decimal(row["amount"]) * 100) for row in got["prizes"]}
    assert all(row["place"] == want[row["player"]] for row in got["prizes"])
    if minor:
        assert sum(paid.values()) == minor * len(joined)
        for name, (low, high) in model_prizes(want, minor * len(joined), split).items():
            assert low <= paid.get(name, 0) <= high, (name, want, paid)
    else:
        assert paid == {}

    # the settlement: each entrant's tables plus the prize less the fee; with the pots they sum to zero
    settle = org.ok("GET", f"/api/nights/{made['night']}/settlement")
    balances = {name: Decimal(amount) for name, amount in settle["balances"].items()}
    assert sum(balances.values()) + Decimal(settle["pots"]) == 0
    for name in joined:
        tables_sum = sum((Decimal(m["state"]["balances"].get(name, "0")) for _s, m, _r in played), Decimal(0))
        assert balances.get(name, Decimal(0)) == tables_sum + Decimal(paid.get(name, 0)) / 100 - Decimal(fee or "0")
