"""One rights check with room for a right limited to one match (issue 27, step "rights").

:func:`referee.ledger.rights.night_access` answers every door with an
:class:`~referee.ledger.rights.Access`: a right on the night and, for a right
limited to one match (the table token to come), that match. These tests pin
what such a right may do, and that every door asks with the match a write is
for: the API's match writes, the pages' match forms, and neither lets it
write to the night itself. No door may compare rights on its own.
"""

from __future__ import annotations

from typing import Any

import pytest

from referee.ledger import rights
from referee.ledger.rights import Access, Right
from tests.web.helpers import Api
from tests.web.test_pages import create_match, create_night, round_form


def test_access_may_view_and_edit() -> None:
    assert not Access().may_view() and not Access().may_edit()
    view = Access(Right.VIEW)
    assert view.may_view() and not view.may_edit() and not view.may_edit(7)
    night = Access(Right.EDIT)
    assert night.may_view() and night.may_edit() and night.may_edit(7)
    table = Access(Right.EDIT, match_id=7)
    assert table.may_view() and table.may_edit(7)
    assert not table.may_edit(8) and not table.may_edit()  # another match, or the night itself
    assert not Access(Right.VIEW, match_id=7).may_edit(7)


def test_the_better_access_wins() -> None:
    ranked = sorted([Access(Right.EDIT), Access(Right.VIEW), Access(Right.EDIT, match_id=3), Access()],
                    key=Access.rank)
    assert ranked == [Access(), Access(Right.VIEW), Access(Right.EDIT, match_id=3), Access(Right.EDIT)]


def test_night_access_reads_the_phone_then_the_token(app: Any) -> None:
    client = app.test_client()
    api = Api(client)
    night = api.new_night(["Anna", "Bo"])
    with app.test_request_context("/"):
        from flask import session

        from referee import ledger
        from referee.web.caller import caller

        nt = ledger.get_night(night["id"])
        assert rights.night_access(nt, None, caller(), grants=session) == Access()
        assert rights.night_access(nt, night["view_token"], caller(), grants=session) == Access(Right.VIEW)
        session["view"] = [nt.id]
        assert rights.night_access(nt, None, caller(), grants=session) == Access(Right.VIEW)
        assert rights.night_access(nt, None, caller(), grants=None) == Access()  # the API reads no phone grants
        assert rights.night_access(nt, night["edit_token"], caller(), grants=session) == Access(Right.EDIT)
        assert rights.night_access(nt, "wrong-token", caller(), grants=session) == Access(Right.VIEW)


def _limit_to(monkeypatch: pytest.MonkeyPatch, match_id: int) -> None:
    """Every request now holds edit on match ``match_id`` only (as a table token will give)."""
    monkeypatch.setattr(rights, "night_access", lambda _night, _token, _caller, *, grants: Access(Right.EDIT, match_id))


def test_api_doors_ask_with_the_match(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    api = Api(client)
    night = api.new_night(["Anna", "Bo", "Cia"])
    mine = api.new_match("kul", ["Anna", "Bo", "Cia"], stake="1.00")["id"]
    other = api.new_match("kul", ["Anna", "Bo", "Cia"], stake="1.00")["id"]
    _limit_to(monkeypatch, mine)
    assert api.round(mine, {"last_trick": "Anna"})[0] == 201
    assert api.call("POST", f"/api/matches/{mine}/rounds/1/void", {"reason": "slip"})[0] == 200
    assert api.round(other, {"last_trick": "Anna"})[0] == 403
    assert api.call("POST", f"/api/matches/{other}/close", {"pot": "split"})[0] == 403
    assert api.call("GET", f"/api/matches/{other}")[0] == 200  # reading the night stays allowed
    assert api.call("GET", f"/api/nights/{night['id']}")[0] == 200
    new = {"game": "kul", "players": ["Anna", "Bo"], "dealer": "Anna"}
    assert api.call("POST", f"/api/nights/{night['id']}/matches", new)[0] == 403  # the night itself
    assert api.call("POST", f"/api/nights/{night['id']}/players", {"name": "Dan"})[0] == 403


def test_page_doors_ask_with_the_match(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    night_id = create_night(client)
    mine = create_match(client, night_id, game="kul", stake="1.00")
    other = create_match(client, night_id, game="kul", stake="1.00")
    forms = {m: round_form(client, m) | {"last_trick": "Anna"} for m in (mine, other)}  # while it may edit all
    _limit_to(monkeypatch, mine)
    assert client.post(f"/matches/{other}/rounds", data=forms[other]).status_code == 403
    assert client.post(f"/matches/{mine}/rounds", data=forms[mine]).status_code == 302
    assert client.get(f"/matches/{other}").status_code == 200
    assert client.post(f"/nights/{night_id}/players", data={"name": "Eva"}).status_code == 403
