"""PDF benchmark: the settlement sheet and a long score protocol against WeasyPrint's floor.

Run from the repository root: ``.venv/bin/python bench/pdf.py`` (about a
minute; ``--runs N`` changes the number of timed runs, default 5).

Everything happens in this one process: ``create_app`` on a SQLite database
in a temporary directory, one app and request context (the sheets need
``request.host_url``). It builds a night through the service layer, as the
pages and the API would: 16 players (all with a Swish number, so every
transfer on the sheet gets a payment QR code), 6 matches and 500 events in
all (a 300-round Svängknack among all 16, a 150-event Svängknack, two Kul
games, a Schwimmen and a Knaker match). Then it times, as medians of
``--runs`` runs after one warm-up each:

- the floor: WeasyPrint rendering a plain one-page document with the sheets'
  font (DejaVu Sans) through the same ``render_pdf``, warmed up first so font
  loading is not counted;
- the settlement sheet, first print: ``reports.settlement_html`` +
  ``render_pdf`` with every kept payment code and QR image cleared first;
  printed again: with them kept;
- the score protocol of the 300-round Svängknack (``protocol_html`` +
  ``render_pdf``);

all in one loop (``bench/spread.py``, issue 29): each round times the floor
(the median of 5 runs, before and after), then each sheet, so that every
round gives its own ratio, free of a change of load between two blocks; the
ratio shown is the median of the rounds' ratios with their lowest and
highest. A ratio is PASS only when its whole spread is within the goal, and
says SPREAD when the spread crosses it.
- ``referee.ledger.settle.settle`` for 20 players with non-zero balances.

Goals (PASS/MISS, issue 17): sheet (first print) at most 3x the floor and
under 1.5 s; the protocol at most 25x the floor; peak memory (``ru_maxrss``
of the process) under 300 MB; settle for 20 players under 100 ms.
The ``tracemalloc`` peak is taken in a separate, untimed render of the sheet
(tracing slows a render several times over and counts Python allocations
only, not those of WeasyPrint's C libraries). A reference line renders the
sheet's words as plain paragraphs, to tell the cost of tables and QR codes
apart from the cost of the amount of text. A benchmark, not a test: it always exits 0.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import re
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from serve import verdict  # noqa: E402
from spread import describe, interleaved  # noqa: E402

PLAYERS = ["Anna", "Bo", "Cia", "Dan", "Eva", "Filip", "Greta", "Hugo", "Ida", "Jonas", "Karin", "Lars",
           "Maja", "Nils", "Olle", "Pia"]
TOTAL_EVENTS = 500
LONG_ROUNDS = 300
#: The 300-round protocol takes seconds per render: fewer runs, no warm-up.
PROTOCOL_RUNS = 3

GOAL_SHEET_RATIO = 3.0
GOAL_PROTOCOL_RATIO = 25.0
GOAL_SHEET_SECONDS = 1.5
GOAL_RSS_MB = 300.0
GOAL_SETTLE_MS = 100.0

FLOOR_HTML = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Floor</title>
<style>@page { size: A4; margin: 14mm 12mm 16mm; }
body { font: 9pt/1.35 "DejaVu Sans", sans-serif; } h1 { font-size: 16pt; }</style></head>
<body><h1>Settlement: Fredagsknack</h1><p>Anna pays Bo 12,00 kr. Åsa, Örjan and Jürgen signed.</p>
<p><b>Bold</b> and plain text in the sheets' font, one page, no tables, no images.</p></body></html>"""


def same_text(html: str) -> str:
    """The sheet's words without its tables and QR codes: paragraphs in the floor's style.

    Tells layout cost (tables, SVG) apart from the cost of the amount of text.
    """
    body = re.sub(r"<svg.*?</svg>", "", html.split("<body>", 1)[-1], flags=re.S)
    words = re.sub(r"<[^>]+>", " ", body).split()
    paragraphs = "".join(f"<p>{' '.join(words[k:k + 40])}</p>" for k in range(0, len(words), 40))
    return FLOOR_HTML.split("<body>", 1)[0] + f"<body>{paragraphs}</body></html>"


#: A round's floor: the median of this many runs (a 17 ms render wanders more than a long one).
FLOOR_REPS = 5


def median_time(fn: Callable[[], Any], runs: int, warmup: int = 1) -> tuple[float, Any]:
    """Median wall-clock seconds of ``fn`` over ``runs`` runs, after ``warmup`` untimed ones (no ratio)."""
    result = None
    for _ in range(warmup):
        result = fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result



# --- building the night ----------------------------------------------------------

