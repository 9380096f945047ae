"""No token in any log line, and no private page in a cache (issue 18, 45.1).

Every route of the app that takes a token is redacted, found in its
``url_map`` (a route added later is checked too). A real gunicorn (started as
``make run`` starts it, with ``gunicorn.conf.py``'s hook and no
``--logger-class``, debug level so that the error log carries request lines
too) serves edit, view, group and table links, the ``?view=`` query and
bearer-token API calls on SQLite and PostgreSQL; its access and error logs are
then read: no token may appear, and the redaction mark must (so the test sees
the requests it checks). The check every test's server logs get
(``tests/components.py``, ``log_leaks``) is tested here too.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from referee.logs import MARK, TOKEN_ARGUMENT, redact, token_rules
from tests.components import database_tokens, free_port, log_leaks, unchecked_log_leaks, watch_log
from tests.conftest import make_app
from tests.web.helpers import Api

ROOT = Path(__file__).resolve().parents[2]

#: The route arguments that are not credentials. A new argument name fails
#: :func:`test_every_route_argument_is_a_token_or_known_not_to_be` until it is put here or named ``*token``.
NOT_TOKENS = {"night_id", "match_id", "payment_id", "seq", "tournament_id", "number", "name", "code", "game",
              "filename"}


@pytest.fixture(scope="module")
def url_map(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The app's routes; building the app also teaches this process's redaction its token routes."""
    tmp = tmp_path_factory.mktemp("routes")
    return make_app(f"sqlite:///{tmp / 'routes.sqlite3'}", tmp).url_map


def test_every_route_argument_is_a_token_or_known_not_to_be(url_map: Any) -> None:
    names = {name for rule in url_map.iter_rules() for name in rule.arguments}
    tokens = {name for name in names if TOKEN_ARGUMENT.fullmatch(name)}
    assert names - tokens - NOT_TOKENS == set(), "a new route argument: a token (name it *token) or not?"
    assert tokens == {"token", "group_token"}


def _example(rule: str, token: str) -> str:
    """A path of ``rule``: ``token`` for its token, 7 for a number, ``x`` for anything else."""
    def value(arg: re.Match[str]) -> str:
        return token if TOKEN_ARGUMENT.fullmatch(arg.group(2)) else "7" if arg.group(1) == "int:" else "x"

    return re.sub(r"<([^<>:]+:)?(\w+)>", value, rule)


def test_every_token_route_is_redacted_plain_and_percent_encoded(url_map: Any) -> None:
    """Issue 45.1: ``/t/<table token>`` was left out of a hand-written list; now each route that takes a token
    is redacted, found in the url_map, in the request line, the referer and ``/lang``'s ``next``."""
    tok = "tAbLe-123_xyzXYZ0987654321abcdef"
    rules = token_rules(url_map)
    assert {"/e/<token>", "/v/<token>", "/t/<token>", "/groups/<group_token>", "/api/groups/<group_token>",
            "/groups/<group_token>/season.pdf"} <= set(rules)
    for rule in rules:
        plain, encoded = _example(rule, tok), _example(rule, _encoded(tok))
        for line in (f'10.0.0.1 - - "GET {plain} HTTP/1.1" 302 "https://club.example{plain}"',
                     f'"GET {encoded} HTTP/1.1" 404', f'"GET /lang/sv?next={quote(plain, safe="")} HTTP/1.1" 302',
                     f"Error handling request {plain}"):
            clean = redact(line)
            assert tok not in clean and tok[1:] not in clean and MARK in clean, (rule, line, clean)
            assert not log_leaks(clean), (rule, clean)


def test_redact_covers_links_query_and_bearer(url_map: Any) -> None:
    tok = "AbC-123_xyzXYZ0987654321abcdefgh"
    line = (f'127.0.0.1 "GET /e/{tok} HTTP/1.1" /v/{tok}?x=1 /api/nights/1?view={tok}&a=b Authorization: Bearer {tok}'
            f" /t/{tok}")
    clean = redact(line)
    assert tok not in clean
    assert clean.count(MARK) == 5
    assert redact("GET /nights/7 HTTP/1.1") == "GET /nights/7 HTTP/1.1"  # nothing else is touched


