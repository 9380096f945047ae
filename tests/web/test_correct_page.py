"""The correct page (issue 42.1): round 3 of 11 of a Svängknack match corrected through the pages, on both backends.

The match and its money are those of ``tests/web/test_corrections.py`` (worked out there by hand from the
rules); here the page's preview must list exactly what the API's dry run answers, write nothing, and the
confirm must store the correction with every later round's dealer and svängare kept.
"""

from __future__ import annotations

import html
import re
from typing import Any

from tests.web.helpers import Api
from tests.web.test_corrections import (
    CORRECT_DELTA,
    CORRECTED_3,
    expected_changes,
    later_rotation_kept,
    played_match,
    stored,
)


def hidden(page: str, form_id: str) -> list[tuple[str, str]]:
    """The hidden fields of the form ``form_id`` on the page, in order."""
    found = re.search(rf'<form[^>]*id="{form_id}".*?</form>', page, re.S)
    assert found, page[:3000]
    out = []
    for tag in re.findall(r"<input[^>]*>", found.group(0)):
        if 'type="hidden"' in tag:
            name, value = re.search(r'name="([^"]+)"', tag), re.search(r'value="([^"]*)"', tag)
            out.append((html.unescape(name.group(1)) if name else "", html.unescape(value.group(1)) if value else ""))
    return out


def preview(page: str) -> list[str]:
    """The preview's lines, as text."""
    section = re.search(r'<ul class="changes">(.*?)</ul>', page, re.S)
    assert section, page[:3000]
    return [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", li)).split()).replace(" :", ":").replace(" ,", ",")
            .replace(" ;", ";") for li in re.findall(r"<li>(.*?)</li>", section.group(1), re.S)]


def lines(changes: list[dict[str, Any]]) -> list[str]:
    """The API's changes as the page words them (English)."""
    out = []
    for c in changes:
        parts = ", ".join(f"{name} {pair[0]} → {pair[1]}" for name, pair in c["balances"].items())
        pot = f"; Pot {c['pot'][0]} → {c['pot'][1]}" if c.get("pot") else ""
        out.append(f"Round {c['round']}: {parts}{pot}")
    return out


def test_round_3_of_11_is_corrected_through_the_pages_with_the_api_dry_runs_changes(client: Any, app: Any) -> None:
    api = Api(client)
    mid = played_match(api)
    client.get(f"/e/{api.token}")  # the leader's phone
    history = client.get(f"/matches/{mid}").get_data(as_text=True)
    assert f'href="/matches/{mid}/rounds/3/correct"' in history

    page = client.get(f"/matches/{mid}/rounds/3/correct").get_data(as_text=True)
    # Round 3 as entered, on the state before it: Cia deals, Dan svängar, Anna knocked and took 0, Dan 3.
    assert re.search(r'name="knock_0" checked', page) and re.search(r'name="tricks_0" value="0" checked', page)
    assert re.search(r'name="tricks_3" value="3" checked', page)
    assert 'data-svangare="Dan"' in page and 'Cia <span class="tag">deals</span>' in page
    token = dict(hidden(page, "round-form"))["form_token"]

    status, dry = api.call("POST", f"/api/matches/{mid}/rounds/3/correct",
                           {"round": CORRECTED_3, "reason": "", "dry_run": True})
    assert status == 200 and dry["changes"] == expected_changes(CORRECT_DELTA)
    before = stored(app, mid)
    first = client.post(f"/matches/{mid}/rounds/3/correct",
                        data={"form_token": token, "knock_0": "on", "tricks_0": "1", "tricks_3": "2"})
    shown = first.get_data(as_text=True)
    assert first.status_code == 200, shown
    assert preview(shown) == lines(dry["changes"])
    assert stored(app, mid) == before, "the preview wrote"

    confirm = dict(hidden(shown, "confirm-correct")) | {"reason": "entered wrong"}
    assert confirm["confirm"] == "yes"
    done = client.post(f"/matches/{mid}/rounds/3/correct", data=confirm)
    assert done.status_code == 302 and done.headers["Location"].endswith(f"/matches/{mid}")
    assert "Round 3 corrected" in client.get(f"/matches/{mid}").get_data(as_text=True)
    log = api.match(mid)["rounds"]
    assert log[2]["void"] and log[2]["corrected_by"] == 12 and log[2]["void_reason"] == "entered wrong"
    assert log[11]["corrects"] == 3 and log[11]["payload"]["tricks"] == {"Dan": 2, "Anna": 1}
    later_rotation_kept(app, mid)
    final = api.match(mid)["state"]
    assert final == dry["state"]
    # Sent again (the phone's queue resends a form whose answer it missed): made once.
    again = client.post(f"/matches/{mid}/rounds/3/correct", data=confirm)
    assert again.status_code == 302 and api.match(mid)["state"] == final
    assert len(api.match(mid)["rounds"]) == 12


