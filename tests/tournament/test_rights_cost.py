"""What a phone's rights cost a page (issue 27): the statements do not grow with the phone's table grants.

A table leader's phone keeps one grant per table it was given (``/t/``), across
nights; every page of a night asks which of them still opens a table there.
The SQL statements of a match page opened through a table link are counted
(SQLAlchemy's ``before_cursor_execute``) for a phone holding one grant and
for one holding five, the page's own table's grant being the oldest, so that
every grant is looked at. The templates ask ``can_edit`` several times per
page; the answer is computed once per request, also for the guests' kept
pages and the offline round form (``referee/pages/phone_rights.py``).
"""

from __future__ import annotations

from typing import Any

from tests.tournament.helpers import create, statements

SIX = ["Anna", "Bo", "Cia", "Dan", "Eva", "Filip"]


def _page_with_grants(app: Any, grants: int) -> tuple[int, Any]:
    """A match page opened through its table link, by a phone that then led ``grants - 1`` other nights' tables."""
    client = app.test_client()
    made = [create(client, game="svangknack", players=SIX, table_size=3, stake="3.00") for _ in range(grants)]
    first = made[0]["tables"][0]
    for tournament in made:  # the page's own grant first: it is the oldest, every newer one is looked at before it
        assert client.get(f"/t/{tournament['tables'][0]['table_token']}").status_code == 302
    path = f"/matches/{first['match']}"
    client.get(path)  # warm: the fold's cache, the translations, the templates
    return statements(app, client, path)


def test_a_match_page_costs_the_same_statements_with_one_or_five_table_grants(app: Any) -> None:
    one, page = _page_with_grants(app, 1)
    assert page.status_code == 200 and page.headers["X-Referee-Right"] == "edit"
    five, page = _page_with_grants(app, 5)
    assert page.status_code == 200 and page.headers["X-Referee-Right"] == "edit"
    assert f'action="{page.request.path}/rounds"' in page.get_data(as_text=True)
    assert five == one, (one, five)


def test_a_grant_of_another_night_does_not_open_this_one(app: Any) -> None:
    """The one query of the grants still checks the night, the token's fingerprint and the table's series."""
    client = app.test_client()
    mine, theirs = (create(client, game="svangknack", players=SIX, table_size=3, stake="3.00") for _ in range(2))
    assert client.get(f"/t/{mine['tables'][0]['table_token']}").status_code == 302
    page = client.get(f"/matches/{theirs['tables'][0]['match']}")
    assert page.status_code == 403 and page.headers["X-Referee-Right"] == "none"
    assert client.get(f"/matches/{mine['tables'][1]['match']}").headers["X-Referee-Right"] == "view"
    assert client.get(f"/matches/{mine['tables'][0]['match']}").headers["X-Referee-Right"] == "edit"


def test_a_page_reads_the_phones_table_grants_once(app: Any) -> None:
    """The leader's page (with the offline round form) and a guest's live refresh (the kept pages' key) ask the
    one kept answer: the phone's table grants are read once per request, not once per question."""
    client = app.test_client()
    made = create(client, game="svangknack", players=SIX, table_size=3, stake="3.00")
    own, other = made["tables"][0], made["tables"][1]
    assert client.get(f"/t/{own['table_token']}").status_code == 302
    for path, headers, right in ((f"/matches/{own['match']}", {}, "edit"),
                                 (f"/matches/{other['match']}", {"X-Live": "1"}, "view")):
        client.get(path, headers=headers)  # warm
        reads, page = statements(app, client, path, naming="tournament_tables.match_id IN", headers=headers)
        assert page.status_code == 200 and page.headers["X-Referee-Right"] == right
        assert reads == 1, (path, reads)
