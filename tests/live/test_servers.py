"""The live stream across gunicorn workers and app servers, on SQLite and PostgreSQL.

Two gunicorn servers (gthread workers, as ``make run`` serves) share one
database: viewers hold streams open on server B while rounds are entered on
server A. Every viewer must hear every round within a second, whichever
worker or server took it; that can only work through the database
(``NOTIFY`` on PostgreSQL, the change log on SQLite), never in one process.
"""

from __future__ import annotations

import http.client
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.faults.server import HOST, Http, MatchRef, Server, database_url, make_match, write
from tests.live.sse import Reader


class LiveServer(Server):
    """A fault-test server, served the way ``make run`` serves: gthread workers."""

    def argv(self) -> list[str]:
        argv = super().argv()
        return [*argv[:-1], "--worker-class", "gthread", "--threads", "16", argv[-1]]


def stream(port: int, match: MatchRef, last: int | None = None) -> tuple[Reader, http.client.HTTPConnection]:
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    headers = {"Last-Event-ID": str(last)} if last is not None else {}
    conn.request("GET", f"/api/nights/{match.night}/live?view={match.view_token}", headers=headers)
    resp = conn.getresponse()
    assert resp.status == 200, resp.read()[:300]
    assert resp.getheader("Content-Type", "").startswith("text/event-stream")
    return Reader(iter(lambda: resp.read1(4096), b"")), conn


@pytest.fixture(params=["sqlite", "postgres"])
def servers(request: pytest.FixtureRequest, tmp_path: Path, postgres: Any) -> Iterator[tuple[Server, Server]]:
    url = database_url(request.param, tmp_path, postgres, f"live{abs(hash(tmp_path)) % 10**8}")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, b = LiveServer(url, tmp_path / "a"), LiveServer(url, tmp_path / "b")
    a.upgrade()
    a.start()
    b.start()
    try:
        yield a, b
    finally:
        a.stop()
        b.stop()
    for server in (a, b):
        assert not server.failures(), server.tail()


def test_viewers_on_another_server_hear_every_round(servers: tuple[Server, Server]) -> None:
    a, b = servers
    phone = Http(a.port)
    match = make_match(phone, "live")
    # Six viewers: on server B's two workers (and two on server A as well).
    readers = [stream(b.port, match)[0] for _ in range(6)] + [stream(a.port, match)[0] for _ in range(2)]
    for reader in readers:
        assert reader.next()["what"] == "night"
    delays: list[float] = []
    for n in range(1, 6):
        reply, _ = write(phone, f"/api/matches/{match.id}/rounds", {"tricks": {"Anna": 1, "Bo": 1, "Cia": 1}},
                         key=f"r{n}", token=match.edit_token)
        assert reply.status == 201, reply.body[:300]
        answered = time.monotonic()
        for reader in readers:
            event, arrived = reader.until(lambda e, n=n: e.get("round_no") == n and e["what"] == "round")
            assert event["match"] == match.id and event["night"] == match.night
            delays.append(arrived - answered)
    assert max(delays) < 1.0, f"an event came {max(delays):.2f} s after its round's 201"


def test_a_dropped_connection_resumes_on_the_other_server(servers: tuple[Server, Server]) -> None:
    a, b = servers
    phone = Http(a.port)
    match = make_match(phone, "resume")
    reader, conn = stream(b.port, match)
    first = reader.next()
    conn.close()  # the phone loses its connection
    for n in range(1, 4):
        reply, _ = write(phone, f"/api/matches/{match.id}/rounds", {"tricks": {"Anna": 1, "Bo": 1, "Cia": 1}},
                         key=f"r{n}", token=match.edit_token)
        assert reply.status == 201
    again, _conn = stream(a.port, match, last=int(first["id"]))
    assert [again.next()["round_no"] for _ in range(3)] == [1, 2, 3]


def test_open_streams_do_not_hold_up_a_graceful_stop(servers: tuple[Server, Server]) -> None:
    a, b = servers
    match = make_match(Http(a.port), "stop")
    readers = [stream(b.port, match)[0] for _ in range(4)]
    for reader in readers:
        reader.next()
    began = time.monotonic()
    b.stop()  # SIGTERM: gunicorn's graceful timeout is 2 s in these servers
    took = time.monotonic() - began
    assert took < 8, f"stopping took {took:.1f} s"
    for reader in readers:
        assert reader.ended.wait(5)
