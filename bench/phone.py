"""The speed a phone feels (issue 29): pages and the offline engine on a slow and a fast mobile network.

Run from the repository root: ``.venv/bin/python bench/phone.py`` (a few
minutes, most of it the engine on slow 3G; ``--quick``: fast 4G only).

The app runs under gunicorn as ``make run`` does (``bench/serve.py``), on a
throw-away SQLite database with one night (4 players, a 30-round
Svängknack). Headless Debian Chromium (Playwright, the browser tests'
flags) is a 390x844 phone whose network DevTools throttles (CDP
``Network.emulateNetworkConditions``): slow 3G, 400 kbit/s down and up, 400
ms round trip; fast 4G, 9 Mbit/s down, 1.5 Mbit/s up, 60 ms.

Per page (the night, the match, the settlement, the Knaker referee, the
table display), as the leader's phone: cold (a new browser profile: no HTTP
cache; the session cookie only) and warm (the same page again: the HTTP
cache holds the static files, immutable, and the page itself comes over the
network). The service worker is blocked: DevTools would neither throttle
nor count its requests, and online it fetches pages from the network first
anyway.

- bytes on the wire: the page's requests as DevTools counts them (headers
  and compressed bodies) until the page is usable; the service worker's
  install fetches the shell (the app's styles and scripts) after the first
  load: its size as served is added to the match page's first visit;
- first paint: ``first-contentful-paint``;
- usable: the page's primary action is on screen and its scripts ran (the
  later of first paint and ``DOMContentLoaded``'s end: deferred scripts run
  before it).

The offline engine (on a leader's phone that saves data, so it waits for the
tap): bytes on the wire of fetching it, the time from the tap to the
first answer (fetched, started, asked), and warm: the page again, the engine
started from the phone's cache, to its first answer.

Then the offline engine's start (issue 49, ``bench/engine_start.py``): its first answer cold, warm from a normal
start and warm from the snapshot, at 1x and 4x CPU, split into phases, and the first offline round on a leader's
page whose engine started in idle time.

Goals (issue 29): a match page usable in < 3 s on slow 3G cold and < 1 s
warm; a match page's first visit <= 150 KB on the wire (with the shell); the
offline engine <= 5 MB on the wire. PASS/MISS. A benchmark, not a test:
always exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import engine_start  # noqa: E402
from serve import HOST, Server, verdict  # noqa: E402

PHONE = {"width": 390, "height": 844}
PROFILES = {
    "slow 3G": {"latency": 400, "downloadThroughput": 400_000 / 8, "uploadThroughput": 400_000 / 8},
    "fast 4G": {"latency": 60, "downloadThroughput": 9_000_000 / 8, "uploadThroughput": 1_500_000 / 8},
}
GOAL_COLD_S, GOAL_WARM_S, GOAL_FIRST_KB, GOAL_ENGINE_MB = 3.0, 1.0, 150, 5.0
PLAYERS = ["Anna", "Bo", "Cia", "Dan"]


def api(base: str, path: str, body: Any, token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST", headers=headers)
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


def build(base: str) -> tuple[dict[str, Any], dict[str, Any]]:
    night = api(base, "/api/nights", {"name": "Cabin night", "currency": "SEK", "players": PLAYERS})
    token = night["edit_token"]
    match = api(base, f"/api/nights/{night['id']}/matches",
                {"game": "svangknack", "players": PLAYERS, "dealer": "Anna", "stake": "3.00"}, token)
    for k in range(30):
        state = api(base, f"/api/matches/{match['id']}/rounds",
                    {"participants": [PLAYERS[(k + 1) % 4]]}, token)
        assert state, state
    return night, match


def session_cookie(base: str, token: str) -> list[dict[str, Any]]:
    """The leader's session cookie, got without a browser (a cold phone has nothing else of the site)."""
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        opener.open(f"{base}/e/{token}", timeout=30)
        raise AssertionError("the edit link should redirect")
    except urllib.error.HTTPError as resp:
        raw = resp.headers.get("Set-Cookie", "")
    name, value = raw.split(";", 1)[0].split("=", 1)
    return [{"name": name, "value": value, "url": base}]


