"""The offline engine's first answer as a phone feels it (issue 49): from a snapshot, from a normal start, cold.

Run from the repository root: ``.venv/bin/python bench/engine_start.py`` (a few minutes; ``bench/phone.py``
runs it too, after its pages). Needs root for the CPU limit (else the 4x rows say "not measured").

The app runs under gunicorn as ``make run`` does (``bench/serve.py``). Headless Debian Chromium at 390x844,
the network not throttled (the engine's files are on the phone or on the LAN): what is measured is CPU.

- **cold**: a new browser profile, nothing kept: the files fetched, Pyodide started, the engine imported;
- **warm, normal start**: the files in the HTTP cache, no snapshot kept (what every page paid before issue 49);
- **warm, snapshot**: the files in the HTTP cache, the worker resumes the snapshot the first start kept.

Each is the first answer to a question (``knaker/play``) on a new page, split into the worker's phases
(``RefereeEngine.started.phases``, measured in the worker): ``script`` (pyodide.mjs), ``snapshot_read`` (Cache
Storage and gunzip), ``pyodide`` (loadPyodide: WebAssembly compile, CPython's start or the snapshot's resume),
``bundle`` (the engine bundle fetched and unpacked), ``import`` (the engine imported), ``answer``.

CPU 4x: DevTools' ``Emulation.setCPUThrottlingRate`` is refused for workers by Chromium ("Operation is only
supported for pages, not workers"), and the engine runs in a worker. So the whole browser runs in a cgroup
(v1 ``cpu`` controller) with a quarter of one core (``cpu.cfs_quota_us`` 25000 of 100000), the 1x rows in a
cgroup of its own with no quota: both apart from the rest of the machine's processes by their CPU shares.

Then the leader's page (issue 49.2): a phone that holds the engine starts it in idle time after the page's
load; with no network, the time from the tap on Save to the round checked and waiting in the queue.

Goals (issue 49): first answer warm <= 0.5 s at 1x and <= 1.5 s at 4x; the first offline round checked within
0.3 s of Save when the engine was started in idle time. PASS/MISS. A benchmark, not a test: always exits 0.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from serve import HOST, Server, verdict  # noqa: E402

PHONE = {"width": 390, "height": 844}
GOAL_WARM_S = {1: 0.5, 4: 1.5}
GOAL_ROUND_S = 0.3
CGROUP = Path("/sys/fs/cgroup/cpu")
QUESTION = "() => RefereeEngine.ask('knaker/play', {pile: ['9H'], lays: [['4D']]}, 'sv').then(a => a.ms)"
PHASES = ("script", "snapshot_read", "pyodide", "bundle", "import")


@contextlib.contextmanager
def cpu_share(rate: int) -> Iterator[bool]:
    """While inside, processes this one starts run in a cgroup with 1/rate of one core (rate 1: no quota).

    Yields whether the limit is in place (root and a writable cgroup v1 ``cpu`` controller).
    """
    group = CGROUP / f"referee-bench-{os.getpid()}-{rate}x"
    try:
        group.mkdir()
        (group / "cpu.cfs_quota_us").write_text("-1" if rate == 1 else str(100_000 // rate))
        (group / "cgroup.procs").write_text(str(os.getpid()))
    except OSError:
        yield False
        return
    try:
        yield True
    finally:
        (CGROUP / "cgroup.procs").write_text(str(os.getpid()))


def drop_group(rate: int) -> None:
    group = CGROUP / f"referee-bench-{os.getpid()}-{rate}x"
    with contextlib.suppress(OSError):
        for pid in (group / "cgroup.procs").read_text().split():
            (CGROUP / "cgroup.procs").write_text(pid)
        group.rmdir()


def first_answer(page: Any, base: str) -> dict[str, Any]:
    """A new page's engine, asked once: how it started, its phases and the answer's time (ms)."""
    page.goto(base + "/referee/knaker")
    page.wait_for_function("() => window.RefereeEngine !== undefined")
    answer_ms = page.evaluate(QUESTION)
    started = page.evaluate("() => RefereeEngine.started")
    phases = {k: float(started["phases"].get(k, 0)) for k in PHASES} | {"answer": float(answer_ms)}
    return {"from": started["from"], "phases": phases, "total": sum(phases.values())}


def kept(page: Any) -> None:
    page.wait_for_function("() => RefereeEngine.snapshot !== null", timeout=180_000)


def starts(browser: Any, base: str) -> dict[str, dict[str, Any]]:
    """cold, warm normal, warm snapshot: each a first answer on a new page of the same phone."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="sv-SE")
    try:
        page = context.new_page()
        page.set_default_timeout(180_000)
        out = {"cold": first_answer(page, base)}
        kept(page)
        page.evaluate("() => caches.delete('referee-engine-snapshot')")
        out["warm, normal start"] = first_answer(page, base)
        kept(page)
        out["warm, snapshot"] = first_answer(page, base)
        return out
    finally:
        context.close()


