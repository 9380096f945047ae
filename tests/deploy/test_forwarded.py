"""Behind Caddy every phone keeps its own address (issue 44.4), on SQLite and PostgreSQL.

The deployment of docs/deploying.md (``make run``'s gunicorn, ``FORWARDED_PROXIES=1``, the shipped
Caddyfile) on the loopback; each phone connects from a loopback address of its own (127.0.0.2, ...), as
phones on the internet come from theirs, while every request reaches gunicorn from Caddy's 127.0.0.1.
The address the app counts is seen in the wrong-token limit's table (``token_failures``) and in 429s;
the address logged in gunicorn's access log (``%(h)s``, the first field).
"""

from __future__ import annotations

import re
import time

import sqlalchemy as sa

from tests.deploy.caddy import Phone
from tests.deploy.conftest import LIMIT, Deployment
from tests.faults.server import Reply, make_match


def counted_addresses(url: str) -> set[str]:
    """The addresses the wrong-token limit has counted failures for (not the creations' ``new|`` rows)."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return {row[0] for row in conn.exec_driver_sql("SELECT address FROM token_failures")
                    if not row[0].startswith("new|")}
    finally:
        engine.dispose()


def logged_hosts(log: str, request_line: str, status: int) -> set[str]:
    """The first field (gunicorn's ``%(h)s``) of the access log lines of ``request_line`` answered ``status``."""
    pattern = re.compile(rf'^(\S+) .*"{re.escape(request_line)} HTTP/1\.[01]" {status} ', re.MULTILINE)
    return set(pattern.findall(log))


def wrong(phone: Phone, path: str, k: int, forged: str | None = None) -> Reply:
    headers = {"Authorization": f"Bearer wrong-{phone.source}-{k}"}
    if forged:
        headers["X-Forwarded-For"] = forged
    return phone.request("GET", path, headers=headers)


def test_each_phone_behind_caddy_meets_the_wrong_token_limit_alone(deployment: Deployment) -> None:
    caddy = deployment.caddy
    match = make_match(Phone(caddy.https_port, "127.0.0.4", caddy), "proxied")
    path = f"/api/nights/{match.night}"
    script = Phone(caddy.https_port, "127.0.0.2", caddy)

    answers = [wrong(script, path, k) for k in range(LIMIT)]
    assert all(a.status in (401, 403, 404) for a in answers), [(a.status, a.error) for a in answers]
    assert wrong(script, path, LIMIT).status == 429
    # A forged X-Forwarded-For sent to Caddy changes nothing: the script is still itself, still blocked.
    assert wrong(script, path, LIMIT + 1, forged="198.51.100.7").status == 429
    assert wrong(script, path, LIMIT + 2, forged="127.0.0.3").status == 429

    # Another phone, at its own address, is not held up by the script's guesses.
    friend = Phone(caddy.https_port, "127.0.0.3", caddy)
    assert friend.request("GET", path, headers={"Authorization": f"Bearer {match.view_token}"}).status == 200
    assert wrong(friend, path, 0).status in (401, 403, 404)

    assert counted_addresses(deployment.url) == {"127.0.0.2", "127.0.0.3"}
    log = deployment.app.log_text()
    assert logged_hosts(log, f"GET {path}", 429) == {"127.0.0.2"}
    assert logged_hosts(log, f"GET {path}", 200) == {"127.0.0.3"}
    assert logged_hosts(log, "POST /api/nights", 201) == {"127.0.0.4"}
    assert "198.51.100.7" not in log


def test_a_forged_forwarded_for_from_outside_the_proxies_is_ignored(deployment: Deployment) -> None:
    caddy, app = deployment.caddy, deployment.app
    match = make_match(Phone(caddy.https_port, "127.0.0.4", caddy), "forged")
    path = f"/api/nights/{match.night}"
    # Straight to gunicorn, past Caddy, from an address that is no proxy: each guess names another phone.
    intruder = Phone(app.port, "127.0.0.5")
    answers = [wrong(intruder, path, k, forged=f"127.0.0.3, 203.0.113.{k}") for k in range(LIMIT)]
    assert all(a.status in (401, 403, 404) for a in answers), [(a.status, a.error) for a in answers]
    assert wrong(intruder, path, LIMIT, forged="127.0.0.6").status == 429

    # The phone the forgeries named, through Caddy: not blocked, and logged as itself.
    phone = Phone(caddy.https_port, "127.0.0.3", caddy)
    assert phone.request("GET", path, headers={"Authorization": f"Bearer {match.view_token}"}).status == 200

    assert counted_addresses(deployment.url) == {"127.0.0.5"}
    deadline = time.monotonic() + 10  # gunicorn writes its access line after the answer has gone
    while not logged_hosts(app.log_text(), f"GET {path}", 200) and time.monotonic() < deadline:
        time.sleep(0.1)
    log = app.log_text()
    assert logged_hosts(log, f"GET {path}", 429) == {"127.0.0.5"}
    assert logged_hosts(log, f"GET {path}", 200) == {"127.0.0.3"}
    assert "203.0.113." not in log
