"""A phone on the deployment of docs/deploying.md over HTTPS: Caddy's certificate, the service worker, offline.

The app as ``make run`` serves it, behind the shipped Caddyfile, with a
certificate from Caddy's internal CA for ``referee.test``. Chromium resolves
``referee.test`` to the loopback (``--host-resolver-rules``) and accepts
Caddy's CA by the public keys of its root and intermediate
(``--ignore-certificate-errors-spki-list``); a page with a certificate error
could not register a service worker at all (Chromium refuses one then), so the
worker controlling the page over ``https://`` is the proof. The leader's phone
goes offline, reloads (the page comes from the service worker), enters a round,
comes back: the round is stored exactly once. Both backends.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from referee.models import Round
from tests.browser.conftest import PHONE, watch
from tests.browser.network import back_online
from tests.browser.test_offline_queue import SEATS, offline_noise, open_controlled, queue, save_round
from tests.components import another_chromium
from tests.conftest import ARTIFACTS
from tests.deploy.caddy import DOMAIN, Caddy, Phone
from tests.deploy.conftest import Deployment
from tests.faults.server import write

pytestmark = pytest.mark.browser


@pytest.fixture
def https_chromium(deployment: Deployment, browser: Any) -> Iterator[Any]:
    """Debian's Chromium with ``referee.test`` on the loopback and Caddy's CA accepted."""
    spki = ",".join(deployment.caddy.spki_hashes())
    with another_chromium(browser, f"--host-resolver-rules=MAP {DOMAIN} 127.0.0.1",
                          f"--ignore-certificate-errors-spki-list={spki}") as mapped:
        yield mapped


def night_and_match(caddy: Caddy) -> tuple[dict[str, Any], dict[str, Any]]:
    """A night and a Svängknack match, made through the JSON API over HTTPS."""
    phone = Phone(caddy.https_port, "127.0.0.1", caddy)
    night, _ = write(phone, "/api/nights", {"name": "Cabin night", "currency": "SEK", "players": SEATS},
                     key="night")
    assert night.status == 201, night.body[:300]
    match, _ = write(phone, f"/api/nights/{night.json()['id']}/matches",
                     {"game": "svangknack", "players": SEATS, "dealer": "Anna", "stake": "3.00"},
                     key="match", token=night.json()["edit_token"])
    assert match.status == 201, match.body[:300]
    return night.json(), match.json()


def stored(url: str, match_id: int) -> list[tuple[int, str | None, bool]]:
    """(round number, idempotency key, void) of every event of the match, read from the database."""
    table = Round.__table__
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.select(table.c.seq, table.c.idempotency_key, table.c.void)
                                .where(table.c.match_id == match_id).order_by(table.c.seq)).all()
    finally:
        engine.dispose()
    return [(r[0], r[1], r[2]) for r in rows]


def test_over_https_the_service_worker_keeps_a_round_entered_offline(deployment: Deployment,
                                                                     https_chromium: Any) -> None:
    from playwright.sync_api import expect

    caddy = deployment.caddy
    night, match = night_and_match(caddy)
    context = https_chromium.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True,
                                   locale="en-US")
    context.set_default_timeout(15_000)
    try:
        page = context.new_page()
        ARTIFACTS.mkdir(exist_ok=True)
        watched = watch(page, ARTIFACTS, "https-offline-")
        open_controlled(page, caddy.url, night, match)
        worker = page.evaluate("() => navigator.serviceWorker.controller.scriptURL")
        assert worker.startswith(f"https://{DOMAIN}:{caddy.https_port}/"), worker
        assert page.evaluate("() => window.isSecureContext") is True

        context.set_offline(True)
        page.reload()  # no network: the page comes from the service worker
        expect(page.locator("#offline-bar")).to_contain_text("Offline copy of this page from")
        assert page.locator("html").get_attribute("data-offline-copy")
        save_round(page)
        expect(page.locator("#offline-entries li.pending")).to_have_count(1)
        keys = [entry["key"] for entry in queue(page)]
        assert len(keys) == 1
        assert stored(deployment.url, match["id"]) == []
        watched.shot("pending", full=False)

        back_online(page)
        expect(page.locator("#offline-queue")).to_be_hidden()
        expect(page.locator(".history li")).to_have_count(1)
        assert stored(deployment.url, match["id"]) == [(1, keys[0], False)]
        assert not offline_noise(watched.problems)
    finally:
        context.close()
    # The round went through Caddy to gunicorn once: one POST of it in the access log.
    posts = [line for line in deployment.app.log_text().splitlines() if f"POST /matches/{match['id']}/rounds" in line]
    assert len(posts) == 1, posts