def build_night() -> tuple[Any, Any]:
    """The night (16 players, 6 matches, 500 events) through the service layer; returns (night, long match)."""
    from referee import ledger
    from referee.ledger import paying

    night = ledger.create_night("Bench night", "SEK", PLAYERS, place="Klubben", leader="Anna")
    for k, name in enumerate(PLAYERS):
        paying.set_payment_details(night, name, swish=f"07012345{k:02d}")
    events = 0

    def svangknack(players: list[str], rounds: int, stake: str, close: bool) -> Any:
        nonlocal events
        match = ledger.create_match(night, "svangknack", players, players[0], stake)
        state = ledger.state_of(match)
        n = len(players)
        for k in range(rounds):
            sv = players[(state.dealer + 1) % n]
            other = players[(state.dealer + 2 + k % (n - 2)) % n]
            if k % 3 == 0:
                payload: dict[str, Any] = {"participants": [sv]}                       # alone, takes the pot
            elif k % 3 == 1:
                payload = {"participants": [sv, other], "tricks": {sv: 2, other: 1}}   # both paid
            else:
                payload = {"participants": [sv, other], "tricks": {sv: 3, other: 0}}   # other goes bet
            _rnd, state = ledger.add_round(match.id, payload)
            events += 1
        if close:
            ledger.close_match(match.id, "split")
            events += 1
        return match

    def kul(players: list[str]) -> None:
        nonlocal events
        match = ledger.create_match(night, "kul", players, players[0], "2.00")
        for name in players * 2 + players[-1:]:  # everyone to two marks, then the last takes the pot
            ledger.add_round(match.id, {"last_trick": name})
            events += 1

    long_match = svangknack(PLAYERS, LONG_ROUNDS, "3.00", close=False)
    kul(PLAYERS[:10])        # 21 deals
    kul(PLAYERS[10:])        # 13 deals

    sw_players = PLAYERS[2:7]
    sw = ledger.create_match(night, "schwimmen", sw_players, sw_players[0], "1.00")
    for k in range(6):
        ledger.add_round(sw.id, {"ended_by": "knock", "by": sw_players[k % 5], "losers": [sw_players[(k + 1) % 5]]})
        events += 1

    kn_players = PLAYERS[8:14]
    kn = ledger.create_match(night, "knaker", kn_players, kn_players[0], "1.00", {"payout": "loser_pays"})
    for k in range(9):
        order = kn_players[k % 6:] + kn_players[:k % 6]
        ledger.add_round(kn.id, {"events": [{"out": [order[0]]}, {"out": [order[1]]}, {"lost": [order[2]]},
                                              {"out": [order[3]]}, {"out": [order[4]]}]})
        events += 1
    ledger.close_match(kn.id)
    events += 1

    svangknack(PLAYERS[8:], TOTAL_EVENTS - events - 1, "6.00", close=True)
    return ledger.get_night(night.id), ledger.get_match(long_match.id)


# --- settle ------------------------------------------------------------------------

