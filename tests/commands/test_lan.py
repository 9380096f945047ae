"""``make run LAN=1``: the phones at the table open what the terminal prints, or scan its QR code (issue 44.1).

The real command runs: the Makefile's ``run`` recipe (the database migrated into a temporary SQLite file,
gunicorn bound as the LAN step binds it, on a free port), with the preparation steps that ``make test`` has
already done marked as done (``-o``). What it prints is read back as a phone would: the address as text, and
the terminal's QR code turned back into an image, module by module from segno's half blocks, and read by
zbarimg (Debian zbar-tools). Then the printed URL is fetched: with this machine's network address, not
127.0.0.1 (a machine with no network skips that part and says so).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from PIL import Image

from tests.components import free_port, missing

ROOT = Path(__file__).resolve().parents[2]

#: segno's compact terminal drawing: each character is two modules, top and bottom (1: dark). A dark module is
#: the terminal's background (a space), a light one its text colour (a block), as ``write_terminal_compact``.
HALF_BLOCKS = {" ": (1, 1), "\u2580": (0, 1), "\u2584": (1, 0), "\u2588": (0, 0)}

URL = re.compile(r"http://\S+/")

#: The preparation steps of ``make run`` that ``make test`` has already done: not redone here.
PREPARED = (".venv/.installed", "translations", "browser-engine", "api-docs", "static-compressed")


def printed_code(text: str) -> list[list[int]]:
    """The QR code's modules from the printed lines made only of half blocks (1: dark)."""
    rows: list[list[int]] = []
    for line in text.splitlines():
        if len(line) > 20 and set(line) <= HALF_BLOCKS.keys():
            pairs = [HALF_BLOCKS[char] for char in line]
            rows += [[top for top, _ in pairs], [bottom for _, bottom in pairs]]
    assert rows, f"no QR code in the printed lines:\n{text}"
    return rows


def scan(rows: list[list[int]], where: Path) -> str:
    """What zbarimg reads from the modules drawn as an image (8 pixels a module, black on white)."""
    zbarimg = shutil.which("zbarimg")
    if zbarimg is None:
        missing("zbarimg (Debian zbar-tools)")
    scale, margin = 8, 4
    image = Image.new("L", ((len(rows[0]) + 2 * margin) * scale, (len(rows) + 2 * margin) * scale), 255)
    for y, row in enumerate(rows):
        for x, dark in enumerate(row):
            if dark:
                left, top = (x + margin) * scale, (y + margin) * scale
                image.paste(0, (left, top, left + scale, top + scale))
    path = where / "printed-code.png"
    image.save(path)
    found = subprocess.run([str(zbarimg), "--quiet", "--raw", str(path)], capture_output=True, text=True,
                           timeout=60)
    assert found.returncode == 0, f"zbarimg read no code: {found.stderr}"
    return found.stdout.strip()


def _no_proxy() -> urllib.request.OpenerDirector:
    return urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _get(url: str, deadline: float) -> tuple[int, str]:
    """The first answer of the server at ``url`` (it is still booting at first)."""
    while True:
        try:
            with _no_proxy().open(urllib.request.Request(url, headers={"Accept-Language": "en"}), timeout=10) as r:
                return r.status, r.read().decode()
        except (urllib.error.URLError, ConnectionError) as error:
            if time.monotonic() > deadline:
                raise AssertionError(f"{url} did not answer: {error}") from None
            time.sleep(0.3)


class Served:
    """``make run`` in its own process group; its standard output collected as it comes."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.process = subprocess.Popen(["make", "--no-print-directory", *args], cwd=ROOT, env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        start_new_session=True)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)

    def text(self) -> str:
        return "".join(self.lines)

    def wait_for(self, pattern: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while pattern not in self.text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} not printed; the output:\n{self.text()}")
            time.sleep(0.1)
        return self.text()

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self._reader.join(timeout=10)


def _env(tmp_path: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("HOST", "PORT", "LAN", "MAKEFLAGS")}
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'lan.sqlite3'}", SECRET_KEY="lan-test", LIVE_STREAMS="4")
    return env


def test_make_run_lan_prints_the_address_and_code_it_serves(tmp_path: Path) -> None:
    port = free_port()
    prepared = [arg for step in PREPARED for arg in ("-o", step)]
    server = Served([*prepared, "run", "LAN=1", f"PORT={port}", "WORKERS=1", "THREADS=8"], _env(tmp_path))
    try:
        printed = server.wait_for("Ctrl-C", timeout=120)
        urls = URL.findall(printed)
        assert urls, printed
        url = urls[0]
        assert url.endswith(f":{port}/")
        assert scan(printed_code(printed), tmp_path) == url
        host = url.removeprefix("http://").rsplit(":", 1)[0]
        with socket.socket() as own:  # binds only if the address is this machine's own
            own.bind((host, 0))
        assert "Anyone on this network can open the start page" in printed
        if host == "127.0.0.1":
            pytest.skip("this machine has no network address: the printed URL is 127.0.0.1, not fetched")
        status, page = _get(url, deadline=time.monotonic() + 120)
        assert status == 200
        assert "New night" in page
    finally:
        server.stop()


def test_only_lan_binds_every_interface() -> None:
    """``make run`` stays on 127.0.0.1 and prints no address; ``LAN=1`` binds every interface and prints it."""
    env = {key: value for key, value in os.environ.items() if key not in ("HOST", "PORT", "LAN", "MAKEFLAGS")}
    prepared = [arg for step in PREPARED for arg in ("-o", step)]

    def commands(*extra: str) -> str:
        return subprocess.run(["make", "--no-print-directory", "-n", *prepared, "run", *extra], cwd=ROOT, env=env,
                              capture_output=True, text=True, check=True, timeout=60).stdout

    default, lan = commands(), commands("LAN=1")
    assert "--bind 127.0.0.1:5000 " in default and "referee.lan" not in default
    assert "--bind 0.0.0.0:5000 " in lan and "-m referee.lan --host 0.0.0.0 --port 5000\n" in lan
