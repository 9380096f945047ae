"""The client's address behind proxies (``referee/proxies.py``): ``X-Forwarded-For`` only from the proxies.

What the app counts as the address is what the wrong-token limit stores (``token_failures``). The
real deployment (Caddy in front of ``make run``'s gunicorn) is tested in tests/deploy/test_forwarded.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from referee.models import TokenFailure, db
from tests.conftest import make_app
from tests.web.helpers import Api

#: FORWARDED_PROXIES, FORWARDED_ALLOW_IPS, the connection's address, X-Forwarded-For, the address counted.
CASES = [
    (0, "127.0.0.1,::1", "127.0.0.1", "203.0.113.1", "127.0.0.1"),  # off (the default): the header is unread
    (1, "127.0.0.1,::1", "127.0.0.1", "198.51.100.9, 203.0.113.2", "203.0.113.2"),  # one proxy: its entry
    (2, "10.0.0.0/8", "10.1.2.3", "198.51.100.9, 203.0.113.3, 10.9.9.9", "203.0.113.3"),  # two proxies
    (1, "10.0.0.0/8", "192.0.2.4", "203.0.113.4", "192.0.2.4"),  # not from a proxy: the header is ignored
    (1, "*", "192.0.2.5", "203.0.113.5", "203.0.113.5"),  # any address is a proxy (gunicorn's "*")
    (1, "::1", "::1", "2001:db8::6", "2001:db8::6"),
    (1, "127.0.0.1", "127.0.0.1", "", "127.0.0.1"),  # no header: the connection's address
]


def test_the_forwarded_address_counts_only_from_the_configured_proxies(backend: str, tmp_path: Path) -> None:
    counted: list[set[str]] = []
    for proxies, allowed, remote, forwarded, _counted in CASES:
        app = make_app(backend, tmp_path, FORWARDED_PROXIES=proxies, FORWARDED_ALLOW_IPS=allowed)
        client = app.test_client()
        night = Api(client).new_night(["Anna", "Bo"])
        headers = {"Authorization": "Bearer wrong"} | ({"X-Forwarded-For": forwarded} if forwarded else {})
        assert client.get(f"/api/nights/{night['id']}", headers=headers,
                          environ_overrides={"REMOTE_ADDR": remote}).status_code == 403
        with app.app_context():
            counted.append(set(db.session.scalars(select(TokenFailure.address)  # (not the creations' rows)
                                                  .where(TokenFailure.address.not_like("new|%")))))
            db.session.execute(TokenFailure.__table__.delete())
            db.session.commit()
            db.session.remove()
            db.engine.dispose()
    assert counted == [{case[-1]} for case in CASES]


@pytest.mark.parametrize("proxies, allowed", [(1, "127.0.0.1, proxy.example"), (-1, "127.0.0.1")])
def test_a_wrong_proxy_setting_stops_the_app_at_start(proxies: int, allowed: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"FORWARDED_ALLOW_IPS: .*proxy\.example|FORWARDED_PROXIES"):
        make_app(f"sqlite:///{tmp_path / 'p.sqlite3'}", tmp_path, FORWARDED_PROXIES=proxies,
                 FORWARDED_ALLOW_IPS=allowed)
