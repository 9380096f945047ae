"""Every answer that holds a secret says so itself (issue 45.2): ``X-Referee-Secret``, whichever blueprint serves it.

The service worker (static/sw.js) keeps a page without its marked parts
(``parts``) or not at all (``page``); it keeps no list of secret addresses
of its own. So the server's word must cover every page: the organiser's
page with its tables' ``/t/`` links (served by the tournaments blueprint,
which once said nothing), the night's page, a group's page, and a page
someone adds later that shows a secret and forgets the markers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import render_template_string, url_for

from referee.pages.secret_pages import secret_argument
from tests.conftest import make_app
from tests.tournament.helpers import create

#: Routes with a token in their address that is no secret: the view link is shown to guests to scan (issue 25.5).
SHARED = {"pages.view_link"}


def test_every_route_with_a_token_in_its_address_says_whether_it_is_secret(tmp_path: Path) -> None:
    app = make_app(f"sqlite:///{tmp_path}/s.sqlite3", tmp_path)
    with app.app_context():
        undeclared = [rule.rule for rule in app.url_map.iter_rules()
                      if any("token" in arg for arg in rule.arguments) and rule.endpoint not in SHARED
                      and not rule.endpoint.startswith("api.")  # the API is never kept by the worker
                      and secret_argument(rule.endpoint) is None]
        assert undeclared == []
        assert secret_argument("pages.table_link") == "token"


def test_the_organisers_page_and_the_group_page_say_they_hold_a_secret(client: Any) -> None:
    made = create(client, game="svangknack", players=["Anna", "Bo", "Cia", "Dan", "Eva", "Filip"], table_size=3,
                  stake="3.00")
    tid, nid = made["id"], made["night"]
    assert client.get(f"/e/{made['edit_token']}").headers["X-Referee-Secret"] == "page"  # its address
    organiser = client.get(f"/tournaments/{tid}")
    body = organiser.get_data(as_text=True)
    assert all(f"/t/{t['table_token']}" in body for t in made["tables"])  # the organiser does see the links
    # marked: kept without them; and named a page of the night the organiser may edit (dropped on a revoke)
    assert organiser.headers["X-Referee-Secret"] == "parts"
    assert (organiser.headers["X-Referee-Night"], organiser.headers["X-Referee-Right"]) == (str(nid), "edit")
    assert client.get(f"/nights/{nid}").headers["X-Referee-Secret"] == "parts"  # the edit link, marked
    assert client.get(f"/groups/{made['group_token']}").headers["X-Referee-Secret"] == "page"
    for path in (f"/tournaments/{tid}/hall", f"/tournaments/{tid}/me"):  # the room's pages: the view link only
        page = client.get(path)
        assert page.status_code == 200 and "X-Referee-Secret" not in page.headers
        assert page.headers["X-Referee-Right"] == "edit"
    assert "X-Referee-Secret" not in client.get("/").headers


def test_a_new_page_that_shows_a_secret_unmarked_is_never_kept(tmp_path: Path) -> None:
    app = make_app(f"sqlite:///{tmp_path}/n.sqlite3", tmp_path)

    def forgotten() -> str:  # a page of no blueprint of ours, as someone might add one
        return render_template_string("<p>{{ link }}</p>", link=url_for("pages.table_link", token="s" * 32))

    def marked() -> str:
        return render_template_string("<!--secret--><p>{{ link }}</p><!--/secret--><p>ok</p>",
                                      link=url_for("pages.edit_link", token="e" * 32))

    app.add_url_rule("/forgotten", view_func=forgotten)
    app.add_url_rule("/marked", view_func=marked)
    with app.test_client() as client:
        assert client.get("/forgotten").headers["X-Referee-Secret"] == "page"
        assert client.get("/marked").headers["X-Referee-Secret"] == "parts"
