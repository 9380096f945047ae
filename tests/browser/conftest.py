"""Fixtures for the browser tests: the real app on a live port, and Debian's Chromium.

The browser posts real forms, so the live app runs with CSRF protection ON
(unlike the test-client fixtures), exactly as on a phone at the table.
Playwright cannot download its own browsers here, so Debian's Chromium is
launched by path; a missing Chromium skips (or fails under CI, see
``tests.components.missing``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.components import CHROMIUM_ARGS, chromium_path, free_port, missing
from tests.conftest import make_app

#: The phone the issue names: 390×844 CSS pixels (an ordinary modern phone).
PHONE = {"width": 390, "height": 844}


@dataclass(frozen=True)
class LiveServer:
    """The base URL the browser opens, and the app behind it (to look into the database)."""

    url: str
    app: Any


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    """The app in a background thread on 127.0.0.1, stopped at the end.

    Threaded, as gunicorn's workers would be, so that a double tap really
    reaches the server as two concurrent requests.
    """
    from werkzeug.serving import make_server

    from referee.models import db

    app = make_app(f"sqlite:///{tmp_path}/b.sqlite3", tmp_path, WTF_CSRF_ENABLED=True)
    port = free_port()
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="referee-live", daemon=True)
    thread.start()
    try:
        yield LiveServer(f"http://127.0.0.1:{port}", app)
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Debian Chromium for the session."""
    path = chromium_path()
    if path is None:
        missing("chromium (Debian package chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright (Python package, extra [test])")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    """A fresh page in a phone-sized, touch-enabled English context (own cookies)."""
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True,
                                  locale="en-US")
    context.set_default_timeout(10_000)
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()
