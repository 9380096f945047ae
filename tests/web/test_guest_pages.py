"""Guests' match pages kept per night version (referee/pages/guest_pages.py), on both backends.

A round makes every phone following the match refetch its page (``X-Live``);
the guests' copies of one version in one language are rendered once. Never
kept: an editor's page (its forms hold the session's CSRF token), a page the
phone navigates to, or anything of an older version.
"""

from __future__ import annotations

import http.client
import threading
import time
from typing import Any

import pytest

from referee.pages import guest_pages
from referee.pages import matches as pages
from tests.web.helpers import Api

LIVE = {"X-Live": "1"}


@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The match ids of every match page rendered (kept pages are not rendered)."""
    guest_pages.clear()
    seen: list[int] = []
    real = pages.render_match

    def counting(match: Any, **kw: Any) -> Any:
        seen.append(match.id)
        return real(match, **kw)

    monkeypatch.setattr(pages, "render_match", counting)
    return seen


def _table(app: Any, client: Any) -> tuple[Api, int, list[Any]]:
    api = Api(client)
    api.new_night(["Anna", "Bo", "Cia", "Dan"])
    match_id = int(api.new_match("svangknack", ["Anna", "Bo", "Cia", "Dan"], stake="3.00", dealer="Anna")["id"])
    guests = [app.test_client() for _ in range(3)]
    for guest in guests:
        assert guest.get(f"/v/{api.night['view_token']}").status_code == 302
    return api, match_id, guests


def test_one_render_per_version_for_every_guest(app: Any, client: Any, renders: list[int]) -> None:
    api, match_id, guests = _table(app, client)
    url = f"/matches/{match_id}"
    first = [g.get(url, headers=LIVE) for g in guests]
    assert [r.status_code for r in first] == [200, 200, 200] and renders == [match_id]
    assert len({r.get_data() for r in first}) == 1
    assert 'method="post"' not in first[0].get_data(as_text=True)

    # A round: the next refresh of every guest shows it, rendered once again.
    status, _ = api.call("POST", f"/api/matches/{match_id}/rounds",
                         {"participants": ["Bo", "Cia"], "tricks": {"Bo": 2, "Cia": 1}})
    assert status == 201
    after = [g.get(url, headers=LIVE).get_data(as_text=True) for g in guests]
    assert renders == [match_id, match_id] and len(set(after)) == 1
    assert 'id="round-1"' in after[0] and 'id="round-1"' not in first[0].get_data(as_text=True)

    # A void changes the page without a new round number: a new version all the same.
    status, _ = api.call("POST", f"/api/matches/{match_id}/rounds/1/void", {"reason": "misdeal"})
    assert status == 200
    voided = guests[0].get(url, headers=LIVE).get_data(as_text=True)
    assert len(renders) == 3 and 'class="void' in voided and voided != after[0]


def test_never_kept_for_editors_navigations_or_other_languages(app: Any, client: Any, renders: list[int]) -> None:
    api, match_id, guests = _table(app, client)
    url = f"/matches/{match_id}"
    assert guests[0].get(url, headers=LIVE).status_code == 200
    # The leader's own refresh holds the round form (and its tokens): rendered, never taken from guests.
    client.get(f"/e/{api.token}")
    mine = client.get(url, headers=LIVE).get_data(as_text=True)
    assert 'id="round-form"' in mine and len(renders) == 2
    assert 'id="round-form"' in client.get(url, headers=LIVE).get_data(as_text=True) and len(renders) == 3
    # A page the guest navigates to (no X-Live) may carry a flash message: rendered.
    assert guests[1].get(url).status_code == 200 and len(renders) == 4
    # Another language is another page.
    guests[2].get("/lang/sv")
    swedish = guests[2].get(url, headers=LIVE).get_data(as_text=True)
    assert len(renders) == 5 and 'lang="sv"' in swedish
    assert guests[2].get(url, headers=LIVE).get_data(as_text=True) == swedish and len(renders) == 5
    # The whole history is another page too.
    assert guests[1].get(f"{url}?all=1", headers=LIVE).status_code == 200 and len(renders) == 6


def test_nothing_kept_when_turned_off(app: Any, client: Any, renders: list[int]) -> None:
    app.config["GUEST_PAGES"] = 0
    _api, match_id, guests = _table(app, client)
    for guest in guests:
        assert guest.get(f"/matches/{match_id}", headers=LIVE).status_code == 200
    assert len(renders) == 3


def test_the_table_display_is_kept_per_version_too(app: Any, client: Any) -> None:
    guest_pages.clear()
    api, match_id, guests = _table(app, client)
    url = f"/matches/{match_id}/table"
    pages_seen = {g.get(url, headers=LIVE).get_data() for g in guests}
    assert len(pages_seen) == 1
    status, _ = api.call("POST", f"/api/matches/{match_id}/rounds", {"participants": ["Bo"]})
    assert status == 201
    fresh = guests[0].get(url, headers=LIVE).get_data()
    assert fresh not in pages_seen


def test_another_tables_round_keeps_the_copy_a_night_wide_write_does_not(
        app: Any, client: Any, renders: list[int]) -> None:
    """At a club evening the night's version moves with every table's round; a guest's copy of one table's page
    is kept across the other tables' rounds (the match's version and the night-wide writes are the key)."""
    api, match_id, guests = _table(app, client)
    other = int(api.new_match("svangknack", ["Anna", "Bo", "Cia", "Dan"], stake="3.00", dealer="Bo")["id"])
    url = f"/matches/{match_id}"
    first = guests[0].get(url, headers=LIVE).get_data(as_text=True)
    assert renders == [match_id]
    for _ in range(3):  # the other table plays on
        _status, shown = api.call("GET", f"/api/matches/{other}")
        status, _ = api.call("POST", f"/api/matches/{other}/rounds", {"participants": [shown["state"]["svangare"]]})
        assert status == 201
    assert [g.get(url, headers=LIVE).get_data(as_text=True) for g in guests] == [first] * 3
    assert renders == [match_id]
    # A player joins the night (a write of no match): every match page may show it, rendered again.
    status, _ = api.call("POST", f"/api/nights/{api.night['id']}/players", {"name": "Eva"})
    assert status == 201
    assert guests[1].get(url, headers=LIVE).status_code == 200 and renders == [match_id, match_id]
    # This table's own round: rendered again, and shown.
    _status, shown = api.call("GET", f"/api/matches/{match_id}")
    status, _ = api.call("POST", f"/api/matches/{match_id}/rounds", {"participants": [shown["state"]["svangare"]]})
    assert status == 201
    mine = guests[2].get(url, headers=LIVE).get_data(as_text=True)
    assert renders == [match_id] * 3 and 'id="round-1"' in mine


def test_guests_who_fetch_at_the_same_moment_share_one_render(backend: str, tmp_path: Any,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A round's event reaches the phones of a table together, and they fetch together: against a real threaded
    server whose read gate lets eight renders run at once (``READ_GATE``: at 1, the gate alone would make
    them take turns), eight guests' fetches at once are one render. Each render here takes 0.3 s, so that the
    fetches surely overlap; with the copy kept only once rendered, as before, each of them rendered it."""
    from werkzeug.serving import make_server

    from referee.models import db
    from tests.components import free_port
    from tests.conftest import make_app

    app = make_app(backend, tmp_path, READ_GATE=8)
    client = app.test_client()
    guest_pages.clear()
    api, match_id, _guests = _table(app, client)
    renders: list[int] = []
    real = pages.render_match

    def slow(match: Any, **kw: Any) -> Any:
        renders.append(match.id)
        time.sleep(0.3)
        return real(match, **kw)

    monkeypatch.setattr(pages, "render_match", slow)
    port = free_port()
    server = make_server("127.0.0.1", port, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        cookies = []
        for _ in range(8):  # each guest's own session, from the night's view link
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", f"/v/{api.night['view_token']}")
            answer = conn.getresponse()
            answer.read()
            cookies.append(answer.getheader("Set-Cookie", "").split(";")[0])
            conn.close()
        start = threading.Barrier(8)
        bodies: list[bytes] = []

        def fetch(cookie: str) -> None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            start.wait()
            conn.request("GET", f"/matches/{match_id}", headers={**LIVE, "Cookie": cookie})
            answer = conn.getresponse()
            bodies.append(answer.read() if answer.status == 200 else b"")
            conn.close()

        threads = [threading.Thread(target=fetch, args=(c,)) for c in cookies]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert len(bodies) == 8 and all(bodies) and len(set(bodies)) == 1
        assert renders == [match_id]
    finally:
        server.shutdown()
        server.server_close()
        with app.app_context():
            db.session.remove()
            db.engine.dispose()
