"""Loopback proxies in front of the fault tests' gunicorn servers.

What a phone sees of the network, played on 127.0.0.1: :class:`CuttingProxy`
drops connections before the server or after its answer (test_retry.py);
:class:`RoundRobinProxy` spreads requests over several app servers sharing
one database, as a load balancer of a club's deployment would
(test_two_servers.py). Both read one HTTP request per connection (the
client's ``Connection: close`` style, as gunicorn's sync workers answer) and
share :class:`LoopbackProxy`'s accept loop, forwarding and bookkeeping.
"""

from __future__ import annotations

import socket
import struct
import threading
from collections import Counter
from random import Random
from typing import Any

from tests.faults.server import HOST


def _read_request(sock: socket.socket) -> bytes:
    """One HTTP request (headers and a ``Content-Length`` body) as it came from the client."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    length = int(_header(head, "content-length") or 0)
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return head + b"\r\n\r\n" + rest


def _header(head: bytes, name: str) -> str | None:
    for line in head.split(b"\r\n")[1:]:
        key, _, value = line.partition(b":")
        if key.strip().lower() == name.encode():
            return value.strip().decode("latin-1")
    return None


def _read_all(sock: socket.socket) -> bytes:
    """The server's whole answer: gunicorn's sync workers close the connection after each response."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def _cut(sock: socket.socket) -> None:
    """Close with a reset (SO_LINGER 0), as a dropped Wi-Fi or a crashed host looks to the phone."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    sock.close()


class LoopbackProxy:
    """A TCP listener on 127.0.0.1: one thread per connection, one request each (``handle``).

    ``stats`` counts what happened to connections (by fate), ``fates`` lists
    the fates of each ``Idempotency-Key``'s requests.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.fates: dict[str, list[str]] = {}
        self.stats: Counter[str] = Counter()
        self.listener = socket.create_server((HOST, 0))
        self.port = int(self.listener.getsockname()[1])
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, client: socket.socket) -> None:
        client.settimeout(30)
        key = ""
        try:
            request = _read_request(client)
            key = _header(request.partition(b"\r\n\r\n")[0], "idempotency-key") or ""
            self.handle(client, request, key)
        except OSError:  # the proxy's own trouble: whether the server got the request is unknown
            self._record(key, "error")
            _cut(client)

    def handle(self, client: socket.socket, request: bytes, key: str) -> None:
        raise NotImplementedError

    @staticmethod
    def forward(request: bytes, port: int) -> bytes:
        """Send ``request`` to the server on ``port``; its whole answer (empty if it died first)."""
        with socket.create_connection((HOST, port), timeout=30) as upstream:
            upstream.sendall(request)
            return _read_all(upstream)

    def _record(self, key: str, fate: str) -> None:
        with self.lock:
            self.stats[fate] += 1
            if key:
                self.fates.setdefault(key, []).append(fate)

    def close(self) -> None:
        self.listener.close()


