"""``X-Referee-Night`` / ``X-Referee-Right``: each answer of a night's page names what this phone may do there.

The service worker drops its copies of pages kept with more right than the
phone now holds (static/sw.js), so the header must be the right the request
was judged by: the one :func:`referee.pages.phone_rights.require` found (kept in ``g``),
or the new one when the request itself changed it (a revoke).
"""

from __future__ import annotations

from typing import Any

from referee import ledger
from tests.web.test_pages import create_night


def _right(resp: Any) -> tuple[str | None, str | None]:
    return resp.headers.get("X-Referee-Night"), resp.headers.get("X-Referee-Right")


def test_each_answer_names_the_right_it_was_judged_by(client: Any, app: Any) -> None:
    night_id = create_night(client)
    with app.app_context():
        view_token = ledger.get_night(night_id).view_token
    assert _right(client.get(f"/nights/{night_id}")) == (str(night_id), "edit")
    guest = app.test_client()
    assert guest.get(f"/v/{view_token}").status_code == 302
    assert _right(guest.get(f"/nights/{night_id}")) == (str(night_id), "view")
    refused = guest.post(f"/nights/{night_id}/players", data={"name": "Eva"})
    assert refused.status_code == 403 and _right(refused) == (str(night_id), "view")
    stranger = app.test_client().get(f"/nights/{night_id}")
    assert stranger.status_code == 403 and _right(stranger) == (str(night_id), "none")
    assert _right(client.get("/")) == (None, None)  # a page of no night names none


def test_a_revoke_answers_with_the_right_it_leaves(client: Any, app: Any) -> None:
    night_id = create_night(client)
    with app.app_context():
        old_edit = ledger.get_night(night_id).edit_token
    second = app.test_client()
    second.get(f"/e/{old_edit}")
    assert _right(second.get(f"/nights/{night_id}")) == (str(night_id), "edit")
    done = client.post(f"/nights/{night_id}/revoke", data={"confirm": "yes"})
    assert done.status_code == 302 and _right(done) == (str(night_id), "edit")  # the leader's phone keeps it
    after = second.get(f"/nights/{night_id}")  # its grant was of the old edit link only
    assert after.status_code == 403 and _right(after) == (str(night_id), "none")
