"""Saving offline says it is checking (issues 28/29): the words next to Save while the engine in the phone judges.

With no network, "Save round" first runs the round through the engine in the page (Pyodide in a worker), which
on a cold phone takes seconds; the button is disabled meanwhile. The save bar's status line says so at once
and is emptied when the entry is stored or refused. The first save after going offline meets the engine cold
(it starts only when the network goes), so the wait here is the real one, not a made-up delay.

What happens is recorded in the page as it happens (a MutationObserver on the status line and the queue,
which also measures the save button at the moment the words appear), so the order "words, then the pending
entry" is read from the page's own timeline rather than from racing polls.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import LiveServer, require_browser_engine, watch
from tests.browser.network import back_online
from tests.browser.table_layout import _LAYOUT
from tests.browser.test_offline_engine import _engine_kept
from tests.browser.test_offline_queue import night_and_match, offline_noise, open_controlled, queue, save_round, stored

pytestmark = pytest.mark.browser

CHECKING_SV = "Kontrollerar rundan mot reglerna på den här telefonen…"

#: Every change of the status line or the queue, with the time, the words, the pending entries and (while the
#: words are shown) what is wrong with the save button and the page's width (table_layout's measurement).
_RECORD = """(layout) => {
  const status = document.querySelector('#round-form [data-bar-status]');
  const entries = document.getElementById('offline-entries');
  window.checkingTimeline = [];
  const note = () => {
    const words = status.textContent;
    checkingTimeline.push({t: performance.now(), words,
      pending: entries.querySelectorAll('li.pending').length,
      problems: words ? layout([390, '#save-round']) : [],
      disabled: document.getElementById('save-round').disabled});
  };
  new MutationObserver(note).observe(status, {childList: true, characterData: true, subtree: true});
  new MutationObserver(note).observe(entries, {childList: true, subtree: true});
}"""


@pytest.fixture(autouse=True)
def _engine_installed() -> None:
    require_browser_engine()


def test_saving_offline_says_it_is_checking_until_stored_or_refused(live_server: LiveServer, phone: Any,
                                                                    artifacts: Path) -> None:
    from playwright.sync_api import expect

    base, page = live_server.url, phone
    watched = watch(page, artifacts, "offline-checking-")
    night, match = night_and_match(base)
    open_controlled(page, base, night, match)
    page.goto(f"{base}/lang/sv?next=/matches/{match['id']}")
    _engine_kept(page)  # the files are in the phone; the engine itself has not started (online, not needed)
    status = page.locator("#round-form [data-bar-status]")
    expect(status).to_be_empty()
    assert status.get_attribute("role") == "status"  # announced when the words come
    page.evaluate(f"() => ({_RECORD})({_LAYOUT})")

    page.context.set_offline(True)  # the engine starts now, from the phone's cache: cold
    save_round(page, [("Dan", 1), ("Bo", 2)])  # legal: Dan 1, Bo 2 of 3
    expect(status).to_have_text(CHECKING_SV)
    watched.shot("words", full=False)  # (while the engine starts: seconds; not asserted on, only looked at)
    expect(page.locator("#offline-entries li.pending")).to_have_count(1, timeout=30_000)
    expect(status).to_be_empty()
    entry = queue(page)[0]

    timeline = page.evaluate("() => checkingTimeline")
    shown = [e for e in timeline if e["words"]]
    assert shown and shown[0]["words"] == CHECKING_SV, timeline
    assert shown[0]["pending"] == 0 and shown[0]["disabled"], timeline  # the words first, while Save waits
    assert all(not e["problems"] for e in shown), [e["problems"] for e in shown]  # Save never covered
    first_pending = next(e for e in timeline if e["pending"])
    gone = next(e for e in timeline if e["t"] > shown[0]["t"] and not e["words"])
    assert gone["t"] <= first_pending["t"], timeline  # taken away as the entry is stored
    shown_ms = gone["t"] - shown[0]["t"]
    # Judged by the engine (the state it leads to kept with it), or, on a machine too loaded for a cold engine
    # to answer in time, waved on to the server after offline_check.js's 15 s limit, the words shown all along.
    if entry.get("after"):
        assert entry["view"]["svangare"] == "Cia", entry
    else:
        assert shown_ms >= 14_500, (shown_ms, entry)
    print(f"checking words shown {shown_ms:.0f} ms (cold engine, first save offline; judged: {'after' in entry})")

    # Back online: the round is sent and saved. Then offline again with the engine warm, a round that breaks
    # SK-8 (Anna 1 trick, Cia, who svängar, none: 1 of 3) is refused, and the words go with the refusal.
    back_online(page)
    expect(page.locator("#offline-queue")).to_be_hidden(timeout=20_000)
    assert [r[0] for r in stored(live_server.app, match["id"])] == [1]
    page.goto(f"{base}/matches/{match['id']}")
    page.wait_for_function("() => window.RefereeQueue !== undefined")
    page.context.set_offline(True)
    page.evaluate("() => RefereeEngine.load().then(() => true)")  # warm: this save is judged for certain
    page.evaluate(f"() => ({_RECORD})({_LAYOUT})")
    save_round(page, [("Anna", 1)])
    expect(page.locator("#round-form .offline-check")).to_contain_text("SK-8", timeout=20_000)
    expect(status).to_be_empty()
    timeline = page.evaluate("() => checkingTimeline")
    assert [e["words"] for e in timeline if e["words"]][:1] == [CHECKING_SV], timeline
    assert all(not e["problems"] for e in timeline if e["words"]), timeline
    assert queue(page) == []  # refused at the tap: nothing waits
    watched.shot("refused", full=False)
    assert not offline_noise(watched.problems)