class Phone:
    """A browser profile on a throttled network, counting the bytes of its page's requests."""

    def __init__(self, browser: Any, base: str, cookies: list[dict[str, Any]], profile: dict[str, float],
                 save_data: bool = False) -> None:
        # No service worker: DevTools throttles and counts the page's own requests only, and the worker's
        # would pass unthrottled and uncounted (pages are network first under it, so a warm visit online is
        # the HTTP cache's: static files immutable, the page itself over the network).
        self.context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="en-US",
                                           service_workers="block")
        self.context.add_cookies(cookies)
        if save_data:
            self.context.add_init_script("Object.defineProperty(navigator, 'connection', {value: {saveData: true}})")
        self.page = self.context.new_page()
        self.page.set_default_timeout(300_000)
        self.cdp = self.context.new_cdp_session(self.page)
        self.cdp.send("Network.enable")
        self.cdp.send("Network.emulateNetworkConditions", {"offline": False, **profile})
        self.bytes = 0
        self.cdp.on("Network.loadingFinished", self._done)
        self.base = base

    def _done(self, event: dict[str, Any]) -> None:
        self.bytes += int(event.get("encodedDataLength", 0))

    def visit(self, path: str, primary: str) -> tuple[int, float, float]:
        """(bytes on the wire, first paint s, usable s) of one visit of ``path``."""
        self.bytes = 0
        self.page.goto(self.base + path, wait_until="domcontentloaded")
        self.page.locator(primary).first.wait_for(state="visible")
        self.page.wait_for_function("() => performance.getEntriesByName('first-contentful-paint').length > 0")
        paint, dcl = self.page.evaluate(
            "() => [performance.getEntriesByName('first-contentful-paint')[0].startTime,"
            " performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd]")
        return self.bytes, paint / 1000, max(paint, dcl) / 1000

    def close(self) -> None:
        self.context.close()


def shell_bytes() -> int:
    """What the service worker fetches on its install: the shell's files, compressed (brotli) as served."""
    from referee.pages.offline import shell_files
    from referee.static_files import wire_size

    static = ROOT / "static"
    return sum(wire_size(static / name) for name in shell_files(static))


def engine(browser: Any, base: str, cookies: list[dict[str, Any]], profile: dict[str, float],
           match_path: str) -> tuple[int, float, float]:
    """(bytes, cold s, warm s): the engine fetched after the offer's tap and asked; then asked again warm."""
    phone = Phone(browser, base, cookies, profile, save_data=True)
    try:
        phone.page.goto(base + match_path)
        button = phone.page.locator("#engine-offer button")
        button.wait_for(state="visible")
        # A round form the server would judge: the answer (200 or a rule's 422) is the engine's first answer.
        question = ("() => { const m = JSON.parse(document.getElementById('offline').dataset.matchState);"
                    " return RefereeEngine.ask('round/form', {game: m.game, digits: m.digits, state: m.state,"
                    " players: m.players, form: {tricks_3: '1'}}).then(a => a.status); }")
        phone.bytes = 0
        start = time.perf_counter()
        button.tap()
        phone.page.locator("#engine-offer[data-state=ready]").wait_for(state="visible")
        assert phone.page.evaluate(question) in (200, 422)
        cold, wire = time.perf_counter() - start, phone.bytes
        phone.page.reload()
        phone.page.wait_for_function("() => window.RefereeEngine !== undefined")
        start = time.perf_counter()
        assert phone.page.evaluate(question) in (200, 422)
        return wire, cold, time.perf_counter() - start
    finally:
        phone.close()



