"""Writes first (referee/read_gate.py): page and sheet renders take turns; the API never waits for them."""

from __future__ import annotations

import threading
import time
from typing import Any

from flask import Blueprint, Flask

from referee import read_gate


def _app(size: int, wait: float = 5.0) -> tuple[Flask, dict[str, Any]]:
    """A bare app with a slow 'pages' view and an 'api' view, gated as the real one."""
    app = Flask(__name__)
    app.config.update(READ_GATE=size, READ_GATE_WAIT=wait)
    seen: dict[str, Any] = {"now": 0, "most": 0, "release": threading.Event(), "lock": threading.Lock()}
    pages, api = Blueprint("pages", __name__), Blueprint("api", __name__)

    @pages.get("/page")
    def page() -> str:
        with seen["lock"]:
            seen["now"] += 1
            seen["most"] = max(seen["most"], seen["now"])
        seen["release"].wait(5)
        with seen["lock"]:
            seen["now"] -= 1
        return "page"

    @api.post("/api/round")
    def enter() -> str:
        return "round"

    app.register_blueprint(pages)
    app.register_blueprint(api)
    read_gate.install(app)
    return app, seen


def _get_pages(app: Flask, n: int) -> list[threading.Thread]:
    threads = [threading.Thread(target=lambda: app.test_client().get("/page")) for _ in range(n)]
    for t in threads:
        t.start()
    return threads


def test_renders_take_turns_and_rounds_go_past() -> None:
    app, seen = _app(1)
    threads = _get_pages(app, 4)
    time.sleep(0.2)
    assert seen["most"] == 1  # three renders wait for their turn
    start = time.monotonic()
    assert app.test_client().post("/api/round").status_code == 200  # a round entry does not wait
    assert time.monotonic() - start < 0.5
    seen["release"].set()
    for t in threads:
        t.join(5)
    assert seen["now"] == 0 and seen["most"] == 1


def test_two_turns_and_no_gate() -> None:
    for size, most in ((2, 2), (0, 4)):
        app, seen = _app(size)
        threads = _get_pages(app, 4)
        time.sleep(0.2)
        assert seen["most"] == most
        seen["release"].set()
        for t in threads:
            t.join(5)


def test_a_render_that_waits_too_long_goes_on() -> None:
    """The gate orders work and never refuses it: after READ_GATE_WAIT a render starts anyway."""
    app, seen = _app(1, wait=0.2)
    threads = _get_pages(app, 2)
    time.sleep(0.5)
    assert seen["most"] == 2
    seen["release"].set()
    for t in threads:
        t.join(5)
    assert seen["now"] == 0
