"""``/api/docs`` in headless Chromium: the API reference renders every operation, within the CSP.

Why a browser: the page is Swagger UI drawing ``/api/openapi.json`` with
script; only a browser shows whether it renders at all, and whether the
app's Content-Security-Policy (no inline script or style, no eval) lets it.
Every refused script or style is a console error, and a console error fails
the test. The viewer is fetched by ``make api-docs``; where it is missing the
test skips, or fails under ``REFEREE_REQUIRE_ALL=1``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from referee.api.docs import VIEWER
from referee.api.openapi import document
from tests.browser.conftest import LiveServer, watch
from tests.components import missing

pytestmark = pytest.mark.browser

STATIC = Path(__file__).resolve().parents[2] / "static"


def test_the_reference_shows_every_operation_and_the_game_schemas(live_server: LiveServer, browser: Any,
                                                                   artifacts: Path) -> None:
    for name in VIEWER:
        if not (STATIC / name).is_file():
            missing(f"the API reference viewer (static/{name}: `make api-docs`)")
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    context.set_default_timeout(20_000)
    page = context.new_page()
    watched = watch(page, artifacts, "api-docs-")
    try:
        reply = page.goto(live_server.url + "/api/docs")
        assert reply is not None and reply.status == 200
        assert "script-src 'self'" in reply.headers["content-security-policy"]
        page.locator(".opblock").first.wait_for()
        doc = document()
        expected = sorted((method.upper(), path) for path, item in doc["paths"].items() for method in item)
        shown = sorted(zip(page.locator(".opblock .opblock-summary-method").all_inner_texts(),
                           page.locator(".opblock .opblock-summary-path").evaluate_all(
                               "els => els.map(e => e.getAttribute('data-path'))"), strict=True))
        assert shown == expected
        # The games' shapes are listed by name among the schemas.
        page.locator("section.models").wait_for()
        models = page.locator("section.models").inner_text()
        for game in ("Svangknack", "Kul", "Schloapfer", "Schwimmen", "Knaker"):
            assert f"{game}Round" in models and f"{game}State" in models
        # An operation opens with its parameters and its answer's schema.
        page.locator("#operations-default-enter_round .opblock-summary").click()
        page.locator("#operations-default-enter_round .responses-wrapper").wait_for()
        assert "Idempotency-Key" in page.locator("#operations-default-enter_round").inner_text()
        watched.shot("enter_round")
        assert not watched.problems, watched.problems
    finally:
        context.close()