def idle_round(browser: Any, base: str) -> tuple[float, str]:
    """Seconds from the tap on Save (no network) to the round checked and queued, the engine started in idle."""
    from tests.browser.test_offline_queue import night_and_match, open_controlled, queue, save_round

    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="sv-SE")
    try:
        page = context.new_page()
        page.set_default_timeout(180_000)
        night, match = night_and_match(base)
        open_controlled(page, base, night, match)
        page.wait_for_function("() => Promise.all(RefereeEngine.files.map(u => caches.match(u)))"
                               ".then(rs => rs.every(Boolean))", polling=500)
        for _ in range(2):  # a page of a phone that holds the engine: started in idle time (the first time
            page.reload()   # normally, keeping its snapshot; the second from it, as every later page)
            page.wait_for_function("() => window.RefereeEngine && RefereeEngine.started !== null", polling=100)
            if page.evaluate("() => RefereeEngine.started.from") == "normal":
                kept(page)
        how = page.evaluate("() => RefereeEngine.started.from")
        page.context.set_offline(True)
        start = time.perf_counter()
        save_round(page, [("Dan", 1), ("Bo", 2)])
        page.wait_for_function("() => document.querySelectorAll('#offline-entries li.pending').length > 0",
                               polling="raf")
        seconds = time.perf_counter() - start
        entry = queue(page)[0]
        assert entry.get("after"), entry  # checked by the engine, not waved on
        return seconds, how
    finally:
        context.close()



def report(base: str, path: str) -> list[str]:
    """Print the table; the verdict lines. Each rate gets its own Playwright driver and browser, started inside
    :func:`cpu_share`: the browser is the driver's child, so the driver must be started in the cgroup too."""
    from playwright.sync_api import sync_playwright

    from tests.components import CHROMIUM_ARGS

    verdicts: list[str] = []
    print(f"\n  {'CPU':<4} {'start':<19} {'first answer s':>14}   phases ms: "
          + " ".join(f"{p:>9}" for p in (*PHASES, "answer")))
    for rate in (1, 4):
        with cpu_share(rate) as limited:
            if not limited and rate != 1:
                print(f"  {rate}x   not measured (the CPU limit needs root and a cgroup v1 cpu controller)")
                continue
            pw = sync_playwright().start()
            browser = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)
        try:
            rows = starts(browser, base)
            for label, row in rows.items():
                print(f"  {rate}x   {label:<19} {row['total'] / 1000:14.2f}   {'':10}"
                      + " ".join(f"{row['phases'][p]:9.0f}" for p in (*PHASES, "answer"))
                      + ("" if row["from"] in label or label == "cold" else f"  (from {row['from']}!)"))
            warm = rows["warm, snapshot"]["total"] / 1000
            verdicts.append(f"{verdict(warm <= GOAL_WARM_S[rate] and rows['warm, snapshot']['from'] == 'snapshot')}"
                            f"  engine's first answer warm at {rate}x CPU: {warm:.2f} s "
                            f"(goal <= {GOAL_WARM_S[rate]:g} s)")
            seconds, how = idle_round(browser, base)
            print(f"  {rate}x   leader's page, engine started in idle time ({how}): round checked and queued "
                  f"{seconds:.2f} s after Save, offline")
            if rate == 1:
                verdicts.append(f"{verdict(seconds <= GOAL_ROUND_S)}  first offline round checked {seconds:.2f} s "
                                f"after Save, engine started in idle time (goal <= {GOAL_ROUND_S:g} s)")
        finally:
            browser.close()
            pw.stop()
            drop_group(rate)
    return verdicts


def main() -> int:
    from tests.components import chromium_path

    path = chromium_path()
    if path is None:
        print("chromium not found (Debian package chromium): nothing measured")
        return 0
    with tempfile.TemporaryDirectory(prefix="referee-bench-engine-") as tmp:
        server = Server(Path(tmp), workers=2, threads=8)
        server.start()
        base = f"http://{HOST}:{server.port}"
        try:
            print(f"Engine start benchmark, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
                  f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}; Chromium headless 390x844; "
                  f"{server.describe()}")
            verdicts = report(base, path)
            print()
            for line in verdicts:
                print(line)
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
