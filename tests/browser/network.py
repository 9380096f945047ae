"""The phone's network in the browser tests: back after a time without it."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Error as PlaywrightError


def back_online(page: Any) -> None:
    """The network back, and the page told so.

    Chromium fires ``online`` itself when the context goes online; the test fires it once more so that the
    queue's flush does not hang on that alone. The first ``online`` may already have sent the queue and
    reloaded the page (``static/js/offline.js``: a sent queue shows the page as the server has it), and then
    there is no page left to tell: Playwright says its execution context was destroyed by a navigation.
    That is the outcome the second ``online`` was for, so it is not an error (a CI run failed on it once).
    """
    page.context.set_offline(False)
    try:
        page.evaluate("() => window.dispatchEvent(new Event('online'))")
    except PlaywrightError as exc:
        if "Execution context was destroyed" not in str(exc):
            raise