def settle_balances(n: int, rng: random.Random) -> dict[str, int]:
    """``n`` non-zero balances in whole kronor (the realistic, harder case), none the opposite of another."""
    while True:
        values = [rng.randint(-30, 30) * 100 for _ in range(n - 1)]
        values.append(-sum(values))
        seen = set(values)
        if 0 not in seen and not any(-v in seen for v in seen):
            return {f"player{i:02d}": v for i, v in enumerate(values)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per figure (median)")
    args = parser.parse_args()
    runs = max(1, args.runs)

    from referee import create_app
    from referee.ledger.settle import settle
    from referee.models import Round, db
    from referee.reports import protocol_html, render_pdf, settlement_html

    with tempfile.TemporaryDirectory(prefix="referee-bench-pdf-") as tmp:
        app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{Path(tmp) / 'bench.sqlite3'}",
                          "SECRET_KEY": "bench", "INSTANCE_PATH": tmp})
        with app.test_request_context("/"):
            db.create_all()
            start = time.perf_counter()
            night, long_match = build_night()
            built = time.perf_counter() - start
            events = db.session.query(Round).count()
            print(f"PDF benchmark: median of {runs} runs after a warm-up; {os.cpu_count()} CPUs, "
                  f"load {os.getloadavg()[0]:.2f}")
            print(f"night: {len(night.player_names)} players, {len(night.matches)} matches, {events} events "
                  f"(built through services in {built:.1f} s)")

            from referee.reports.codes import _modules_png, _payload_png
            from referee.web.pay import _payment_code

            def cold_sheet() -> bytes:
                # As the first print of a night: every QR code built anew, and every image of one.
                for kept in (_payment_code, _modules_png, _payload_png):
                    kept.cache_clear()
                return render_pdf(settlement_html(night))

            for _ in range(3):  # fonts found, loaded and cached before anything is timed
                render_pdf(FLOOR_HTML)
            text_html = same_text(settlement_html(night))
            proto_runs = min(runs, PROTOCOL_RUNS)
            cold_sheet()  # the warm-up of each: untimed
            render_pdf(text_html)
            floor, timed, ratios = interleaved(
                lambda: render_pdf(FLOOR_HTML),
                {"sheet": cold_sheet, "warm": lambda: render_pdf(settlement_html(night)),
                 "text": lambda: render_pdf(text_html), "proto": lambda: render_pdf(protocol_html(long_match))},
                runs, floor_reps=FLOOR_REPS, limits={"proto": proto_runs})
            rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            html_only, _ = median_time(lambda: settlement_html(night), runs)
            proto_html, _ = median_time(lambda: protocol_html(long_match), runs)
            tracemalloc.start()
            render_pdf(settlement_html(night))
            sheet_traced = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            db.session.remove()
            db.engine.dispose()

    rng = random.Random("bench-pdf-settle")
    nights = [settle_balances(20, rng) for _ in range(runs + 1)]
    feed = iter(nights)
    settle_s, plan = median_time(lambda: settle(next(feed)), runs)

    def pages(data: bytes) -> int:
        from pypdf import PdfReader  # a test dependency; only to print the page count

        return len(PdfReader(io.BytesIO(data)).pages)

    cpu_floor = statistics.median(floor.cpu)
    floor_wall = statistics.median(floor.wall)
    sheet_pdf, proto_pdf, floor_pdf = timed["sheet"].result, timed["proto"].result, floor.result
    sheet = statistics.median(timed["sheet"].wall)
    sheet_pages, proto_pages = pages(sheet_pdf), pages(proto_pdf)
    print()
    print("figure                               wall ms |  CPU ms  x floor [spread over rounds] |  size")
    for label, runs_of, key, size, note in (
            ("floor (plain one-page document)", floor, "", len(floor_pdf), f"{len(floor.cpu)} runs"),
            ("settlement sheet, first print", timed["sheet"], "sheet", len(sheet_pdf),
             f"{sheet_pages} pages, {len(re.findall(rb'/Subtype /Image', sheet_pdf))} QR images; "
             f"HTML alone {html_only * 1000:.1f} ms"),
            ("settlement sheet, printed again", timed["warm"], "warm", None,
             "QR codes already built (kept per payload)"),
            (f"protocol, {LONG_ROUNDS}-round Svängknack", timed["proto"], "proto", len(proto_pdf),
             f"{proto_pages} pages; HTML alone {proto_html * 1000:.1f} ms; {proto_runs} rounds"),
            ("reference: sheet text as paragraphs", timed["text"], "text", None, "")):
        kib = f"{size / 1024:6.1f} KiB" if size else " " * 10
        ratio = (f"{statistics.median(ratios[key]):6.2f}x [{min(ratios[key]):.2f}-{max(ratios[key]):.2f}]"
                 if key else " " * 22)
        print(f"{label:<36} {statistics.median(runs_of.wall) * 1000:7.1f} | "
              f"{statistics.median(runs_of.cpu) * 1000:7.1f}  {ratio:<22} | {kib}  {note}")
    print(f"settle, 20 non-zero balances        {settle_s * 1000:8.2f} ms  {len(plan.transfers)} transfers, "
          f"exact={plan.exact}")
    print(f"peak memory (ru_maxrss): {rss_mb:.0f} MB after every render; tracemalloc peak of one sheet render "
          f"(Python objects only) {sheet_traced:.1f} MB")
    print(f"Floor: median CPU time {cpu_floor * 1000:.1f} ms (wall {floor_wall * 1000:.1f} ms). Each round times the "
          "floor and then each sheet; a ratio is the round's sheet over the round's floor (CPU time: one thread's "
          "work), shown as the median and the spread of the rounds.")
    print()
    print(f"settlement sheet at most {GOAL_SHEET_RATIO:g}x the floor: "
          f"{describe(ratios['sheet'], GOAL_SHEET_RATIO)}; printed again "
          f"{statistics.median(ratios['warm']):.2f}x")
    print(f"{LONG_ROUNDS}-round protocol at most {GOAL_PROTOCOL_RATIO:g}x the floor: "
          f"{describe(ratios['proto'], GOAL_PROTOCOL_RATIO)}")
    print(f"{verdict(sheet < GOAL_SHEET_SECONDS)}  sheet under {GOAL_SHEET_SECONDS:g} s ({sheet:.3f} s)")
    print(f"{verdict(rss_mb < GOAL_RSS_MB)}  peak memory of the whole run under {GOAL_RSS_MB:g} MB ({rss_mb:.0f} MB)")
    print(f"{verdict(settle_s * 1000 < GOAL_SETTLE_MS)}  settle for 20 players under {GOAL_SETTLE_MS:g} ms "
          f"({settle_s * 1000:.2f} ms)")


if __name__ == "__main__":
    main()
    sys.exit(0)
