"""The wrong-token limiter's counts in the database: the window, the purge, the cap, no token stored.

The limiter is shared by every worker and server through the ``token_failures``
table (``referee/ratelimit.py``); tests/faults/test_token_limit.py checks that
against real gunicorn servers. Here its arithmetic and housekeeping, on both
backends, with a clock the test moves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import select

from referee.ledger.ratelimit import FailureLimiter
from referee.models import TokenFailure, db
from tests.conftest import make_app
from tests.web.helpers import Api


def rows(app: Any) -> list[tuple[str, int, int]]:
    with app.app_context():
        out = [(r.address, r.bucket, r.count) for r in db.session.scalars(select(TokenFailure))]
        db.session.remove()
    return sorted(out)


def test_failure_limiter_forgets_after_the_window(backend: str, tmp_path: Path) -> None:
    app = make_app(backend, tmp_path)
    now = [1000.0]
    lim = FailureLimiter(limit=3, window=60, clock=lambda: now[0])  # buckets of 6 s: 1000 is in 996-1002
    with app.test_request_context():
        for _ in range(3):
            assert lim.retry_after("a") == 0
            lim.count("a")
        assert lim.retry_after("a") == 62 and lim.retry_after("b") == 0  # until the bucket's end + 60 s
        now[0] += 30
        assert lim.retry_after("a") == 32
        now[0] += 31
        assert lim.retry_after("a") == 1
        now[0] += 1
        assert lim.retry_after("a") == 0
        db.session.remove()
    assert rows(app) == [("a", 166, 3)]
    with app.app_context():
        db.engine.dispose()


def test_old_buckets_are_purged_and_the_table_is_capped(backend: str, tmp_path: Path) -> None:
    app = make_app(backend, tmp_path)
    now = [5000.0]
    lim = FailureLimiter(limit=100, window=60, clock=lambda: now[0], max_rows=5)
    with app.test_request_context():
        lim.count("10.0.0.1")  # bucket 833 (4998-5004 s)
        now[0] += 6
        lim.count("10.0.0.1")
        assert lim.retry_after("10.0.0.1") == 0
        now[0] += 66  # buckets 833 and 834 (to 5010 s) are out of the window; the next failure deletes them
        lim.count("10.0.0.2")
        db.session.remove()
    assert rows(app) == [("10.0.0.2", 845, 1)]
    with app.test_request_context():
        for k in range(8):  # eight addresses in two buckets: only the five newest rows stay
            if k == 4:
                now[0] += 6
            lim.count(f"10.1.0.{k}")
        db.session.remove()
    kept = rows(app)
    assert len(kept) == 5 and {bucket for _, bucket, _ in kept} <= {845, 846}
    assert {a for a, b, _ in kept if b == 846} == {f"10.1.0.{k}" for k in range(4, 8)}
    with app.app_context():
        db.engine.dispose()


def test_wrong_tokens_are_counted_by_address_never_stored(backend: str, tmp_path: Path) -> None:
    """Wrong bearer tokens and wrong links: the table holds the address and a count, no token."""
    app = make_app(backend, tmp_path, TOKEN_FAILURES=4, TOKEN_WINDOW=60)
    client = app.test_client()
    api = Api(client)
    api.new_night(["Anna", "Bo"])
    guesses = [f"guess-{k}-Zq7" for k in range(2)]
    for guess in guesses:
        assert client.get(f"/api/nights/{api.night['id']}", headers={"Authorization": f"Bearer {guess}"},
                          environ_overrides={"REMOTE_ADDR": "10.2.2.2"}).status_code == 403
    assert app.test_client().get("/e/link-guess-Zq7", environ_overrides={"REMOTE_ADDR": "10.2.2.2"}).status_code == 404
    stored = rows(app)
    assert [(a, c) for a, _, c in stored if not a.startswith("new|")] == [("10.2.2.2", 3)]  # (new|: creations)
    with app.app_context():
        every = repr(db.session.execute(select(TokenFailure.__table__)).all())
        db.session.remove()
        db.engine.dispose()
    assert "Zq7" not in every and "guess" not in every


def test_a_database_refusing_the_count_still_answers_403_and_404(tmp_path: Path, caplog: Any,
                                                                 monkeypatch: Any) -> None:
    """The database file opened read-only: counting fails, the answers stay what they were (no 500)."""
    import logging

    from referee import create_app

    # Alembic's logging set-up (a migration test run earlier) disables the loggers it does not name.
    monkeypatch.setattr(logging.getLogger("referee"), "disabled", False)

    path = tmp_path / "ro.sqlite3"
    writer = make_app(f"sqlite:///{path}", tmp_path)
    api = Api(writer.test_client())
    api.new_night(["Anna", "Bo"])
    with writer.app_context():
        db.engine.dispose()
    reader = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///file:{path}?mode=ro&uri=true", "TESTING": True,
                         "SECRET_KEY": "test", "INSTANCE_PATH": str(tmp_path), "TOKEN_FAILURES": 2})
    ro = reader.test_client()
    path_ = f"/api/nights/{api.night['id']}"
    statuses = [ro.get(path_, headers={"Authorization": f"Bearer wrong-{k}"}).status_code for k in range(3)]
    assert statuses == [403, 403, 403]  # nothing counted, so no 429 either
    assert ro.get(path_).status_code == 401
    assert ro.get("/e/wrong-link").status_code == 404
    assert ro.get(path_, headers={"Authorization": f"Bearer {api.token}"}).status_code == 200
    assert "a wrong token or a creation went uncounted" in caplog.text
    assert [r for r in rows(reader) if not r[0].startswith("new|")] == []  # (the writer's night: a creation)
    with reader.app_context():
        db.engine.dispose()


def test_a_pranksters_wrong_links_do_not_lock_out_right_ones(backend: str, tmp_path: Path) -> None:
    """Issue 44.5: 30 wrong links from one address (the default limit), then 10 phones behind the same
    router open right links of every kind: all 10 are let in; the 31st wrong link is still refused."""
    app = make_app(backend, tmp_path)
    assert app.config["TOKEN_FAILURES"] == 30
    api = Api(app.test_client())
    night = api.new_night(["Anna", "Bo"])
    room = {"REMOTE_ADDR": "10.4.4.4"}
    prankster = app.test_client()
    assert [prankster.get(f"/e/prank-{k}", environ_overrides=room).status_code for k in range(30)] == [404] * 30
    right = [f"/v/{night['view_token']}"] * 4 + [f"/e/{night['edit_token']}"] * 2 + [
        f"/groups/{night['group_token']}", f"/api/nights/{night['id']}?view={night['view_token']}",
        f"/nights/{night['id']}/settlement.pdf?view={night['view_token']}", f"/api/groups/{night['group_token']}"]
    statuses = [app.test_client().get(path, environ_overrides=room, follow_redirects=True).status_code
                for path in right]
    assert statuses == [200] * 10, statuses
    for wrong in ("/e/prank-31", f"/api/nights/{night['id']}?view=prank-31", "/groups/prank-31"):
        refused = prankster.get(wrong, environ_overrides=room)
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0, wrong
    with app.app_context():
        db.engine.dispose()
