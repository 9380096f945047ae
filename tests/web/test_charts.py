"""Charts (issue 14): the pure geometry, and SVGs whose numbers are read back and checked against the ledger.

The SVG is parsed as XML; the axes' tick positions and values give the map
from screen coordinates back to rounds (nights) and money, and every point
of every line (every bar) must come back as the balance the ledger gave at
that round: the balances are taken from the API's own answers as the rounds
were entered, not from the code that draws.
"""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET
from decimal import Decimal
from typing import Any

import pytest

from referee import charts
from referee.ledger import POT_PARTY
from tests.web.helpers import Api

SVG = "{http://www.w3.org/2000/svg}"
PLAYERS = ["Anna", "Bo", "Cia", "Dan"]


# --- pure geometry -------------------------------------------------------------

@pytest.mark.parametrize("lo, hi", [(0, 1), (-250, 1300), (-7, -3), (0, 999_999), (5, 5), (-1, 1)])
def test_ticks_cover_the_range_with_round_steps(lo: int, hi: int) -> None:
    t = charts.ticks(lo, hi, 5)
    assert t[0] <= min(lo, hi) and t[-1] >= max(lo, hi)
    steps = {b - a for a, b in itertools.pairwise(t)}
    assert len(steps) == 1
    step = steps.pop()
    assert re.fullmatch(r"[125]0*", str(step)), step
    assert 2 <= len(t) <= 12


def test_scale_is_linear_and_rounded() -> None:
    s = charts.Scale(0, 100, 200, 0)
    assert (s(0), s(100), s(50), s(33)) == (200, 0, 100, 134)


def test_spread_keeps_labels_apart_and_inside() -> None:
    out = charts.spread([50, 50, 50, 51, 200], 11, 10, 200)
    ordered = sorted(out)
    assert all(b - a >= 11 - 1e-9 for a, b in itertools.pairwise(ordered))
    assert min(out) >= 10 and max(out) <= 200
    crowded = charts.spread([195, 196, 197, 198], 11, 10, 200)
    assert max(crowded) <= 200 and all(b - a >= 11 - 1e-9 for a, b in
                                       zip(sorted(crowded), sorted(crowded)[1:], strict=False))


def test_sample_keeps_ends_and_limit() -> None:
    assert charts.sample(10, 160) == list(range(10))
    idx = charts.sample(2001, 160)
    assert idx[0] == 0 and idx[-1] == 2000 and len(idx) <= 160 and idx == sorted(set(idx))


def test_styles_are_stable_and_distinct_for_32_players() -> None:
    styles = [charts.style(k) for k in range(32)]
    assert len(set(styles)) == 32 and charts.style(5) == styles[5]
    assert all(s.dash for s in styles[8:])  # beyond the palette every line has a pattern as well


def test_bars_point_both_ways_from_zero() -> None:
    st = {n: charts.style(k) for k, n in enumerate("abc")}
    chart = charts.bar_chart({"a": 500, "b": -300, "c": 0}, st)
    a, b, c = chart.bars
    assert a.x == chart.zero_x and a.w > 0 and a.anchor == "start"
    assert round(b.x + b.w, 1) == chart.zero_x and b.anchor == "end"
    assert c.w == 0
    assert all(bar.x >= 0 and bar.x + bar.w <= chart.width for bar in chart.bars)


# --- reading an SVG back ----------------------------------------------------------

def svg_of(html: str, svg_id: str) -> ET.Element:
    """The inline SVG with that id, parsed as XML (it must be well-formed)."""
    m = re.search(rf'<svg[^>]*id="{re.escape(svg_id)}".*?</svg>', html, re.S)
    assert m, f"no SVG {svg_id}"
    root = ET.fromstring(m.group(0))
    assert root.tag == f"{SVG}svg"
    assert "style" not in m.group(0).replace("stylesheet", ""), "no style attributes (CSP)"
    return root