def test_the_server_log_check_finds_tokens_and_tracebacks(url_map: Any, tmp_path: Path) -> None:
    """What every test's real servers' logs are checked with (``tests/conftest.py``): it finds a token after
    any token route, plain or percent-encoded, a token of the server's database anywhere, and a traceback."""
    tok = "tAbLe-123_xyzXYZ0987654321abcdef"
    for line in (f'"GET /t/{tok} HTTP/1.1" 302', f'"GET /t/{_encoded(tok)} HTTP/1.1" 302', f"/groups/{tok}/season.pdf",
                 f"/lang/en?next=%252Fe%252F{tok}", f"?view={tok}", f"Authorization: bearer {tok}",
                 "Traceback (most recent call last):", f"GET /api/groups/{tok}"):
        assert log_leaks(f"ok line\n{line}\nok") == [line], line
    assert log_leaks(f'"GET /t/{MARK} HTTP/1.1" 302\n"GET /nights/7?view={MARK} HTTP/1.1" 200') == []
    app = make_app(f"sqlite:///{tmp_path / 'tokens.sqlite3'}", tmp_path)
    night = Api(app.test_client()).new_night(["Anna", "Bo"])
    url = app.config["SQLALCHEMY_DATABASE_URI"]
    assert {night["edit_token"], night["view_token"], night["group_token"]} <= database_tokens(url)
    log = tmp_path / "server.log"
    log.write_text(f"a token where no route would put it: {night['view_token']}\nthe next line is not whole: ")
    watch_log(log, url)
    assert unchecked_log_leaks() == [f"{log}: a token where no route would put it: {night['view_token']}"]
    log.write_text(log.read_text() + "/e/secret\n")
    assert unchecked_log_leaks() == [f"{log}: the next line is not whole: /e/secret"]  # from where it stopped
    assert unchecked_log_leaks() == []


def _encoded(token: str) -> str:
    """``token`` with its first character percent-encoded: the same link to the server, other text in a log."""
    return f"%{ord(token[0]):02X}{token[1:]}"


def test_redact_decodes_before_looking(url_map: Any) -> None:
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
    watch_log(access, url)
    watch_log(error, url)
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "--workers", "1", "--bind", f"127.0.0.1:{port}",
                             "--access-logfile", str(access), "--error-logfile", str(error), "--log-level", "debug",
                             "referee:create_app()"],  # gunicorn.conf.py's hook redacts, as in make run
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
        table = _json(urllib.request.Request(f"{base}/api/tournaments", method="POST", data=json.dumps(
            {"name": "Cup", "currency": "SEK", "game": "schwimmen", "players": ["A", "B", "C", "D", "E", "F"],
             "table_size": 3, "series": 1, "stake": "1.00"}).encode(),
            headers={"Content-Type": "application/json"}))["tables"][0]["table_token"]
        phone = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())  # keeps the session cookie
        for path in (f"/e/{edit}", f"/v/{view}", f"/api/nights/{night['id']}?view={view}",
                     f"/nights/{night['id']}/settlement.pdf?view={view}", f"/t/{table}",
                     f"/api/groups/{night['group_token']}",
                     # percent-encoded, the same links to the server (issue 25.4)
                     f"/e/{_encoded(edit)}", f"/groups/{_encoded(night['group_token'])}", f"/t/{_encoded(table)}",
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
    assert table[1:] not in logs
    assert access.read_text().count(MARK) >= 4  # the token-bearing requests were logged, redacted
    assert "/e/" + MARK in access.read_text() and "/t/" + MARK in access.read_text()
    assert log_leaks(logs, {edit, view, night["group_token"], table}) == []


def _json(req: urllib.request.Request) -> Any:
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


