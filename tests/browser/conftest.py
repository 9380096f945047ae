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

from tests.components import free_port
from tests.conftest import make_app

#: The phone the issue names: 390×844 CSS pixels (an ordinary modern phone).
PHONE = {"width": 390, "height": 844}


@dataclass(frozen=True)
class LiveServer:
    """The base URL the browser opens, and the app behind it (to look into the database)."""

    url: str
    app: Any


def require_browser_engine() -> None:
    """Skip (or fail, with REFEREE_REQUIRE_ALL) where the in-browser engine is not installed."""
    from tests.components import missing

    for name in ("pyodide.mjs", "pyodide.asm.wasm", "referee_engine.zip"):
        if not (Path(__file__).resolve().parents[2] / "static" / "pyodide" / name).exists():
            missing(f"the in-browser engine (static/pyodide/{name}: `make browser-engine`)")


def serve(app: Any) -> Iterator[LiveServer]:
    """``app`` in a background thread on 127.0.0.1, stopped at the end.

    Threaded, as gunicorn's workers would be, so that a double tap really
    reaches the server as two concurrent requests.
    """
    from werkzeug.serving import make_server

    from referee.models import db

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


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    """The app on SQLite, served (:func:`serve`)."""
    yield from serve(make_app(f"sqlite:///{tmp_path}/b.sqlite3", tmp_path, WTF_CSRF_ENABLED=True))


@pytest.fixture
def served(backend: str, tmp_path: Path) -> Iterator[LiveServer]:
    """:func:`live_server` on each backend (the ``backend`` fixture: SQLite, then PostgreSQL)."""
    yield from serve(make_app(backend, tmp_path, WTF_CSRF_ENABLED=True))


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


def expected_noise(msg: Any) -> bool:
    """Console errors that are no fault: the 422 of a deliberately refused entry, the absent favicon."""
    return "status of 422" in msg.text or "favicon" in str((msg.location or {}).get("url", ""))


@dataclass
class Watched:
    """A page whose script errors are collected, and where its screenshots go.

    Every browser test ends with ``assert not watched.problems``: a page that
    throws or logs an unexpected error fails the test even if it looked right.
    """

    page: Any
    shots: Path
    prefix: str
    problems: list[str]

    def shot(self, name: str, full: bool = True) -> None:
        self.page.screenshot(path=str(self.shots / f"{self.prefix}{name}.png"), full_page=full)


def watch(page: Any, artifacts: Path, prefix: str) -> Watched:
    """Collect page errors and unexpected console errors; screenshots go to ``test-artifacts/browser``."""
    shots = artifacts / "browser"
    shots.mkdir(parents=True, exist_ok=True)
    watched = Watched(page, shots, prefix, [])
    page.on("pageerror", lambda exc: watched.problems.append(f"page error: {exc}"))
    page.on("console", lambda msg: watched.problems.append(f"console {msg.type}: {msg.text} {msg.location}")
            if msg.type == "error" and not expected_noise(msg) else None)
    return watched


def new_night(page: Any, base_url: str, name: str, players: list[str], currency: str | None = None) -> str:
    """Create a night the way a leader does (start page, New night, the form); returns the night's URL."""
    page.goto(base_url + "/")
    page.get_by_role("link", name="New night").tap()
    page.get_by_label("Name of the night").fill(name)
    if currency:
        page.get_by_label("Currency").select_option(currency)
    page.get_by_label("Players, one per line").fill("\n".join(players))
    page.get_by_role("button", name="Create the night").tap()
    page.get_by_role("heading", name=name).wait_for()
    return str(page.url)


#: The browser locale of a phone whose page is in a given language.
LOCALES = {"en": "en-US", "sv": "sv-SE", "de": "de-DE"}


def second_phone(browser: Any, base: str, token: str, match_id: int, artifacts: Path, prefix: str,
                 lang: str = "en", timeout: int = 10_000) -> Watched:
    """Another phone at the same table: its own phone-sized context (own cookies), the night's edit link
    opened, then the match page (in ``lang``, chosen with the language switch as a user does).

    The caller closes it with ``other.page.context.close()``.
    """
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True,
                                  locale=LOCALES[lang])
    context.set_default_timeout(timeout)
    other = watch(context.new_page(), artifacts, prefix)
    other.page.goto(f"{base}/e/{token}")
    if lang == "en":
        other.page.goto(f"{base}/matches/{match_id}")
    else:
        other.page.goto(f"{base}/lang/{lang}?next=/matches/{match_id}")
    return other