#: Each game's seats, stake, a first and a second round (the first is the one corrected), and a field of the
#: first round's form that its page must show filled in.
GAMES: dict[str, tuple[list[str], str | None, dict[str, Any], dict[str, Any], str]] = {
    "svangknack": (["Anna", "Bo", "Cia", "Dan"], "3.00", {"participants": ["Bo", "Dan"], "tricks": {"Bo": 2, "Dan": 1}},
                   {"participants": ["Cia"]}, 'name="tricks_3" value="1" checked'),
    "kul": (["Anna", "Bo", "Cia"], "1.00", {"last_trick": "Cia"}, {"last_trick": "Bo"}, 'value="Cia"'),
    "schloapfer": (["Anna", "Bo", "Cia"], "1.00", {"eyes": {"Anna": 30, "Bo": 60, "Cia": 40}},
                   {"eyes": {"Anna": 52, "Bo": 60, "Cia": 40}}, 'name="eyes_1" value="60"'),
    "schwimmen": (["Anna", "Bo", "Cia", "Dan"], "1.00", {"ended_by": "knock", "by": "Anna", "losers": ["Bo"]},
                  {"ended_by": "knock", "by": "Cia", "losers": ["Dan"]}, 'name="loser_1" value="on"'),
    "knaker": (["Anna", "Bo", "Cia", "Dan"], None, {"events": [{"out": ["Anna"]}, {"out": ["Cia"]}, {"lost": ["Bo"]}]},
               {"events": [{"out": ["Bo"]}, {"out": ["Cia"]}, {"lost": ["Anna"]}]}, 'name="kind_2" value="out"'),
}


def test_every_games_correct_page_shows_the_entry_and_checks_it_unchanged(client: Any, app: Any) -> None:
    """Each game's first round on its correct page, filled in as entered; sent back unchanged, nothing later
    changes and nothing is written."""
    api = Api(client)
    api.new_night(["Anna", "Bo", "Cia", "Dan"])
    client.get(f"/e/{api.token}")
    for game, (seats, stake, first, second, shown) in GAMES.items():
        mid = int(api.new_match(game, seats, stake=stake)["id"])
        for payload in (first, second):
            status, body = api.round(mid, payload)
            assert status == 201, (game, body)
        page = client.get(f"/matches/{mid}/rounds/1/correct").get_data(as_text=True)
        assert shown in page, (game, page)
        form_id = "correct-form" if 'id="correct-form"' in page else ("kul-form" if game == "kul" else "round-form")
        fields = hidden(page, form_id)
        token = dict(fields)["form_token"]
        tapped = prefilled(page, form_id)
        before = stored(app, mid)
        checked = client.post(f"/matches/{mid}/rounds/1/correct", data={"form_token": token, **tapped})
        text = checked.get_data(as_text=True)
        assert checked.status_code == 200, (game, text[:3000])
        assert "Nothing later changes" in text and 'id="confirm-correct"' in text, game
        assert stored(app, mid) == before, game


def prefilled(page: str, form_id: str) -> dict[str, str]:
    """What the form sends as it is shown: its checked boxes and radios, its filled text fields (Kul: the
    stored player's button, read from the entry's summary)."""
    found = re.search(rf'<form[^>]*id="{form_id}".*?</form>', page, re.S)
    assert found
    out: dict[str, str] = {}
    for tag in re.findall(r"<input[^>]*>", found.group(0)):
        name, value = re.search(r'name="([^"]+)"', tag), re.search(r'value="([^"]*)"', tag)
        if not name or 'type="hidden"' in tag:
            continue
        if ('type="checkbox"' in tag or 'type="radio"' in tag) and " checked" not in tag:
            continue
        out[name.group(1)] = html.unescape(value.group(1)) if value else "on"
    if form_id == "kul-form":
        out["last_trick"] = "Cia"
    return out