def axis(root: ET.Element, cls: str) -> Any:
    """The inverse of an axis: screen coordinate -> value, from its first and last tick."""
    group = next(g for g in root.iter(f"{SVG}g") if g.get("class") == cls)
    ticks = [(float(t.get("data-pos", "")), int(t.get("data-value", ""))) for t in group.iter(f"{SVG}text")]
    assert len(ticks) >= 2, ticks
    (p0, v0), (p1, v1) = ticks[0], ticks[-1]
    per_px = (v1 - v0) / (p1 - p0)
    return lambda pos: v0 + (pos - p0) * per_px, abs(per_px)


def lines(root: ET.Element) -> dict[str, list[tuple[float, float]]]:
    out = {}
    for pl in root.iter(f"{SVG}polyline"):
        pts = [tuple(float(v) for v in p.split(",")) for p in (pl.get("points") or "").split()]
        out[pl.get("data-player", "")] = pts
    return out  # type: ignore[return-value]


def viewer(client: Any, api: Api) -> Any:
    """A phone that opened the night's view link."""
    phone = client.application.test_client()
    assert phone.get(f"/v/{api.night['view_token']}").status_code == 302
    return phone


def minor(amount: str) -> int:
    return int(Decimal(amount) * 100)


def enter(api: Api, match_id: int, payload: dict[str, Any], ledger: dict[int, dict[str, int]],
          pots: dict[int, int]) -> int:
    status, body = api.round(match_id, payload)
    assert status == 201, body
    ledger[body["round"]] = {p: minor(v) for p, v in body["state"]["balances"].items()}
    pots[body["round"]] = minor(body["state"].get("pot", "0"))
    return int(body["round"])


def svangknack_match(api: Api, rounds: int) -> tuple[int, dict[int, dict[str, int]], dict[int, int]]:
    """A Svängknack of varied rounds; the ledger's balances and pot after each, from the API's answers."""
    created = api.new_match("svangknack", PLAYERS, stake="3.00")
    mid = created["id"]
    ledger = {0: {p: minor(v) for p, v in created["state"]["balances"].items()}}
    pots = {0: minor(created["state"]["pot"])}
    for k in range(rounds):
        state = api.match(mid)["state"]
        sv = state["svangare"]
        other = next(p for p in PLAYERS if p not in (sv, state["dealer"]))
        payload: dict[str, Any] = [
            {"participants": [sv]},
            {"participants": [sv, other], "tricks": {sv: 2, other: 1}},
            {"participants": [sv, other], "tricks": {sv: 3, other: 0}},
            {"participants": [sv, other], "tricks": {sv: 0, other: 3}},
        ][k % 4]
        enter(api, mid, payload, ledger, pots)
    return mid, ledger, pots


def check_lines(root: ET.Element, ledger: dict[int, dict[str, int]]) -> set[int]:
    """Every point of every line is the ledger's balance at its round; returns the rounds drawn."""
    x_of, _ = axis(root, "x-ticks")
    y_of, per_px = axis(root, "y-ticks")
    tol = per_px * 0.06 + 1e-9  # coordinates are rounded to 0.1 px
    drawn = lines(root)
    assert set(drawn) == set(PLAYERS)
    rounds: set[int] = set()
    for name, pts in drawn.items():
        for x, y in pts:
            r = round(x_of(x))
            assert abs(x_of(x) - r) < 0.05, (name, x)
            assert r in ledger, (name, r)
            assert abs(y_of(y) - ledger[r][name]) <= tol, (name, r, y_of(y), ledger[r][name])
            rounds.add(r)
    return rounds


