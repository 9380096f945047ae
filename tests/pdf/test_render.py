"""``reports.render_pdf`` pauses Python's cyclic garbage collector for a render and always turns it back on."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from referee import reports

HTML = "<!doctype html><html><body><p>Anna pays Bo 12,00 kr.</p></body></html>"


def test_collector_paused_during_the_render_and_on_again_after(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    real = reports.HTML

    class Watching(real):  # type: ignore[misc, valid-type]
        def write_pdf(self, *args: Any, **kwargs: Any) -> Any:
            seen.append(gc.isenabled())
            return super().write_pdf(*args, **kwargs)

    monkeypatch.setattr(reports, "HTML", Watching)
    with app.test_request_context("/"):
        assert gc.isenabled()
        assert reports.render_pdf(HTML).startswith(b"%PDF")
        assert seen == [False] and gc.isenabled()


def test_collector_on_again_after_a_failed_render(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    class Failing:
        def __init__(self, **_kwargs: Any) -> None:
            pass

        def write_pdf(self, **_options: Any) -> bytes:
            raise RuntimeError("render failed")

    monkeypatch.setattr(reports, "HTML", Failing)
    with app.test_request_context("/"), pytest.raises(RuntimeError):
        reports.render_pdf(HTML)
    assert gc.isenabled()


def test_a_collector_switched_off_by_others_stays_off(app: Any) -> None:
    gc.disable()
    try:
        with app.test_request_context("/"):
            reports.render_pdf(HTML)
        assert not gc.isenabled()
    finally:
        gc.enable()
