"""Writes first: page and sheet renders take turns, a few at a time per process.

Why: one gunicorn worker serves every connection on a thread of its own, and
Python runs one thread at a time. At a table, one round entered by the
leader makes every viewer's phone fetch the match page again (live.js), so
a round entry (about a millisecond of work) used to share the interpreter
with several page renders (several milliseconds each) and waited for all of
them in turns; a PDF render took the interpreter for tenths of a second.
Here at most ``READ_GATE`` renders of pages and sheets run at once in a
process; the others wait for their turn before they start, off the
interpreter, and round entries, the JSON API and the live stream never wait
here. Throughput stays what the cores give; the leader's tap is answered
first (``bench/load.py``: round entry p99 with page reads).

A render that cannot get a turn within ``READ_GATE_WAIT`` seconds goes on
without one rather than fail: the gate orders work, it never refuses it.
"""

from __future__ import annotations

import threading

from flask import Flask, g, request

#: Blueprints whose GETs render HTML pages or PDF sheets.
GATED = frozenset({"pages", "reports"})


def install(app: Flask) -> None:
    """Gate the GET and HEAD requests of :data:`GATED` blueprints (``READ_GATE`` at once; 0: no gate)."""
    size = int(app.config["READ_GATE"])
    if size <= 0:
        return
    turns = threading.BoundedSemaphore(size)
    wait = float(app.config["READ_GATE_WAIT"])

    @app.before_request
    def _take_turn() -> None:
        if request.method in ("GET", "HEAD") and request.blueprint in GATED:
            g.read_turn = turns.acquire(timeout=wait)

    @app.teardown_request
    def _end_turn(_exc: BaseException | None) -> None:
        if g.pop("read_turn", False):
            turns.release()