def test_match_chart_points_are_the_ledgers_balances(client: Any) -> None:
    api = Api(client)
    api.new_night(PLAYERS, group="Fredagsgänget")
    mid, ledger, pots = svangknack_match(api, 14)
    # Void the last round, then enter another: the chart skips the void one.
    assert api.call("POST", f"/api/matches/{mid}/rounds/14/void", {"reason": "misdeal"})[0] == 200
    del ledger[14], pots[14]
    sv = api.match(mid)["state"]["svangare"]
    assert enter(api, mid, {"participants": [sv]}, ledger, pots) == 15
    body = api.match(mid)
    html = viewer(client, api).get(f"/matches/{mid}").get_data(as_text=True)
    root = svg_of(html, "balance-chart")
    drawn = check_lines(root, ledger)
    assert drawn == set(ledger) and 14 not in drawn  # every counted round, the void one left out
    final = {p: minor(v) for p, v in body["state"]["balances"].items()}
    assert ledger[max(ledger)] == final  # the last points are the match's balances now
    # The pot band: its upper edge is the pot after each round.
    y_of, per_px = axis(root, "y-ticks")
    x_of, _ = axis(root, "x-ticks")
    band = next(p for p in root.iter(f"{SVG}path") if p.get("class") == "band").get("d", "")
    upper = [tuple(map(float, pt.split(","))) for pt in re.findall(r"L(-?[\d.]+,-?[\d.]+)", band)][:-1]
    assert [round(x_of(x)) for x, _y in upper] == sorted(ledger)
    for x, y in upper:
        assert abs(y_of(y) - pots[round(x_of(x))]) <= per_px * 0.06 + 1e-9
    # Direct labels: every player's name is written on the chart (no colour needed to tell lines apart).
    labels = {t.get("data-player") for t in root.iter(f"{SVG}text") if t.get("data-player")}
    assert labels == set(PLAYERS)
    strokes = {pl.get("stroke") for pl in root.iter(f"{SVG}polyline")}
    assert len(strokes) == 4


def test_long_match_is_sampled_but_still_true(client: Any) -> None:
    api = Api(client)
    api.new_night(PLAYERS)
    mid, ledger, _pots = svangknack_match(api, charts.MAX_POINTS + 40)
    html = viewer(client, api).get(f"/matches/{mid}").get_data(as_text=True)
    root = svg_of(html, "balance-chart")
    drawn = check_lines(root, ledger)
    assert 0 in drawn and max(ledger) in drawn and len(drawn) <= charts.MAX_POINTS
    assert "every few rounds" in html


def test_settlement_bars_are_the_nights_results(client: Any) -> None:
    api = Api(client)
    api.new_night(PLAYERS)
    svangknack_match(api, 6)
    kul = api.new_match("kul", PLAYERS[:3], stake="2.00")["id"]
    for who in ("Bo", "Bo", "Bo"):
        assert api.round(kul, {"last_trick": who})[0] == 201
    answer = api.call("GET", f"/api/nights/{api.night['id']}/settlement")[1]
    result = dict(answer["result"])
    assert answer["pot_account"]["result"], "the open Kul pot is the pot's, in its own field"
    result[POT_PARTY] = answer["pot_account"]["result"]  # the page draws the pot as a bar of its own
    html = viewer(client, api).get(f"/nights/{api.night['id']}/settlement").get_data(as_text=True)
    root = svg_of(html, "result-chart")
    x_of, per_px = axis(root, "x-ticks")
    bars = {r.get("data-player"): r for r in root.iter(f"{SVG}rect")}
    assert set(bars) == set(result)
    for name, rect in bars.items():
        x, w = float(rect.get("x", "")), float(rect.get("width", ""))
        zero_side = abs(x_of(x)) < abs(x_of(x + w))
        end = x + w if zero_side else x
        assert abs(x_of(end) - minor(result[name])) <= per_px * 0.11 + 1e-9, (name, x_of(end), result[name])