def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fast 4G only")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from tests.components import CHROMIUM_ARGS, chromium_path

    path = chromium_path()
    if path is None:
        print("chromium not found (Debian package chromium): nothing measured")
        return 0
    profiles = {k: v for k, v in PROFILES.items() if not args.quick or k == "fast 4G"}
    with tempfile.TemporaryDirectory(prefix="referee-bench-phone-") as tmp:
        server = Server(Path(tmp), workers=2, threads=8)
        server.start()
        base = f"http://{HOST}:{server.port}"
        try:
            night, match = build(base)
            cookies = session_cookie(base, night["edit_token"])
            pages = [("night", f"/nights/{night['id']}", "main h1"),
                     ("match", f"/matches/{match['id']}", "#save-round"),
                     ("settlement", f"/nights/{night['id']}/settlement", "main h1"),
                     ("referee", "/referee/knaker", "#kr-lay"),
                     ("table display", f"/matches/{match['id']}/table", "main")]
            print(f"Phone benchmark, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {platform.node()}, "
                  f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}; Chromium headless 390x844; "
                  f"{server.describe()}")
            shell = shell_bytes()
            print(f"shell the service worker fetches on its install (after the first load): {shell / 1024:.1f} KB")
            verdicts: list[str] = []
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)
                try:
                    for name, profile in profiles.items():
                        print(f"\n{name}: {profile['downloadThroughput'] * 8 / 1000:.0f} kbit/s down, "
                              f"{profile['latency']:.0f} ms round trip")
                        print(f"  {'page':<14} {'cold KB':>8} {'paint s':>8} {'usable s':>9} | "
                              f"{'warm KB':>8} {'paint s':>8} {'usable s':>9}")
                        for label, url, primary in pages:
                            phone = Phone(browser, base, cookies, profile, save_data=True)
                            try:
                                cold = phone.visit(url, primary)
                                warm = phone.visit(url, primary)
                            finally:
                                phone.close()
                            print(f"  {label:<14} {cold[0] / 1024:8.1f} {cold[1]:8.2f} {cold[2]:9.2f} | "
                                  f"{warm[0] / 1024:8.1f} {warm[1]:8.2f} {warm[2]:9.2f}")
                            if label == "match":
                                first_kb = (cold[0] + shell) / 1024
                                if name == "slow 3G":
                                    verdicts.append(f"{verdict(cold[2] < GOAL_COLD_S)}  match page usable cold on "
                                                    f"slow 3G in {cold[2]:.2f} s (goal < {GOAL_COLD_S:g} s)")
                                    verdicts.append(f"{verdict(warm[2] < GOAL_WARM_S)}  match page usable warm on "
                                                    f"slow 3G in {warm[2]:.2f} s (goal < {GOAL_WARM_S:g} s)")
                                    verdicts.append(f"{verdict(first_kb <= GOAL_FIRST_KB)}  match page's first "
                                                    f"visit {first_kb:.1f} KB on the wire with the shell "
                                                    f"(goal <= {GOAL_FIRST_KB} KB)")
                        wire, cold_s, warm_s = engine(browser, base, cookies, profile, f"/matches/{match['id']}")
                        print(f"  offline engine: {wire / 1e6:.2f} MB on the wire; first answer cold (fetched, "
                              f"started, asked) {cold_s:.1f} s, warm (from the phone's cache) {warm_s:.1f} s")
                        if not any("engine" in v for v in verdicts):
                            verdicts.append(f"{verdict(wire / 1e6 <= GOAL_ENGINE_MB)}  offline engine "
                                            f"{wire / 1e6:.2f} MB on the wire (goal <= {GOAL_ENGINE_MB:g} MB)")
                finally:
                    browser.close()
            print("\nthe offline engine's start (bench/engine_start.py, issue 49): network not throttled")
            verdicts += engine_start.report(base, path)  # (after the pages' Playwright: one driver at a time)
            print()
            for line in verdicts:
                print(line)
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
