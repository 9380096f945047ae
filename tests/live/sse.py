"""A small Server-Sent Events reader for the live tests: events into a queue, from a thread."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Iterable
from typing import Any


class Reader:
    """Reads an event stream (an iterable of byte chunks) in a thread; events and comments are queued."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.states: queue.Queue[dict[str, Any]] = queue.Queue()  # ``state`` events (``?state=1``)
        self.comments: list[str] = []
        self.raw: list[str] = []
        self.ended = threading.Event()
        self._chunks = chunks
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        buf = ""
        try:
            for chunk in self._chunks:
                buf += chunk.decode() if isinstance(chunk, bytes) else chunk
                while "\n\n" in buf:
                    block, buf = buf.split("\n\n", 1)
                    self.raw.append(block)
                    self._block(block)
        except Exception:  # the connection was closed under the reader: the test decides what that means
            pass
        finally:
            self.ended.set()

    def _block(self, block: str) -> None:
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            if line.startswith(":"):
                self.comments.append(line[1:].strip())
                continue
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value
        if fields.get("event") == "change":
            self.events.put({"id": fields.get("id"), **json.loads(fields["data"])})
        elif fields.get("event") == "state":
            self.states.put(json.loads(fields["data"]))

    def next(self, timeout: float = 5.0) -> dict[str, Any]:
        return self.events.get(timeout=timeout)

    def until(self, predicate: Any, timeout: float = 5.0) -> tuple[dict[str, Any], float]:
        """The first event matching ``predicate`` and when it arrived (``time.monotonic()``)."""
        deadline = time.monotonic() + timeout
        while True:
            event = self.events.get(timeout=max(0.01, deadline - time.monotonic()))
            if predicate(event):
                return event, time.monotonic()
