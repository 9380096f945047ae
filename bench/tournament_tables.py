"""The big evening's tables (``bench/tournament.py``): the tournament made, its leaders' pace and the burst.

Why a module of its own: this is the writing side of the evening, what a table's leader does with the table token
(a valid Svängknack round about every ``PACE`` seconds; the series' last round and the close within ``BURST``) and
what the organiser does (the tournament, then ``next`` after each burst), apart from the phones that follow it
(``bench/tournament_phones.py``) and from how the evening is driven (``bench/tournament.py``). Each table notes when
each of its rounds and its close were answered, the moment every phone's delay is measured from.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from typing import Any

import httpx
from follow import TIMEOUT, TLS, Follower
from load import Match
from serve import Timings
from tournament_figures import Figures

SEATS = 4
#: A table enters a round about this often (s): the first at a random moment of it, then 2/3 to 4/3 of it apart.
PACE = 30.0
#: Every table finishes its series (its last round, then the close) within this many seconds.
BURST = 60.0


class Table(Match):
    """One table's match, entered by its leader with the table token (the tournament made the match)."""

    def __init__(self, base: str, table: dict[str, Any], night: int, view_token: str) -> None:
        self.rng, self.players = random.Random(table["match"]), list(table["players"])
        self.night_id, self.edit_token, self.view_token = night, table["table_token"], view_token
        self.id = int(table["match"])
        self.svangare = ""
        self.answered: dict[int, float] = {}  # round number -> when its 201 came (monotonic)
        self.closed_at: float | None = None
        self.http = httpx.AsyncClient(base_url=base, timeout=TIMEOUT, verify=TLS,
                                      headers={"Authorization": f"Bearer {self.edit_token}"})

    async def load(self) -> None:
        response = await self.http.get(f"/api/matches/{self.id}")
        if response.status_code != 200:
            raise RuntimeError(f"match {self.id} answered {response.status_code}")
        self.svangare = response.json()["state"]["svangare"]

    async def post(self, path: str, body: dict[str, Any]) -> tuple[int, bytes, float]:
        """A write as a phone sends it: with an ``Idempotency-Key``, once more with the same key if the connection
        broke (the server closed it idle), so that a write is never made twice; returns (status, body, seconds)."""
        headers = {"Idempotency-Key": uuid.uuid4().hex}
        start = time.perf_counter()
        for attempt in (1, 2):
            try:
                response = await self.http.post(path, json=body, headers=headers)
                return response.status_code, response.content, time.perf_counter() - start
            except httpx.TransportError:
                if attempt == 2:
                    break
        return 0, b"", time.perf_counter() - start

    async def enter(self, timings: Timings) -> None:
        status, payload, seconds = await self.post(f"/api/matches/{self.id}/rounds", self.next_round())
        now = time.monotonic()
        if (body := self.took_round(timings, status, payload, seconds)) is not None:
            self.answered[body["round"]] = now

    async def close(self, timings: Timings) -> None:
        status, payload, seconds = await self.post(f"/api/matches/{self.id}/close", {"pot": "split"})
        if timings.add(status, seconds, 200):
            self.closed_at = time.monotonic()
        elif status not in (0, 503) and status < 500:
            raise RuntimeError(f"close refused with {status}: {payload[:300]!r}")


async def create(base: str, tables: int, series: int) -> dict[str, Any]:
    """The evening: ``tables`` x 4 players, Svängknack at 3.00 SEK (SK-2: a stake in thirds)."""
    players = [f"Spelare {i:03d}" for i in range(1, tables * SEATS + 1)]
    body = {"name": "Stor klubbkväll", "currency": "SEK", "game": "svangknack", "players": players,
            "table_size": SEATS, "series": series, "stake": "3.00", "options": {}, "format": "series",
            "seed": "bench-big-evening"}
    async with httpx.AsyncClient(base_url=base, timeout=TIMEOUT, verify=TLS) as client:
        response = await client.post("/api/tournaments", json=body)
    if response.status_code != 201:
        raise RuntimeError(f"POST /api/tournaments answered {response.status_code}: {response.text[:300]}")
    return dict(response.json())


async def seat(base: str, drawn: list[dict[str, Any]], tour: dict[str, Any], expect: int) -> list[Table]:
    tables = [Table(base, t, tour["night"], tour["view_token"]) for t in drawn]
    if len(tables) != expect:
        raise RuntimeError(f"the draw made {len(tables)} tables, not {expect}")
    await asyncio.gather(*(t.load() for t in tables))
    return tables


async def play(tables: list[Table], seconds: float, pace: float, seed: int) -> tuple[Timings, float]:
    """Each table's leader enters a round about every ``pace`` seconds until the block ends."""
    timings = Timings()
    rng = random.Random(seed)
    start = time.monotonic()
    stop = start + seconds

    async def leader(t: Table, first: float) -> None:
        await asyncio.sleep(first)
        while time.monotonic() < stop:
            await t.enter(timings)
            pause = rng.uniform(pace * 2 / 3, pace * 4 / 3)
            if time.monotonic() + pause >= stop:
                return
            await asyncio.sleep(pause)

    for t in tables:
        t.answered.clear()
    await asyncio.gather(*(leader(t, rng.uniform(0, min(pace, seconds))) for t in tables))
    return timings, time.monotonic() - start


async def burst(base: str, tour: dict[str, Any], tables: list[Table], phones: list[Follower], figures: Figures,
                within: float, seed: int) -> list[dict[str, Any]]:
    """Every table's last round and close within ``within`` seconds; then the organiser's ``next``, timed. Returns
    the next series' tables; the phones' delays are the caller's to measure (``tournament_phones.settle``,
    ``measure``)."""
    rng = random.Random(seed)
    timings = Timings()

    async def finish(t: Table, when: float) -> None:
        await asyncio.sleep(when)
        await t.enter(timings)
        await t.close(figures.closes)

    for t in tables:
        t.answered.clear()
    figures.timing = True
    await asyncio.gather(*(finish(t, rng.uniform(0, within)) for t in tables))
    figures.rounds["burst"].merge(timings)
    figures.rounds_n["burst"] += len(timings.ok)
    for phone in phones:
        phone.retired = phone.page is None  # the leaders' table links end with the series
    async with httpx.AsyncClient(base_url=base, timeout=TIMEOUT, verify=TLS,
                                 headers={"Authorization": f"Bearer {tour['edit_token']}"}) as organiser:
        start = time.perf_counter()
        response = await organiser.post(f"/api/tournaments/{tour['id']}/next", json={})
        seconds = time.perf_counter() - start
    if response.status_code != 201:
        figures.next_failed.append(response.status_code)
        raise RuntimeError(f"next answered {response.status_code}: {response.text[:300]}")
    figures.nexts.append(seconds)
    figures.timing = False
    return list(response.json()["tables"])
