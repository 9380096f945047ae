"""The wrong-token limit holds across gunicorn workers and app servers sharing one database.

A script guessing tokens gets a 429 after ``TOKEN_FAILURES`` wrong ones from its
address, whichever worker or server took each guess: the counts are in the
database (``referee/ledger/ratelimit.py``), not in a worker's memory. With counts per
process, ``TOKEN_FAILURES`` guesses spread over two workers would leave each
worker below the limit and the next guess would be a 403 again.

SQLite: one gunicorn with 2 sync workers. PostgreSQL: two gunicorn servers
with 2 workers each on one database, the guesses alternating between them.
The access log names the worker (pid) that answered each guess, so the test
knows the guesses really were spread. That the spread happens is made sure,
not hoped for: a live stream (a sync worker serves one request at a time)
holds one worker of the first server while the first half of the guesses is
sent, and a second stream holds the other worker for the second half.
"""

from __future__ import annotations

import http.client
import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.faults.server import Http, Launcher, Reply, Server, database_url, make_match

LIMIT = 8


def hold_a_worker(server: Server, path: str) -> http.client.HTTPConnection:
    """Open a live stream on ``server`` and read its first event: a sync worker is now busy with it."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn.request("GET", path)
    reply = conn.getresponse()
    assert reply.status == 200, reply.status
    deadline = time.monotonic() + 20
    while not reply.fp.readline().startswith(b"data:"):
        assert time.monotonic() < deadline, "no opening event on the live stream"
    return conn


class PidServer(Server):
    """A fault-test server whose access log names the worker that answered (``pid=``)."""

    def argv(self) -> list[str]:
        argv = super().argv()
        return [*argv[:-1], "--access-logformat", '%(h)s "%(r)s" %(s)s pid=%(p)s', argv[-1]]

    def pids(self, status: int) -> set[str]:
        return set(re.findall(rf'" {status} pid=<?(\d+)>?', self.log_text()))


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_wrong_tokens_over_workers_and_servers_meet_one_limit(
        backend: str, tmp_path: Path, postgres: Any, launcher: Launcher, figures: list[str]) -> None:
    url = database_url(backend, tmp_path, postgres, "faults_token_limit")
    servers: list[PidServer] = []
    for name in ("a", "b") if backend == "postgres" else ("a",):
        (tmp_path / name).mkdir()
        server = PidServer(url, tmp_path / name, launcher=launcher)
        server.env.update(TOKEN_FAILURES=str(LIMIT), TOKEN_WINDOW="300", LIVE_PING="0.2")
        servers.append(server)
    servers[0].upgrade()
    try:
        for server in servers:
            server.start()
        match = make_match(Http(servers[0].port), f"limit-{backend}")
        path = f"/api/nights/{match.night}"
        answers: list[Reply] = []

        def guess(half: int) -> None:
            for k in range(LIMIT // 2):
                phone = Http(servers[k % len(servers)].port)
                answers.append(phone.request("GET", path, headers={"Authorization": f"Bearer guess-{half}-{k}"}))

        first = hold_a_worker(servers[0], f"{path}/live?view={match.view_token}")
        guess(0)  # the first server's other worker answers these
        second = hold_a_worker(servers[0], f"{path}/live?view={match.view_token}")  # on that other worker
        first.close()  # the first worker is free again once its next ping finds the stream gone
        guess(1)
        second.close()
        assert [a.status for a in answers] == [403] * LIMIT, [(a.status, a.body[:100]) for a in answers]
        workers = sorted(f"{i}:{pid}" for i, s in enumerate(servers) for pid in s.pids(403))
        assert len(workers) >= 2, f"the guesses were not spread over workers: {workers}"
        # The next guess, on every server: 429; the right token from this address still opens (issue 44.5).
        for server in servers:
            phone = Http(server.port)
            reply = phone.request("GET", path, headers={"Authorization": "Bearer one-more-guess"})
            assert reply.status == 429, (reply.status, reply.body[:200])
            assert int(reply.headers["retry-after"]) > 0
            reply = phone.request("GET", path, headers={"Authorization": f"Bearer {match.edit_token}"})
            assert reply.status == 200, (reply.status, reply.body[:200])
    finally:
        for server in servers:
            server.stop()
    for server in servers:
        assert not server.failures(), "\n".join(server.failures()[:10])
    figures.append(f"token limit ({backend}): {LIMIT} wrong tokens answered by {len(workers)} workers of "
                   f"{len(servers)} server(s), then 429 with Retry-After on every server (the right token: 200)")
