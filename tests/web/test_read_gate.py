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
    seen: dict[str, Any] = {"now": 0, "most": 0, "came": 0, "release": threading.Event(), "lock": threading.Lock()}
    pages, api = Blueprint("pages", __name__), Blueprint("api", __name__)

    @app.before_request
    def came() -> None:  # registered before the gate's: counts the requests that reached the gate
        with seen["lock"]:
            seen["came"] += 1

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
    threads = [threading.Thread(target=lambda: app.test_client().get("/page"), daemon=True) for _ in range(n)]
    for t in threads:
        t.start()
    return threads


def _until(seen: dict[str, Any], came: int, now: int) -> None:
    """Wait until ``came`` requests reached the gate and ``now`` renders are inside (no guess of the scheduler:
    a count, with a generous deadline only against a hang)."""
    deadline = time.monotonic() + 10
    while (seen["came"], seen["now"]) != (came, now):
        assert time.monotonic() < deadline, (seen["came"], seen["now"])
        time.sleep(0.005)


def test_renders_take_turns_and_rounds_go_past() -> None:
    """Four renders came, one is inside and holds its turn: a round entry is answered meanwhile (a gated one
    would wait the 30 s of READ_GATE_WAIT), and the renders never ran two at once."""
    app, seen = _app(1, wait=30)
    threads = _get_pages(app, 4)
    _until(seen, 4, 1)
    answered: list[int] = []
    entry = threading.Thread(target=lambda: answered.append(app.test_client().post("/api/round").status_code),
                             daemon=True)
    entry.start()
    entry.join(10)
    assert answered == [200] and seen["now"] == 1  # answered while the render still holds the turn
    seen["release"].set()
    for t in threads:
        t.join(10)
    assert seen["now"] == 0 and seen["most"] == 1


def test_two_turns_and_no_gate() -> None:
    for size, inside in ((2, 2), (0, 4)):
        app, seen = _app(size, wait=30)
        threads = _get_pages(app, 4)
        _until(seen, 4, inside)
        seen["release"].set()
        for t in threads:
            t.join(10)
        assert seen["most"] == inside


def test_a_render_that_waits_too_long_goes_on() -> None:
    """The gate orders work and never refuses it: after READ_GATE_WAIT a render starts anyway."""
    app, seen = _app(1, wait=0.2)
    threads = _get_pages(app, 2)
    _until(seen, 2, 2)  # the second went in while the first still held the only turn
    seen["release"].set()
    for t in threads:
        t.join(10)
    assert seen["now"] == 0 and seen["most"] == 2