def test_season_chart_is_the_running_total(client: Any) -> None:
    first = Api(client)
    first.new_night(PLAYERS, group="Fredagsgänget", date="2026-10-02")
    svangknack_match(first, 5)
    second = Api(client)
    second.new_night(PLAYERS[:3], group_token=first.night["group_token"], date="2026-10-09")
    kul = second.new_match("kul", PLAYERS[:3], stake="2.00")["id"]
    for who in ("Cia", "Cia", "Cia"):
        assert second.round(kul, {"last_trick": who})[0] == 201
    results = [api.call("GET", f"/api/nights/{api.night['id']}/settlement")[1]["result"] for api in (first, second)]
    running = {0: dict.fromkeys(PLAYERS, 0)}
    for k, res in enumerate(results, start=1):
        running[k] = {p: running[k - 1][p] + minor(res.get(p, "0")) for p in PLAYERS}
    html = client.get(f"/groups/{first.night['group_token']}").get_data(as_text=True)
    root = svg_of(html, "season-chart-SEK")
    assert check_lines(root, running) == {0, 1, 2}
    x_labels = [t.text for g in root.iter(f"{SVG}g") if g.get("class") == "x-ticks" for t in g]
    assert x_labels[-2:] == ["2 Oct", "9 Oct"]


def _folds(app: Any, mid: int) -> tuple[Any, Any]:
    """``seen()``: the match's fold as the process keeps it; ``fresh()``: folded from scratch (the kept ones
    forgotten first)."""
    from referee import ledger
    from referee.ledger import fold

    def seen() -> fold.History:
        with app.app_context():
            return fold.history(ledger.get_match(mid))

    def fresh() -> fold.History:
        with app.app_context():
            fold.clear()
            return fold.history(ledger.get_match(mid))

    return seen, fresh


def test_kept_fold_is_extended_only_when_nothing_was_voided(app: Any, client: Any) -> None:
    """Page views between rounds extend the kept fold; after a void it is folded again (from a checkpoint)."""

    api = Api(client)
    api.new_night(PLAYERS)
    mid, ledger, pots = svangknack_match(api, 6)

    seen, fresh = _folds(app, mid)
    assert seen().seqs == tuple(range(7))
    for _ in range(3):  # new rounds between two views: extended, and equal to a fold from scratch
        sv = api.match(mid)["state"]["svangare"]
        enter(api, mid, {"participants": [sv]}, ledger, pots)
    extended = seen()
    assert extended == fresh() and extended.seqs == tuple(range(10))
    assert [dict(zip(PLAYERS, b, strict=True)) for b in extended.balances] == [ledger[k] for k in range(10)]
    assert list(extended.pots) == [pots[k] for k in range(10)]
    seen()
    assert api.call("POST", f"/api/matches/{mid}/rounds/9/void", {"reason": "slip"})[0] == 200
    sv = api.match(mid)["state"]["svangare"]
    enter(api, mid, {"participants": [sv]}, ledger, pots)
    after = seen()
    assert after == fresh() and 9 not in after.seqs and after.seqs[-1] == 10


def test_a_chart_that_would_say_nothing_is_left_out(client: Any) -> None:
    """Knaker without money: balances stay 0, so the match page draws no chart (but the history is there)."""
    api = Api(client)
    api.new_night(PLAYERS)
    kn = api.new_match("knaker", PLAYERS[:3], options={"payout": "none"})["id"]
    assert api.round(kn, {"events": [{"out": ["Anna"]}, {"lost": ["Cia"]}]})[0] == 201
    html = viewer(client, api).get(f"/matches/{kn}").get_data(as_text=True)
    assert 'id="balance-chart"' not in html and "History" in html
    flat = charts.line_chart([0, 1], {"a": [0, 0]}, {"a": charts.style(0)})
    moving = charts.line_chart([0, 1], {"a": [0, 5]}, {"a": charts.style(0)})
    assert flat.flat and not moving.flat


