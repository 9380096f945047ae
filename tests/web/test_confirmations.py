"""Destructive actions ask once more (issue 19): close, void a payment, a new edit link.

The first post shows what will happen and changes nothing; only the post
with ``confirm=yes`` (the confirmation page's button) does it.
"""

from __future__ import annotations

import re
from typing import Any

from referee import ledger
from referee.ledger import payments
from tests.web.test_settlement import kul_night


def test_voiding_a_payment_asks_first(client: Any, app: Any) -> None:
    api, _ = kul_night(client)
    client.get(f"/e/{api.token}")
    night_id = api.night["id"]
    assert client.post(f"/nights/{night_id}/payments",
                       data={"payer": "Anna", "payee": "Cia", "amount": "2.00", "form_token": "t1"}).status_code == 302
    html = client.get(f"/nights/{night_id}/settlement").get_data(as_text=True)
    # Anna's line shows what is still open (nothing), with the night's result as a note.
    anna = re.search(r"<tr[^>]*><th>Anna.*?</tr>", html, re.S)
    assert anna and "settled" in anna.group(0) and "result -SEK\xa02.00" in anna.group(0), anna
    with app.app_context():
        pid = payments.settlement(ledger.get_night(night_id)).payments[0].id
    first = client.post(f"/nights/{night_id}/payments/{pid}/void", data={"reason": "wrong"})
    page = first.get_data(as_text=True)
    assert first.status_code == 200 and "Void this payment?" in page and "Anna paid Cia SEK\xa02.00" in page
    assert 'name="reason" value="wrong"' in page and 'name="confirm" value="yes"' in page
    with app.app_context():
        assert not payments.settlement(ledger.get_night(night_id)).payments[0].void
    done = client.post(f"/nights/{night_id}/payments/{pid}/void", data={"reason": "wrong", "confirm": "yes"})
    assert done.status_code == 302
    with app.app_context():
        row = payments.settlement(ledger.get_night(night_id)).payments[0]
        assert row.void and row.void_reason == "wrong"


def test_closing_with_an_unknown_player_is_refused_at_once(client: Any, app: Any) -> None:
    api, _won = kul_night(client)
    match_id = api.new_match("kul", ["Anna", "Bo", "Cia", "Dan"], stake="2.00")["id"]
    client.get(f"/e/{api.token}")
    resp = client.post(f"/matches/{match_id}/close", data={"pot": "award", "to": "Nobody"})
    assert resp.status_code == 422 and 'id="close-confirm"' not in resp.get_data(as_text=True)  # no confirmation page
    with app.app_context():
        assert not ledger.state_of(ledger.get_match(match_id)).finished