class CuttingProxy(LoopbackProxy):
    """A loopback TCP proxy in front of gunicorn that drops connections at random.

    Per connection (seeded ``rng``): *before* — the request is read and the
    connection cut, the server never sees it; *after* — the request is
    forwarded, the server's whole answer read (the write is committed) and
    then the client's connection is cut, with nothing or half of the answer
    sent; otherwise the answer is passed on. A key in ``kill_keys`` makes the
    proxy, once the server has answered that key, ``kill -9`` the server and
    start it again (``on_kill``) before cutting the client: the server died
    between commit and answer, as far as the phone can tell.
    """

    def __init__(self, target: int, rng: Random, before: float, after: float) -> None:
        self.target = target
        self.rng = rng
        self.before = before
        self.after = after
        self.kill_keys: set[str] = set()
        self.on_kill: Any = None
        super().__init__()

    def handle(self, client: socket.socket, request: bytes, key: str) -> None:
        with self.lock:
            roll = self.rng.random()
            half = self.rng.random() < 0.5
        if roll < self.before:
            self._record(key, "before")
            _cut(client)
            return
        answer = self.forward(request, self.target)
        if key in self.kill_keys and answer:
            self.kill_keys.discard(key)
            self._record(key, "killed after the answer")
            self.on_kill()
            _cut(client)
            return
        if roll < self.before + self.after and answer:
            self._record(key, "after")
            if half:
                client.sendall(answer[: len(answer) // 2])
            _cut(client)
            return
        self._record(key, "passed")
        client.sendall(answer)
        client.close()


class _Balancer(LoopbackProxy):
    """What both balancers share: the servers, and the order a new connection tries them in."""

    def __init__(self, targets: list[int]) -> None:
        self.targets = list(targets)
        self.turn = 0
        super().__init__()

    def in_turn(self) -> list[int]:
        """The servers in the order this connection tries them: the next in turn first, then the others."""
        with self.lock:
            start = self.turn
            self.turn += 1
        return [self.targets[(start + k) % len(self.targets)] for k in range(len(self.targets))]


class RoundRobinProxy(_Balancer):
    """A load balancer on loopback: each connection goes to the next server in turn.

    A server that refuses the connection (it is down) is skipped for the next
    one, as a balancer's health check would; a server that dies with the
    request (no answer, or a reset) leaves the phone with a cut connection,
    and the phone sends the request again (with the same ``Idempotency-Key``),
    which then lands on another server. ``stats`` counts answers per server
    port (``"served by <port>"``), skips (``"refused"``) and cuts
    (``"died on <port>"``, ``"held, <port> killed"``).

    :meth:`hold_answer` makes the worst moment happen on purpose: the next
    successful answer of a write from that server is held back until
    :meth:`release_held` (the test kills the server meanwhile), then the phone's
    connection is cut. The server committed the write; the phone never heard.
    """

    def __init__(self, targets: list[int]) -> None:
        self._hold_port: int | None = None
        self._held = threading.Event()
        self._release = threading.Event()
        super().__init__(targets)

    def hold_answer(self, port: int) -> threading.Event:
        """Hold the next 2xx answer to a write (a request with an ``Idempotency-Key``) from ``port``;
        the event returned is set once one is held."""
        with self.lock:
            self._hold_port = port
            self._held = threading.Event()
            self._release = threading.Event()
            return self._held

    def release_held(self) -> None:
        """Let a held answer go (its phone's connection is cut), and hold nothing more."""
        with self.lock:
            self._hold_port = None
            self._release.set()

    def handle(self, client: socket.socket, request: bytes, key: str) -> None:
        for port in self.in_turn():
            try:
                answer = self.forward(request, port)
            except ConnectionRefusedError:
                self._record(key, "refused")
                continue
            except OSError:
                answer = b""
            if not answer:
                self._record(key, f"died on {port}")
                _cut(client)
                return
            with self.lock:
                hold = bool(key) and port == self._hold_port and answer[9:10] == b"2" and not self._held.is_set()
                if hold:
                    self._held.set()
                    release = self._release
            if hold:
                release.wait(60)
                self._record(key, f"held, {port} killed")
                _cut(client)
                return
            self._record(key, f"served by {port}")
            client.sendall(answer)
            client.close()
            return
        self._record(key, "no server")
        _cut(client)


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    """Copy bytes from ``src`` to ``dst`` until either side ends; then end both (the other direction too)."""
    try:
        while chunk := src.recv(65536):
            dst.sendall(chunk)
    except OSError:
        pass
    finally:
        for sock in (src, dst):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class PipeRoundRobinProxy(_Balancer):
    """A load balancer at the connection level: each connection goes to the next server in turn, its bytes piped
    both ways until either side closes.

    Why besides :class:`RoundRobinProxy`: that one reads one request and the whole answer (until the server
    closes), so neither a phone's kept-alive connection (gthread workers) nor a live stream (an answer that never
    ends) passes it. ``bench/tournament.py`` puts two app servers behind this one. ``stats`` counts connections
    per server (``"served by <port>"``) and servers that refused one (``"refused"``; the next is tried).
    """

    def _handle(self, client: socket.socket) -> None:
        for port in self.in_turn():
            try:
                upstream = socket.create_connection((HOST, port), timeout=30)
            except OSError:
                self._record("", "refused")
                continue
            self._record("", f"served by {port}")
            for sock in (client, upstream):
                sock.settimeout(None)  # a live stream is quiet for up to its ping interval
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # small writes go out at once
            back = threading.Thread(target=_pipe, args=(upstream, client), daemon=True)
            back.start()
            _pipe(client, upstream)
            back.join()
            upstream.close()
            client.close()
            return
        self._record("", "no server")
        _cut(client)
