"""Phones and hall displays that follow a night live, as ``static/js/live.js`` does, on one asyncio loop.

Why asyncio: ``bench/tournament.py`` follows a 480-player evening, 480 phones and two halls, each with its stream
and its page fetches. A thread per stream and per reader (the bench's first model) is a thousand threads in the
bench's process, on the same two cores as the servers; one event loop holds the sockets for far less. The client is
``httpx`` (a test extra).

A :class:`Follower` opens its link first (``/v/<view token>``, a table leader's ``/t/<table token>``) for the
session cookie that carries its right, as a scanned QR code does, then its page. It holds the night's stream
(``GET /api/nights/<id>/live``, with ``?match=`` for a match page, ``&state=1`` when the page says it follows by
state events, ``Last-Event-ID`` when the server ended a stream at its lifetime and the phone comes back, as an
``EventSource`` does) and notes when each event arrived. Each event its page shows (a match page: its match's and
the night-wide ones; a page of the whole night: all) makes the page fetch itself again with ``X-Live``: one fetch
at a time, at most one per ``gap`` seconds (live.js ``GAP``), events during a fetch or the wait make one more
after it. With ``page`` None only the stream is held (the table leader's phone: its own round form answered with a
newer page than the event).
"""

from __future__ import annotations

import asyncio
import json
import re
import ssl
import time
from typing import Any

import httpx

#: A request's whole time limit (s): a phone's browser gives up about as late.
TIMEOUT = 60.0
#: One TLS context for every client: httpx makes one per client otherwise (loading the CA bundle, tens of ms each),
#: and 482 of them held the bench's loop for about 20 s. The servers speak plain HTTP; the context is never used.
TLS = ssl.create_default_context()


