"""No token in any log line, and no private page in a cache (issue 18).

A real gunicorn (the ``--logger-class`` of ``make run``, debug level so that
the error log carries request lines too) serves edit and view links, the
``?view=`` query and bearer-token API calls on SQLite and PostgreSQL; its
access and error logs are then read: no token may appear, and the redaction
mark must (so the test sees the requests it checks).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from referee.logs import MARK, redact
from tests.components import free_port
from tests.web.helpers import Api

ROOT = Path(__file__).resolve().parents[2]


def test_redact_covers_links_query_and_bearer() -> None:
    tok = "AbC-123_xyzXYZ0987654321abcdefgh"
    line = f'127.0.0.1 "GET /e/{tok} HTTP/1.1" /v/{tok}?x=1 /api/nights/1?view={tok}&a=b Authorization: Bearer {tok}'
    clean = redact(line)
    assert tok not in clean
    assert clean.count(MARK) == 4
    assert redact("GET /nights/7 HTTP/1.1") == "GET /nights/7 HTTP/1.1"  # nothing else is touched


def _encoded(token: str) -> str:
    """``token`` with its first character percent-encoded: the same link to the server, other text in a log."""
    return f"%{ord(token[0]):02X}{token[1:]}"


def test_redact_decodes_before_looking() -> None:
    """Issue 25.4: a percent-encoded token works as a link, so it must not reach the log either."""
    tok = "pOdP-123_xyzXYZ0987654321abcdefgh"
    for line in (f"GET /e/{_encoded(tok)} HTTP/1.1", f"GET /groups/{_encoded(tok)}", f"/api/nights/1?%76iew={tok}",
                 f"/lang/en?next=%2Fe%2F{tok}", f"/lang/en?next=%252Fv%252F{tok}",
                 f"/lang/en?next=%2Fnights%2F1%2Fexport.csv%3Fview%3D{tok}", f"/v/{tok} and /e/{_encoded(tok)}"):
        clean = redact(line)
        assert tok not in clean and tok[1:] not in clean, line
        assert MARK in clean, line
    assert redact("GET /nights/7?q=%C3%A4 HTTP/1.1") == "GET /nights/7?q=%C3%A4 HTTP/1.1"  # no token: left as sent


def _serve(url: str, tmp: Path) -> tuple[subprocess.Popen[bytes], int, Path, Path]:
    env = {**os.environ, "DATABASE_URL": url, "SECRET_KEY": "log-test", "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-m", "flask", "--app", "referee", "init-db"], env=env, cwd=ROOT, check=True,
                   capture_output=True)
    port = free_port()
    access, error = tmp / "access.log", tmp / "error.log"
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "--workers", "1", "--bind", f"127.0.0.1:{port}",
                             "--access-logfile", str(access), "--error-logfile", str(error), "--log-level", "debug",
                             "--logger-class", "referee.logs.GunicornLogger", "referee:create_app()"],
                            env=env, cwd=ROOT)
    deadline = time.time() + 30
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read()
            return proc, port, access, error
        except OSError:
            if time.time() > deadline:
                proc.kill()
                raise
            time.sleep(0.2)


def test_no_token_in_gunicorn_logs(backend: str, tmp_path: Path) -> None:
    proc, port, access, error = _serve(backend, tmp_path)
    base = f"http://127.0.0.1:{port}"
    try:
        night = _json(urllib.request.Request(f"{base}/api/nights", method="POST", data=b'{"name": "Log", '
                                             b'"currency": "SEK", "players": ["Anna", "Bo"]}',
                                             headers={"Content-Type": "application/json"}))
        edit, view = night["edit_token"], night["view_token"]
        phone = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())  # keeps the session cookie
        for path in (f"/e/{edit}", f"/v/{view}", f"/api/nights/{night['id']}?view={view}",
                     f"/nights/{night['id']}/settlement.pdf?view={view}",
                     # percent-encoded, the same links to the server (issue 25.4)
                     f"/e/{_encoded(edit)}", f"/groups/{_encoded(night['group_token'])}",
                     f"/api/nights/{night['id']}?%76iew={view}", f"/lang/en?next=%2Fv%2F{view}"):
            assert phone.open(base + path, timeout=10).status == 200, path
        _json(urllib.request.Request(f"{base}/api/nights/{night['id']}",
                                     headers={"Authorization": f"Bearer {edit}"}))
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    logs = access.read_text() + error.read_text()
    assert edit not in logs and view not in logs
    assert edit[1:] not in logs and view[1:] not in logs and night["group_token"][1:] not in logs
    assert access.read_text().count(MARK) >= 4  # the token-bearing requests were logged, redacted
    assert "/e/" + MARK in access.read_text()


def _json(req: urllib.request.Request) -> Any:
    import json

    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def test_private_answers_are_not_cached_and_static_files_are(client: Any) -> None:
    api = Api(client)
    night = api.new_night(["Anna", "Bo"])
    for path in ("/", f"/nights/{night['id']}", f"/api/nights/{night['id']}?view={night['view_token']}",
                 f"/nights/{night['id']}/settlement.pdf?view={night['view_token']}"):
        resp = client.get(path)
        assert resp.headers["Cache-Control"] == "private, no-store", path
    page = client.get("/").get_data(as_text=True)
    css = next(part.split('"')[0] for part in page.split('href="')[1:] if part.startswith("/static/css/app.css"))
    assert "?v=" in css  # a versioned name
    resp = client.get(css)
    assert resp.status_code == 200 and "max-age=31536000" in resp.headers["Cache-Control"]
    assert "immutable" in resp.headers["Cache-Control"]


