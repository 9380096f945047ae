"""Every reader of a token counts wrong ones: sheets' ``?view=``, a night's ``group_token`` (issue 25.2).

One rights check (``referee/rights.py``) for the API, the pages, the sheets
and the group links: a wrong token is counted for the address, and after
``TOKEN_FAILURES`` wrong ones every reader of a token answers 429 to a wrong
token (a right one still opens, issue 44.5), on SQLite and PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from referee.ledger.rights import Right, token_access
from tests.conftest import make_app
from tests.web.helpers import Api

LIMIT = 3


def _setup(backend: str, tmp_path: Path) -> tuple[Any, Any, dict[str, Any], int]:
    app = make_app(backend, tmp_path, TOKEN_FAILURES=LIMIT, TOKEN_WINDOW=60)
    client = app.test_client()
    api = Api(client)
    night = api.new_night(["Anna", "Bo"])
    match = api.new_match("kul", ["Anna", "Bo"], stake="1.00")
    return app, client, night, match["id"]


def _sheets(night: dict[str, Any], match_id: int, token: str) -> list[str]:
    return [f"/nights/{night['id']}/settlement.pdf?view={token}", f"/matches/{match_id}/protocol.pdf?view={token}",
            f"/nights/{night['id']}/export.csv?view={token}"]


@pytest.mark.parametrize("sheet", [0, 1, 2])
def test_a_wrong_view_token_on_a_sheet_is_counted(backend: str, tmp_path: Path, sheet: int) -> None:
    app, client, night, match_id = _setup(backend, tmp_path)
    addr = {"REMOTE_ADDR": "10.9.9.9"}
    wrong = _sheets(night, match_id, "wrong-token-guess")[sheet]
    for _ in range(LIMIT):
        assert client.get(wrong, environ_overrides=addr).status_code == 403
    blocked = client.get(wrong, environ_overrides=addr)
    assert blocked.status_code == 429 and int(blocked.headers["Retry-After"]) > 0
    # wrong tokens blocked for every token reader of that address; the right token still opens (issue 44.5)
    right = _sheets(night, match_id, night["view_token"])[sheet]
    assert client.get(right, environ_overrides=addr).status_code == 200
    assert client.get(f"/api/nights/{night['id']}?view={night['view_token']}",
                      environ_overrides=addr).status_code == 200
    assert client.get(f"/api/nights/{night['id']}?view=another-guess", environ_overrides=addr).status_code == 429
    assert client.get(right, environ_overrides={"REMOTE_ADDR": "10.9.9.10"}).status_code == 200
    with app.app_context():
        from referee.models import db

        db.engine.dispose()


def test_a_wrong_group_token_on_a_new_night_is_counted(backend: str, tmp_path: Path) -> None:
    app, client, night, _match_id = _setup(backend, tmp_path)
    addr = {"REMOTE_ADDR": "10.8.8.8"}
    body = {"name": "Next", "currency": "SEK", "players": ["Anna", "Bo"], "group_token": "wrong-group-guess"}
    for _ in range(LIMIT):
        assert client.post("/api/nights", json=body, environ_overrides=addr).status_code == 404
    assert client.post("/api/nights", json=body, environ_overrides=addr).status_code == 429
    good = body | {"group_token": night["group_token"]}
    assert client.post("/api/nights", json=good, environ_overrides=addr).status_code == 201  # issue 44.5
    assert client.post("/api/nights", json=good, environ_overrides={"REMOTE_ADDR": "10.8.8.9"}).status_code == 201
    # the page's form counts the same way
    page = client.post("/nights/new", data={"name": "Page", "currency": "SEK", "players": "Anna\nBo",
                                            "group_token": "wrong-group-guess"},
                       environ_overrides={"REMOTE_ADDR": "10.8.8.7"})
    assert page.status_code == 200 and "No group has that token" in page.get_data(as_text=True)
    with app.app_context():
        from referee.models import db

        db.engine.dispose()


def test_token_right_is_edit_view_or_none(app: Any) -> None:
    with app.app_context():
        api = Api(app.test_client())
        night = api.new_night(["Anna", "Bo"])
        from referee import ledger

        nt = ledger.get_night(night["id"])
        assert token_access(nt, night["edit_token"]).right is Right.EDIT
        assert token_access(nt, night["view_token"]).right is Right.VIEW
        assert token_access(nt, night["group_token"]).right is Right.NONE


def test_a_page_says_429_in_the_phones_language(backend: str, tmp_path: Path) -> None:
    """Too many wrong links on a page: 429 with ``Retry-After`` and the sentence in the phone's language.

    The ledger raises :class:`referee.ledger.rights.TooManyWrong` with a template and the wait (it calls no
    Flask-Babel, issue 48.1); ``referee/errors.py`` translates it for the page.
    """
    _app, client, _night, _match_id = _setup(backend, tmp_path)
    addr = {"REMOTE_ADDR": "10.9.9.12"}
    client.get("/lang/sv")
    for n in range(LIMIT):
        assert client.get(f"/e/wrong-link-{n}", environ_overrides=addr).status_code == 404
    blocked = client.get("/e/wrong-link-again", environ_overrides=addr)
    wait = int(blocked.headers["Retry-After"])
    assert blocked.status_code == 429 and wait > 0
    assert f"felaktiga länkar från den här telefonen; försök igen om {wait} sekunder" in blocked.get_data(as_text=True)