class Follower:
    """One phone's (or hall display's) page following the night: its stream, its fetches and what each showed."""

    def __init__(self, base: str, night: int, token: str, match_id: int | None, *, page: str | None, link: str,
                 gap: float) -> None:
        self.night, self.token, self.match_id = night, token, match_id
        self.page, self.link, self.gap = page, link, gap
        self.query = "" if match_id is None else f"&match={match_id}"
        self.client = httpx.AsyncClient(base_url=base, timeout=TIMEOUT, follow_redirects=False, verify=TLS,
                                        limits=httpx.Limits(max_keepalive_connections=2, max_connections=4))
        self.seen: dict[tuple[int, int], float] = {}  # (match, round) -> when its round event arrived
        self.closes: dict[int, float] = {}  # match -> when its close event arrived
        self.versions: dict[tuple[int, int], int] = {}  # (match, round) -> the night version of its event
        self.states: list[tuple[int, float]] = []  # (version, when) of each state event, in order
        self.reads: list[tuple[float, float, int]] = []  # (began, ended, the page's night version) of each fetch
        self.failed: list[int] = []  # statuses of failed fetches (0: transport error)
        self.reconnects = 0  # streams the server ended at their lifetime, opened again
        self.dropped = 0  # stream connections that broke (a stale kept-alive one), opened again
        self.error = ""
        self.opened = asyncio.Event()
        self.dirty = asyncio.Event()
        self.reading = False
        self.last = -gap  # when the page last fetched itself
        self.version = 0  # the night version the page shows (its data-version): older events change nothing
        self.urgent = False  # its own match closed: fetched at once, not after the gap (live.js)
        self.last_id = ""
        self.closed = False
        self.retired = False  # a table leader's phone once the next series is drawn: its link may end
        self.tasks: list[asyncio.Task[None]] = []

    async def prepare(self) -> None:
        """Open the link (its right goes into the session cookie), then the page; before the block, not timed."""
        response = await self.client.get(self.link)
        if response.status_code != 302:
            raise RuntimeError(f"{self.link.split('/')[1]} link answered {response.status_code}")
        if self.page is None:
            return
        response = await self.client.get(self.page)
        if response.status_code != 200:
            raise RuntimeError(f"{self.page} answered {response.status_code}")
        body = response.content
        self._shown(body)
        if (follow := re.search(rb'data-follow-gap="(\d+)"', body)) and b"state=1" in body:
            self.gap = int(follow.group(1)) / 1000
            self.query += "&state=1"

    def start(self) -> None:
        self.tasks.append(asyncio.create_task(self._stream()))
        if self.page is not None:
            self.tasks.append(asyncio.create_task(self._read_loop()))

    async def _stream(self) -> None:
        failures = 0
        while not self.closed:
            headers = {"Last-Event-ID": self.last_id} if self.last_id else {}
            try:
                async with self.client.stream("GET", f"/api/nights/{self.night}/live?view={self.token}{self.query}",
                                              headers=headers, timeout=httpx.Timeout(TIMEOUT, read=None)) as resp:
                    if resp.status_code != 200 and self.retired:  # its table link ended with the series
                        return
                    if resp.status_code != 200:
                        raise RuntimeError(f"stream answered {resp.status_code}")
                    buf = b""
                    async for chunk in resp.aiter_raw():
                        now = time.monotonic()
                        failures = 0
                        buf += chunk
                        while b"\n\n" in buf:
                            block, buf = buf.split(b"\n\n", 1)
                            self._block(block, now)
            except asyncio.CancelledError:
                raise
            except httpx.TransportError as exc:
                # A kept-alive connection the server had closed (idle 2 s), or a cut stream: back at once, with
                # Last-Event-ID, as an EventSource comes back; counted, and a failure only the third time running.
                failures += 1
                if not self.closed and failures < 3:
                    self.dropped += 1
                    continue
                if not self.closed:
                    self.error = f"{type(exc).__name__}: {exc}"
                self.opened.set()
                return
            except Exception as exc:  # reported in the figures
                if not self.closed:
                    self.error = f"{type(exc).__name__}: {exc}"
                self.opened.set()
                return
            if not self.closed:  # the server ended the stream at its lifetime: back, as an EventSource comes back
                self.reconnects += 1

    def _block(self, block: bytes, now: float) -> None:
        kind = b"change"
        for line in block.split(b"\n"):
            if line.startswith(b"event: "):
                kind = line[7:]
            elif line.startswith(b"id: "):
                self.last_id = line[4:].decode()
            elif line.startswith(b"data: "):
                self.opened.set()
                data = json.loads(line[6:])
                if kind == b"change":
                    self.on_event(data, now)
                else:  # a match's state (?state=1): what a guest's page shows from the stream
                    self.states.append((int(data["version"]), now))

    def on_event(self, event: dict[str, Any], now: float) -> None:
        match = event["match"]
        if event["what"] == "round" and match is not None:
            self.seen.setdefault((match, event["round_no"]), now)
            self.versions.setdefault((match, event["round_no"]), event["version"])
        elif event["what"] == "close" and match is not None:
            self.closes.setdefault(match, now)
        if event["version"] <= self.version:  # the page shows it already (live.js: the stream's first event)
            return
        if self.page is not None and (self.match_id is None or match in (None, self.match_id)):
            self.urgent = self.urgent or (match == self.match_id and event["what"] != "round")
            self.dirty.set()

    async def _read_loop(self) -> None:
        assert self.page is not None
        while not self.closed:
            await self.dirty.wait()
            if (wait := self.last + self.gap - time.monotonic()) > 0 and not self.urgent:  # once per gap at most
                await self._wait(wait)
            self.urgent = False
            self.last = time.monotonic()
            self.reading = True
            self.dirty.clear()
            began = time.monotonic()
            status, version = await self._fetch()
            if status == 0:  # the server closed the idle kept-alive connection (2 s): once more, as a browser does
                status, version = await self._fetch()
            self.reading = False
            if status == 200:
                self.reads.append((began, time.monotonic(), version))
            else:
                self.failed.append(status)

    async def _wait(self, seconds: float) -> None:
        """The gap's wait, cut short by a close of the page's own match."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0 and not self.urgent:
            await asyncio.sleep(min(left, 0.1))

    async def _fetch(self) -> tuple[int, int]:
        """One fetch: its status and the night version its page shows."""
        try:
            response = await self.client.get(self.page or "", headers={"X-Live": "1"})
        except httpx.TransportError:
            return 0, 0
        return response.status_code, self._shown(response.content) if response.status_code == 200 else 0

    def _shown(self, page: bytes) -> int:
        found = re.search(rb'data-version="(\d+)"', page)
        version = int(found.group(1)) if found else 0
        self.version = max(self.version, version)
        return version

    def idle(self) -> bool:
        """No fetch running and none due: the page shows every event it heard."""
        return not self.reading and not self.dirty.is_set()

    def fetched(self, match: int, round_no: int) -> float | None:
        """When the whole page showed the round: the end of the first fetch whose page is of the round's version or
        newer (usually the first after the round's event; a fetch under way when the event came may show it)."""
        version = self.versions.get((match, round_no))
        if version is None:
            return None
        return next((ended for _, ended, shows in self.reads if shows >= version), None)

    def updated(self, match: int, round_no: int) -> float | None:
        """When the page showed the round's numbers: its state event, or the fetch after it if that came first."""
        whole = self.fetched(match, round_no)
        version = self.versions.get((match, round_no))
        told = next((when for v, when in self.states if version is not None and v >= version), None)
        return min((t for t in (whole, told) if t is not None), default=None)

    async def close(self) -> None:
        """Hang up, as a phone leaving the page."""
        self.closed = True
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.client.aclose()
