"""The engine in the browser (Pyodide): download size, first load, warm start, one check.

Run from the repository root: ``.venv/bin/python bench/browser_engine.py``
(about half a minute; needs ``make browser-engine`` and Debian's chromium).

The app is served in this process (a threaded werkzeug server on loopback);
headless Chromium at 390×844 opens the Knaker referee page and loads the
engine: first in a fresh profile (every byte from the server), then again
in the same profile on a new page (the browser's cache, as a phone that has
been to the page before), then times one ``knaker/play`` check and one
Svängknack round check. A benchmark, not a test: it prints figures and
PASS/MISS against the goals and always exits 0.

Goals: the first page paint does not wait for the engine (it starts in a worker after the
page's ``load`` event, in idle time), one check < 50 ms.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from serve import verdict  # noqa: E402

from tests.components import CHROMIUM_ARGS, chromium_path, free_port  # noqa: E402
from tests.conftest import make_app  # noqa: E402

FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json",
         "referee_engine.zip")



def main() -> None:
    from playwright.sync_api import sync_playwright
    from werkzeug.serving import make_server

    static = ROOT / "static" / "pyodide"
    sizes = {name: (static / name).stat().st_size for name in FILES}
    total = sum(sizes.values())
    print(f"download: {total / 1e6:.1f} MB in all "
          f"(WebAssembly {sizes['pyodide.asm.wasm'] / 1e6:.1f} MB, standard library "
          f"{sizes['python_stdlib.zip'] / 1e6:.1f} MB, engine bundle {sizes['referee_engine.zip'] / 1e3:.0f} kB)")

    tmp = Path(tempfile.mkdtemp(prefix="referee-bench-"))
    app = make_app(f"sqlite:///{tmp}/b.sqlite3", tmp)
    port = free_port()
    server = make_server("127.0.0.1", port, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{port}/referee/knaker"
    path = chromium_path()
    if path is None:
        print("chromium missing: nothing measured")
        return
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)
        context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
        page = context.new_page()
        page.goto(url)
        painted = page.evaluate("performance.getEntriesByType('paint').map(e => e.startTime)")
        first = page.evaluate("RefereeEngine.load().then(() => RefereeEngine.loadMs)")
        page2 = context.new_page()
        page2.goto(url)
        warm = page2.evaluate("RefereeEngine.load().then(() => RefereeEngine.loadMs)")
        play = {"pile": ["5H", "5S", "5C"], "lays": [["5D"]]}
        times = [page2.evaluate("b => RefereeEngine.ask('knaker/play', b).then(a => a.ms)", play)
                 for _ in range(30)]
        trips = [page2.evaluate("b => { const t = performance.now(); "
                                "return RefereeEngine.ask('knaker/play', b).then(() => performance.now() - t); }", play)
                 for _ in range(30)]
        browser.close()
    server.shutdown()
    check = statistics.median(times)
    print(f"first paint: {min(painted):.0f} ms (the engine loads after it)" if painted else "first paint: n/a")
    print(f"first load (empty cache): {first / 1000:.2f} s")
    print(f"warm start (browser cache): {warm / 1000:.2f} s   ")
    trip = statistics.median(trips)
    print(f"one check (knaker/play, median of 30): {check:.1f} ms in the engine, {trip:.1f} ms from the page "
          f"and back   goal < 50 ms: {verdict(trip < 50)}")


if __name__ == "__main__":
    main()
