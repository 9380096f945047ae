"""The big evening's phones and hall displays (``bench/tournament.py``): seated, hung up, and what they saw.

Why a module of its own: a :class:`follow.Follower` is one page following a night; here are the evening's 480 of
them and its halls: every player's phone on its table (the leader's by the table link, the guests' by the view link,
in a long evening's steady state), opened before a block and hung up after it, the wait until each has seen what
the tables' leaders (``bench/tournament_tables.py``) had answered, and the delays and losses that go into the
figures (``bench/tournament_figures.py``).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

from follow import Follower
from tournament_figures import Figures
from tournament_tables import Table

#: A page following the whole night fetches itself at most once in this many seconds (static/js/live.js ``GAP``).
HALL_GAP = 1.0
#: After a block, how long the phones' last events and the halls' last reads may take; later is "lost".
SETTLE = 15.0
#: Phones opening their pages at once before a block (the club arriving; not timed).
OPENING = 24


async def at_once(jobs: list[Callable[[], Awaitable[None]]], limit: int) -> None:
    gate = asyncio.Semaphore(limit)

    async def one(job: Callable[[], Awaitable[None]]) -> None:
        async with gate:
            await job()

    await asyncio.gather(*(one(j) for j in jobs))


async def open_phones(base: str, tour: dict[str, Any], tables: list[Table], halls: int,
                      figures: Figures) -> tuple[list[Follower], list[Follower]]:
    """Every player's phone on its table (the first seat's by the table link, the others' by the view link) and
    the hall displays; streams open, guests in a steady state. Not timed, but its seconds are printed."""
    night, view = tour["night"], tour["view_token"]
    began = time.monotonic()
    phones = [Follower(base, night, t.edit_token if seat == 0 else view, t.id,
                       page=f"/matches/{t.id}" if seat else None,
                       link=f"/t/{t.edit_token}" if seat == 0 else f"/v/{view}", gap=0.0)
              for t in tables for seat in range(len(t.players))]
    walls = [Follower(base, night, view, None, page=f"/tournaments/{tour['id']}/hall", link=f"/v/{view}",
                      gap=HALL_GAP) for _ in range(halls)]
    everyone = [*phones, *walls]
    await at_once([v.prepare for v in everyone], OPENING)
    spread = random.Random(len(figures.events))
    for v in phones:  # a long evening's steady state: the guests last fetched their pages at times spread over a gap
        v.last = time.monotonic() - spread.uniform(0, v.gap)
    for v in everyone:
        v.start()
    try:
        await asyncio.wait_for(asyncio.gather(*(v.opened.wait() for v in everyone)), 60)
    except TimeoutError:
        pass
    failed = [v.error or "no first event" for v in everyone if v.error or not v.opened.is_set()]
    if failed:
        raise RuntimeError(f"{len(failed)} of {len(everyone)} streams did not open: {failed[:3]}")
    figures.opening.append(time.monotonic() - began)
    return phones, walls


async def hang_up(phones: list[Follower], walls: list[Follower], figures: Figures) -> None:
    everyone = [*phones, *walls]
    await asyncio.gather(*(v.close() for v in everyone))
    figures.broken += [v.error for v in everyone if v.error]
    figures.reconnects += sum(v.reconnects for v in everyone)
    figures.dropped += sum(v.dropped for v in everyone)
    for v in phones:
        figures.page_reads += [ended - began for began, ended, _ in v.reads]
        figures.failed += v.failed
    for v in walls:
        figures.hall_reads += [ended - began for began, ended, _ in v.reads]
        figures.failed += v.failed


async def settle(tables: list[Table], phones: list[Follower], walls: list[Follower], closes: bool) -> None:
    """Wait until every phone and hall shows every round (and close) answered, or ``SETTLE`` seconds."""
    by_id = {t.id: t for t in tables}
    deadline = time.monotonic() + SETTLE

    def done() -> bool:
        for p in phones:
            t = by_id[p.match_id or 0]
            if not (all((t.id, r) in p.seen for r in t.answered) and p.idle()):
                return False
            if closes and t.closed_at is not None and t.id not in p.closes:
                return False
        return all(h.idle() and all((t.id, r) in h.seen for t in tables for r in t.answered) for h in walls)

    while time.monotonic() < deadline and not done():
        await asyncio.sleep(0.1)


def measure(tables: list[Table], phones: list[Follower], walls: list[Follower], figures: Figures,
            closes: bool) -> None:
    """The delays of the rounds (and closes) answered in the block, from each phone's and hall's notes."""
    by_id = {t.id: t for t in tables}
    for phone in phones:
        t = by_id[phone.match_id or 0]
        for round_no, answered in t.answered.items():
            arrived = phone.seen.get((t.id, round_no))
            if arrived is None:
                figures.lost["events"] += 1
            else:
                figures.events.append(max(0.0, arrived - answered))
            if phone.page is not None:
                shown = phone.updated(t.id, round_no)
                if shown is None:
                    figures.lost["pages"] += 1
                else:
                    figures.pages.append(max(0.0, shown - answered))
                if (whole := phone.fetched(t.id, round_no)) is not None:
                    figures.wholes.append(max(0.0, whole - answered))
        if closes and t.closed_at is not None:
            if (came := phone.closes.get(t.id)) is None:
                figures.lost["closes"] += 1
            else:
                figures.close_events.append(max(0.0, came - t.closed_at))
    for hall in walls:
        for t in tables:
            for round_no, answered in t.answered.items():
                shown = hall.fetched(t.id, round_no)
                if shown is None:
                    figures.lost["halls"] += 1
                else:
                    figures.halls.append(max(0.0, shown - answered))