def test_kept_folds_never_cross_databases(tmp_path: Any) -> None:
    """Match 1 of one database is not match 1 of another (tests, a restored backup): nothing kept is mixed up."""
    from tests.conftest import make_app

    seen = []
    for k, table in enumerate((["Anna", "Bo", "Cia"], ["Xena", "Yves", "Zoe"])):
        app = make_app(f"sqlite:///{tmp_path / f'db{k}.sqlite3'}", tmp_path)
        client = app.test_client()
        api = Api(client)
        api.new_night(table)
        kul = api.new_match("kul", table, stake="1.00")["id"]
        assert kul == 1 and api.round(kul, {"last_trick": table[0]})[0] == 201  # same id, same version
        root = svg_of(viewer(client, api).get("/matches/1").get_data(as_text=True), "balance-chart")
        seen.append(set(lines(root)))
    assert seen == [{"Anna", "Bo", "Cia"}, {"Xena", "Yves", "Zoe"}]


def test_after_a_void_the_fold_restarts_from_the_checkpoint_before_it(app: Any, client: Any,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: a void refolds from the stored checkpoint before the voided round (in the void's write, which
    stores the checkpoints again), and the page after it folds only the events after the last checkpoint; the
    result is the same as a fold from scratch."""
    from referee.ledger import fold, fold_steps

    monkeypatch.setattr(fold, "CHECKPOINT_EVERY", 3)
    applied: list[int] = []
    real = fold_steps.apply_event

    def counted(match: Any, state: Any, kind: str, payload: Any, facts: Any = None) -> Any:
        applied.append(1)
        return real(match, state, kind, payload, facts)

    monkeypatch.setattr(fold_steps, "apply_event", counted)
    api = Api(client)
    api.new_night(PLAYERS)
    mid, _ledger, _pots = svangknack_match(api, 14)

    seen, fresh = _folds(app, mid)
    seen()
    # Checkpoints after rounds 3, 6, 9 and 12. Voiding round 14 refolds round 13 from the one at 12 (the
    # void), then the page folds round 13 after the checkpoint at 12; voiding 13 refolds nothing; voiding 12
    # refolds rounds 10 and 11 from the one at 9 and stores the one at 12 again, so the page folds nothing.
    for voided, at_void, at_page in ((14, 1, 1), (13, 0, 0), (12, 2, 0)):
        applied.clear()
        assert api.call("POST", f"/api/matches/{mid}/rounds/{voided}/void", {"reason": "slip"})[0] == 200
        assert len(applied) == at_void, (voided, len(applied))
        applied.clear()
        after = seen()
        assert len(applied) == at_page, (voided, len(applied))
        applied.clear()
        assert after == fresh() and after.seqs == tuple(range(voided))
        assert len(applied) == at_page  # a cold fold: the same checkpoints read
        seen()
    sv = api.match(mid)["state"]["svangare"]
    assert api.round(mid, {"participants": [sv]})[0] == 201  # round 15, after the voids: extended by one step
    applied.clear()
    extended = seen()
    assert len(applied) == 1
    assert extended == fresh() and len(applied) == 1  # round 15 stored a checkpoint: a cold fold folds nothing


@pytest.mark.parametrize("players", [3, 8, 16, 24])
def test_end_labels_never_overlap_however_many_players_end_level(players: int) -> None:
    """Issue 28, point 9: every name ends at the same balance (the worst case); the labels stay at least a
    label's height (13 units at font size 10) apart and inside the plot, the chart growing taller if need be."""
    names = [f"Örjan{k}" for k in range(players)]
    series = {n: [0, 5, 5] for n in names}
    chart = charts.line_chart([1, 2, 3], series, {n: charts.style(k) for k, n in enumerate(names)}, band=[0, 3, 6])
    ys = sorted([line.label_y for line in chart.lines] + [chart.band_label_y])
    assert all(b - a >= charts.LABEL_GAP - 0.05 for a, b in itertools.pairwise(ys)), ys
    assert ys[0] >= chart.top and ys[-1] <= chart.bottom
    assert chart.height >= 220
