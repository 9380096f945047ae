"""The referee in the phone after an offline reload, and round forms judged by it (issue 16, with issue 15).

The service worker keeps Pyodide and the engine bundle as the page loads them
(and, on a match page, fetches them ahead), so that after the page is
reloaded with no network the engine still starts from the phone's cache. On
a match page with no network, a round the engine refuses is refused at the
tap with its rule and reason in the page's language, as the server would,
instead of waiting in the queue; a legal one waits, as pending.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import LiveServer, watch
from tests.browser.test_offline_queue import offline_noise

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _engine_installed() -> None:
    from tests.components import missing

    for name in ("pyodide.mjs", "pyodide.asm.wasm", "referee_engine.zip"):
        if not (ROOT / "static" / "pyodide" / name).exists():
            missing(f"the in-browser engine (static/pyodide/{name}: `make browser-engine`)")


def test_the_knaker_referee_answers_after_an_offline_reload(live_server: LiveServer, phone: Any,
                                                            artifacts: Path) -> None:
    from playwright.sync_api import expect

    page = phone
    watched = watch(page, artifacts, "offline-engine-")
    page.goto(live_server.url + "/referee/knaker")
    page.wait_for_function("() => navigator.serviceWorker && navigator.serviceWorker.controller !== null")
    page.reload()  # now under the worker: the engine's files are kept as they load
    page.wait_for_function("() => window.RefereeEngine !== undefined")
    page.evaluate("() => RefereeEngine.load().then(() => true)")
    page.context.set_offline(True)
    page.reload()
    expect(page.locator("#offline-bar")).to_contain_text("Offline copy of this page from")
    page.wait_for_function("() => window.RefereeEngine !== undefined")
    answer = page.evaluate("() => RefereeEngine.ask('knaker/play', {pile: ['9H'], lays: [['4D']]}, 'sv')")
    assert answer["status"] == 200 and answer["body"]["legal"] is False and answer["body"]["rule"] == "KN-3"
    for name in ("pyodide.asm.wasm", "python_stdlib.zip", "referee_engine.zip"):  # from the phone's cache
        assert page.evaluate("(u) => caches.match(u).then(r => !!r)", f"/static/pyodide/{name}"), name
    assert not offline_noise(watched.problems)
