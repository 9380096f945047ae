"""The group's season (issue 14): ``GET /api/groups/<token>``, the group page and the season sheet.

Standings are checked against the settlement API night by night (a second,
independent path to each night's result), over random groups; currencies
must stay apart; a wrong token, a night token used as a group token, and a
view-only phone must learn nothing they should not.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from referee.logs import MARK, redact
from tests.conftest import make_app
from tests.pdf_helpers import pdf_text
from tests.web.helpers import Api, dec

NAMES = ["Anna", "Bo", "Cia", "Dan", "Eva"]


def play_kul(api: Api, players: list[str], stake: str, winners: list[str]) -> None:
    """A Kul among ``players``; ``winners`` take last tricks in turn until someone has 3 marks (or they run out)."""
    m = api.new_match("kul", players, stake=stake)["id"]
    for who in winners:
        status, body = api.round(m, {"last_trick": who})
        if status == 422:  # the Kul is won already
            break
        assert status == 201, body


def play_svangknack(api: Api, players: list[str], stake: str, rounds: int) -> None:
    """Svängknack rounds where the svängare plays alone (takes the pot)."""
    m = api.new_match("svangknack", players, stake=stake)["id"]
    for _ in range(rounds):
        sv = api.match(m)["state"]["svangare"]
        status, body = api.round(m, {"participants": [sv]})
        assert status == 201, body


def group_of(client: Any, token: str) -> dict[str, Any]:
    resp = client.get(f"/api/groups/{token}")
    assert resp.status_code == 200, resp.get_data(as_text=True)
    body = resp.get_json()
    assert isinstance(body, dict)
    return body


night_plan = st.lists(st.fixed_dictionaries({
    "currency": st.sampled_from(["SEK", "EUR", "JPY"]),
    "players": st.lists(st.sampled_from(NAMES), min_size=2, max_size=5, unique=True),
    "kul": st.lists(st.integers(0, 4), min_size=0, max_size=6),
    "svang": st.integers(0, 3),
    "stake": st.integers(1, 5),
}), min_size=1, max_size=4)


# No shrinking: each example builds a database, and a failing plan is small enough to read as found.
@settings(max_examples=12, deadline=None, database=None, suppress_health_check=list(HealthCheck),
          phases=[Phase.explicit, Phase.generate])
@given(plan=night_plan)
def test_standings_are_the_sum_of_the_nights_results(tmp_path_factory: Any, plan: list[dict[str, Any]]) -> None:
    tmp = tmp_path_factory.mktemp("season")
    app = make_app(f"sqlite:///{tmp / 'p.sqlite3'}", tmp)
    client = app.test_client()
    token: str | None = None
    nights: list[tuple[Api, str]] = []
    for spec in plan:
        api = Api(client)
        extra = {"group_token": token} if token else {"group": "Fredagsgänget"}
        api.new_night(spec["players"], currency=spec["currency"], **extra)
        token = token or api.night["group_token"]
        stake = str(spec["stake"]) if spec["currency"] == "JPY" else f"{spec['stake']}.00"
        if spec["kul"]:
            play_kul(api, spec["players"], stake, [spec["players"][k % len(spec["players"])] for k in spec["kul"]])
        if spec["svang"] and len(spec["players"]) >= 3:  # SK-1: 3 to 16 players
            sv_stake = str(3 * spec["stake"]) if spec["currency"] == "JPY" else f"{3 * spec['stake']}.00"
            play_svangknack(api, spec["players"], sv_stake, spec["svang"])  # SK-2: divisible by three
        nights.append((api, spec["currency"]))
    assert token is not None
    body = group_of(client, token)
    assert [n["id"] for n in body["nights"]] == [api.night["id"] for api, _ in nights]  # same day: creation order
    expected: dict[str, dict[str, dict[str, Any]]] = {}
    for (api, currency), shown in zip(nights, body["nights"], strict=True):
        settled = api.call("GET", f"/api/nights/{api.night['id']}/settlement")[1]
        matches = api.call("GET", f"/api/nights/{api.night['id']}")[1]["matches"]
        players = api.night["players"]
        assert shown["currency"] == currency
        assert shown["result"] == {p: settled["result"][p] for p in players}
        for p in players:
            played = sum(1 for m in matches if p in m["players"])
            if not played:
                continue
            row = expected.setdefault(currency, {}).setdefault(p, {"result": Decimal(0), "nights": 0, "matches": 0})
            row["result"] += dec(settled["result"][p])
            row["nights"] += 1
            row["matches"] += played
    got = {cur: {p: {"result": dec(v["result"]), "nights": v["nights"], "matches": v["matches"]}
                 for p, v in table.items()} for cur, table in body["standings"].items()}
    assert got == expected
    for cur, table in body["standings"].items():  # the currency's own minor units, never another's
        digits = {"SEK": 2, "EUR": 2, "JPY": 0}[cur]
        assert all(len(v["result"].partition(".")[2]) == digits for v in table.values()), table


def test_currencies_stay_apart(client: Any) -> None:
    sek = Api(client)
    sek.new_night(["Anna", "Bo", "Cia"], group="Fredagsgänget")
    play_kul(sek, ["Anna", "Bo", "Cia"], "2.00", ["Anna"] * 3)
    eur = Api(client)
    eur.new_night(["Anna", "Bo", "Cia"], currency="EUR", group_token=sek.night["group_token"])
    play_kul(eur, ["Anna", "Bo", "Cia"], "5.00", ["Bo"] * 3)
    body = group_of(client, sek.night["group_token"])
    assert body["standings"] == {
        "SEK": {"Anna": {"result": "4.00", "nights": 1, "matches": 1},
                "Bo": {"result": "-2.00", "nights": 1, "matches": 1},
                "Cia": {"result": "-2.00", "nights": 1, "matches": 1}},
        "EUR": {"Bo": {"result": "10.00", "nights": 1, "matches": 1},
                "Anna": {"result": "-5.00", "nights": 1, "matches": 1},
                "Cia": {"result": "-5.00", "nights": 1, "matches": 1}}}
    assert body["games"]["kul"]["pots_won"] == {"Anna": 1, "Bo": 1}
    # The page: one table and one chart per currency, nothing added across them.
    phone = client.application.test_client()
    page = phone.get(f"/groups/{sek.night['group_token']}").get_data(as_text=True)
    assert 'id="standings-SEK"' in page and 'id="standings-EUR"' in page
    assert 'id="season-chart-SEK"' in page and 'id="season-chart-EUR"' in page


def test_brags_per_game(client: Any) -> None:
    api = Api(client)
    api.new_night(["Anna", "Bo", "Cia"], group="Fredagsgänget")
    sl = api.new_match("schloapfer", ["Anna", "Bo", "Cia"], stake="1.00")["id"]
    while not (state := api.match(sl)["state"])["finished"]:
        still = state["in_match"]  # the first still in takes 60 eyes, the next 27, a third none (87 in all)
        assert api.round(sl, {"eyes": dict(zip(still, (60, 27, 0), strict=False))})[0] == 201
    loser = api.match(sl)["state"]["loser"]
    sw = api.new_match("schwimmen", ["Anna", "Bo", "Cia"], stake="1.00")["id"]
    while not api.match(sw)["state"]["finished"]:
        state = api.match(sw)["state"]
        victim = next(p for p in ("Cia", "Bo") if not state["players"][p]["out"])
        assert api.round(sw, {"ended_by": "knock", "by": "Anna", "losers": [victim]})[0] == 201
    kn = api.new_match("knaker", ["Anna", "Bo", "Cia"], stake="1.00", options={"payout": "loser_pays"})["id"]
    assert api.call("POST", f"/api/matches/{kn}/dots", {"player": "Cia", "offence": "swap_face_down"})[0] == 201
    assert api.round(kn, {"events": [{"out": ["Anna"]}, {"lost": ["Cia"]}]})[0] == 201
    assert api.round(kn, {"events": [{"out": ["Bo"]}, {"out": ["Anna"]}]})[0] == 201
    assert api.call("POST", f"/api/matches/{kn}/dots", {"player": "Bo", "offence": "ordinary"})[0] == 201
    games = group_of(client, api.night["group_token"])["games"]
    assert games["schloapfer"]["matches_lost"] == {loser: 1}
    assert games["schwimmen"]["wins"] == {"Anna": 1}
    assert games["knaker"]["games"] == {"Anna": 2, "Bo": 2, "Cia": 2}
    assert games["knaker"]["first_places"] == {"Anna": 1, "Bo": 1, "Cia": 0}
    assert games["knaker"]["dots"] == {"Anna": 0, "Bo": 1, "Cia": 2}
    page = client.application.test_client().get(f"/groups/{api.night['group_token']}").get_data(as_text=True)
    for text in ("Schloapfer: matches lost", "Schwimmen: wins", "Knaker: places and dots"):
        assert text in page


def test_wrong_tokens_get_404_and_no_names(client: Any) -> None:
    a = Api(client)
    a.new_night(["Zorblax", "Quimby", "Vantablack"], group="Aardvarks")
    play_kul(a, ["Zorblax", "Quimby", "Vantablack"], "1.00", ["Zorblax"] * 3)
    b = Api(client)
    b.new_night(["Brontolo", "Kessika"], group="Bumblebees")
    token = a.night["group_token"]
    stranger = client.application.test_client()
    wrong = [token[:-1] + ("A" if token[-1] != "A" else "B"), token + "x", token.swapcase(), "x",
             a.night["edit_token"], a.night["view_token"]]
    for bad in wrong:
        for url in (f"/api/groups/{bad}", f"/groups/{bad}", f"/groups/{bad}/season.pdf"):
            resp = stranger.get(url)
            assert resp.status_code in (403, 404), (url, resp.status_code)
            text = resp.get_data(as_text=True)
            # (the error page's language links repeat the request's own path: that is not a leak)
            assert not any(n in text for n in ("Zorblax", "Quimby", "Vantablack", "Aardvarks", token)
                           if n not in url), url
    # The other group's token shows the other group only.
    other = stranger.get(f"/groups/{b.night['group_token']}").get_data(as_text=True)
    assert "Brontolo" in other and "Zorblax" not in other and token not in other
    other_api = group_of(stranger, b.night["group_token"])
    assert "Zorblax" not in str(other_api)
    # A night's season page with another group's night rights: refused, nothing shown.
    phone = client.application.test_client()
    assert phone.get(f"/v/{b.night['view_token']}").status_code == 302
    for url in (f"/nights/{a.night['id']}/season", f"/nights/{a.night['id']}/season.pdf"):
        resp = phone.get(url)
        assert resp.status_code == 403 and "Zorblax" not in resp.get_data(as_text=True)


def test_wrong_group_tokens_are_rate_limited(tmp_path: Path) -> None:
    app = make_app(f"sqlite:///{tmp_path / 'rl.sqlite3'}", tmp_path, TOKEN_FAILURES=3, TOKEN_WINDOW=60)
    client = app.test_client()
    statuses = [client.get(f"/api/groups/nope{k}").status_code for k in range(3)]
    statuses.append(client.get("/groups/nope").status_code)
    assert statuses == [404, 404, 404, 429]


def test_view_phone_sees_the_season_but_never_the_group_token(client: Any) -> None:
    api = Api(client)
    api.new_night(["Anna", "Bo", "Cia"], group="Fredagsgänget")
    play_kul(api, ["Anna", "Bo", "Cia"], "2.00", ["Cia"] * 3)
    token = api.night["group_token"]
    guest = client.application.test_client()
    assert guest.get(f"/v/{api.night['view_token']}").status_code == 302
    night_page = guest.get(f"/nights/{api.night['id']}").get_data(as_text=True)
    assert f"/nights/{api.night['id']}/season" in night_page and token not in night_page
    season_page = guest.get(f"/nights/{api.night['id']}/season")
    assert season_page.status_code == 200
    text = season_page.get_data(as_text=True)
    assert "Cia" in text and token not in text
    leader = client.application.test_client()
    assert leader.get(f"/e/{api.night['edit_token']}").status_code == 302
    assert f"/groups/{token}" in leader.get(f"/nights/{api.night['id']}/season").get_data(as_text=True)


def test_season_sheet_reads_back(client: Any) -> None:
    api = Api(client)
    api.new_night(["Anna", "Bo", "Cia"], group="Fredagsgänget")
    play_kul(api, ["Anna", "Bo", "Cia"], "2.00", ["Bo"] * 3)
    resp = client.get(f"/groups/{api.night['group_token']}/season.pdf")
    assert resp.status_code == 200 and resp.mimetype == "application/pdf"
    text = pdf_text(resp.data)
    assert "Season: Fredagsgänget" in text and "Standings (SEK)" in text
    for name in ("Anna", "Bo", "Cia"):
        assert name in text


def test_group_tokens_are_redacted_from_logs() -> None:
    tok = "AbC-123_xyzXYZ0987654321abcdefgh"
    line = f'"GET /groups/{tok}/season.pdf HTTP/1.1" /api/groups/{tok}'
    assert tok not in redact(line) and redact(line).count(MARK) == 2


def test_nights_are_in_date_order(client: Any) -> None:
    first = Api(client)
    first.new_night(["Anna", "Bo"], group="G", date="2026-11-20")
    later = Api(client)
    later.new_night(["Anna", "Bo"], group_token=first.night["group_token"], date="2026-10-02")
    body = group_of(client, first.night["group_token"])
    assert [n["date"] for n in body["nights"]] == ["2026-10-02", "2026-11-20"]
