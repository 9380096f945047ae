"""A table full of phones: CPU per round when every viewer's phone refetches the match page.

Run from the repository root: ``.venv/bin/python bench/guests.py`` (``-n``
rounds, ``--viewers`` phones; about half a minute).

In-process (Flask's test client, a temporary SQLite database, as
``bench/profile_round.py``): one night, one Svängknack match; the leader
enters a round through the JSON API, then every viewer's phone (view link
only) fetches the match page as ``static/js/live.js`` does on the live
stream's event (header ``X-Live``), and the leader's own phone refetches its
page too. Measured: CPU milliseconds per round (the round and all the
refetches), with the guests' pages kept per version
(``referee/pages/guest_pages.py``, ``GUEST_PAGES=64``) and without
(``GUEST_PAGES=0``), on the same machine in the same run, alternating.

Goal: with 8 viewers, one viewer's refetch (the CPU above the round and the
leader's own refetch, shared out) costs at most a third of what it costs
when every page is rendered: judged on each trial's own ratio, PASS only
when all of them are within the goal, SPREAD when they straddle it
(``bench/spread.py``). A benchmark, not a test: always
exits 0.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from profile_round import Player, make_app
from spread import describe

GOAL = 1 / 3


def cpu_per_round(kept: int, rounds: int, viewers: int) -> float:
    """CPU ms per round (the round, the leader's refetch and every viewer's) with ``GUEST_PAGES=kept``."""
    from referee.pages import guest_pages

    with tempfile.TemporaryDirectory(prefix="referee-guests-") as tmp:
        app = make_app(Path(tmp))
        app.config["GUEST_PAGES"] = kept
        guest_pages.clear()
        leader = app.test_client()
        player = Player(leader, random.Random(7))
        leader.get(f"/e/{player.token}")
        with app.app_context():
            from referee import ledger

            view_token = ledger.get_match(player.id).night.view_token  # (the API names it only at creation)
        phones = [app.test_client() for _ in range(viewers)]
        for phone in phones:
            assert phone.get(f"/v/{view_token}").status_code == 302, "view link"
        url = f"/matches/{player.id}"

        def one_round() -> None:
            player.enter()
            assert leader.get(url, headers={"X-Live": "1"}).status_code == 200
            for phone in phones:
                assert phone.get(url, headers={"X-Live": "1"}).status_code == 200

        for _ in range(10):
            one_round()
        start = time.process_time()
        for _ in range(rounds):
            one_round()
        return (time.process_time() - start) * 1000 / rounds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=60, help="rounds per trial (60)")
    parser.add_argument("--viewers", type=int, default=8, help="viewers' phones (8)")
    parser.add_argument("--trials", type=int, default=3, help="trials each way, alternating (3)")
    args = parser.parse_args(argv)
    base: list[float] = []
    on: list[float] = []
    off: list[float] = []
    for _ in range(args.trials):
        base.append(cpu_per_round(64, args.n, 0))
        off.append(cpu_per_round(0, args.n, args.viewers))
        on.append(cpu_per_round(64, args.n, args.viewers))
    alone, with_kept, without = statistics.median(base), statistics.median(on), statistics.median(off)
    per_on, per_off = (with_kept - alone) / args.viewers, (without - alone) / args.viewers
    ratio = per_on / per_off
    # Each trial's own ratio (its three runs taken one right after the other): the spread of the figure.
    ratios = [(o - b) / (f - b) for b, o, f in zip(base, on, off, strict=True) if f > b]

    def runs(values: list[float]) -> str:
        return ", ".join(f"{v:.1f}" for v in values)

    print(f"CPU ms per round ({args.n} rounds, {args.trials} trials each way, medians; in-process, SQLite):")
    print(f"  the round and the leader's refetch alone     {alone:.1f} ({runs(base)})")
    print(f"  + {args.viewers} viewers' refetches, rendered each {without:.1f} ({runs(off)})")
    print(f"  + {args.viewers} viewers' refetches, kept pages    {with_kept:.1f} ({runs(on)})")
    print(f"  one viewer's refetch: {per_off:.2f} ms rendered, {per_on:.2f} ms with kept pages; "
          f"ratio of the medians {ratio:.2f}")
    print(f"  ratio per trial: {describe(ratios or [ratio], GOAL)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
