"""How many live streams one app process keeps open: never the threads that round entry needs.

Why: gunicorn's gthread worker serves each connection on a thread of its
own, and a live stream holds its thread for as long as it is open (up to
``LIVE_LIFETIME``). Without a bound, one view token opening a few hundred
streams took every thread of every worker, and round entry on another night
waited (10 s timeouts). Here each process keeps at most ``LIVE_STREAMS``
streams open, fewer than its threads (``make run``: 400 threads, 340
streams, so 60 threads are always left for pages and round entry), and at
most ``LIVE_NIGHT_STREAMS`` of them for one night, ``LIVE_TOKEN_STREAMS``
for one credential and ``LIVE_ADDRESS_STREAMS`` for one client address, so
one night, one leaked link or one outsider with nights of his own cannot
take every stream of the others. A stream over a cap is a ``429`` with
``Retry-After``; the pages work without it (they only stop updating by
themselves).

Why a cap per address, and why so high: a club's 200 phones share one
address behind its router (and one view token), so the address's cap is as
high as a night's (250 of 340); what it stops is one address holding every
slot over several nights it created (issue 45.4: two nights took all of a
worker's streams). Whatever the settings, no night, credential or address
holds more than :data:`SHARE` of the process's streams (:func:`share`): at
least a quarter stays for everyone else, also on a server run with few
streams (``LIVE_STREAMS=30``: 22 at most for one address). An IPv6 client
is counted by its /64 (:func:`address_key`): one household or phone holds a
whole /64, so counting single addresses would give it billions of caps.
The address is ``request.remote_addr`` (the forwarded one behind a trusted
proxy). The caps are counted in the process (a stream is a thread of this
process, and the threads are what the caps protect); an app with more
workers or servers has as many more streams.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from ipaddress import IPv6Address, ip_address
from typing import Any, TypeVar

K = TypeVar("K")

#: Seconds a refused phone is told to wait: about what a stream lasts when phones come and go.
RETRY_AFTER = 30
#: The most of the process's streams one night, credential or address may hold, whatever the settings say.
SHARE = Fraction(3, 4)


def share(total: int, configured: int) -> int:
    """A per-night, per-credential or per-address cap: as configured, but never above :data:`SHARE` of ``total``."""
    return max(1, min(configured, int(total * SHARE)))


def address_key(address: str | None) -> str:
    """The client as the address cap counts it: an IPv4 address, or an IPv6 address's /64 network."""
    try:
        parsed = ip_address(address or "")
    except ValueError:
        return address or "unknown"
    if isinstance(parsed, IPv6Address) and parsed.ipv4_mapped is None:
        return f"{IPv6Address(int(parsed) >> 64 << 64)}/64"
    return str(parsed.ipv4_mapped if isinstance(parsed, IPv6Address) else parsed)


@dataclass(frozen=True)
class Full(Exception):
    """No stream for this request: which cap it met, and the message for the client."""

    message: str
    retry_after: int = RETRY_AFTER


class Slots:
    """The open streams of this process, counted in all, per night, per credential and per client address."""

    def __init__(self, total: int, per_night: int, per_token: int, per_address: int | None = None) -> None:
        self.total = total
        self.per_night, self.per_token = share(total, per_night), share(total, per_token)
        self.per_address = share(total, total if per_address is None else per_address)
        self.lock = threading.Lock()
        self.open = 0
        self.nights: Counter[int] = Counter()
        self.tokens: Counter[str] = Counter()
        self.addresses: Counter[str] = Counter()

    def take(self, night_id: int, credential: str, address: str = "") -> Ticket:
        """A slot for a stream of ``night_id`` opened with ``credential`` (a token's hash) from ``address``.

        ``address`` is :func:`address_key` of the client's; :class:`Full` when a cap is met.
        """
        with self.lock:
            if self.open >= self.total:
                raise Full(f"This server has {self.total} live streams open, as many as it keeps; "
                           f"try again in {RETRY_AFTER} seconds (the pages work without the live updates).")
            if self.nights[night_id] >= self.per_night:
                raise Full(f"This night has {self.per_night} live streams open on this server, as many as one "
                           f"night may; try again in {RETRY_AFTER} seconds.")
            if self.tokens[credential] >= self.per_token:
                raise Full(f"This link has {self.per_token} live streams open on this server, as many as one "
                           f"link may; try again in {RETRY_AFTER} seconds.")
            if self.addresses[address] >= self.per_address:
                raise Full(f"This address has {self.per_address} live streams open on this server, as many as "
                           f"one address may; try again in {RETRY_AFTER} seconds.")
            self.open += 1
            self.nights[night_id] += 1
            self.tokens[credential] += 1
            self.addresses[address] += 1
        return Ticket(self, night_id, credential, address)

    def _give_back(self, night_id: int, credential: str, address: str) -> None:
        with self.lock:
            self.open -= 1
            _drop(self.nights, night_id)
            _drop(self.tokens, credential)
            _drop(self.addresses, address)


def _drop(counter: Counter[K], key: K) -> None:
    """One stream fewer under ``key``; a key with none left is forgotten (the counters stay small)."""
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]


class Ticket:
    """One taken slot; given back once, however often :meth:`release` is called."""

    def __init__(self, slots: Slots, night_id: int, credential: str, address: str) -> None:
        self._slots, self._night, self._credential, self._address = slots, night_id, credential, address
        self._held = True
        self._lock = threading.Lock()

    def release(self) -> None:
        with self._lock:
            held, self._held = self._held, False
        if held:
            self._slots._give_back(self._night, self._credential, self._address)


class Held:
    """A stream's body that gives its slot back when the server closes the response.

    Why not ``try/finally`` in the generator: a response closed before its
    first chunk (the client gone at once) never runs a generator's body, so
    its ``finally`` would never give the slot back.
    """

    def __init__(self, body: Iterator[str], ticket: Ticket) -> None:
        self.body = body
        self.ticket = ticket

    def __iter__(self) -> Iterator[str]:
        return self.body

    def close(self) -> None:
        try:
            close: Any = getattr(self.body, "close", None)
            if close is not None:
                close()
        finally:
            self.ticket.release()


def slots_for(config: dict[str, Any], store: dict[str, Any]) -> Slots:
    """The app's :class:`Slots` (one per app, so one per process), made from its config on first use."""
    found = store.get("referee_live_slots")
    if found is None:
        found = store.setdefault("referee_live_slots", Slots(
            int(config["LIVE_STREAMS"]), int(config["LIVE_NIGHT_STREAMS"]), int(config["LIVE_TOKEN_STREAMS"]),
            int(config["LIVE_ADDRESS_STREAMS"])))
    return found  # type: ignore[no-any-return]

