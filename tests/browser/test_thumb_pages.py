"""Every other page of every game, in sv, de and en: axe-core finds nothing, every target is 44×44 px (issue 19).

The per-game tests (``test_thumb_<game>.py``) walk a round through the
match pages; this one visits the rest as the leader and as a guest: start,
new night, Kul's match page open and closed, the table display of every
game, the referee tools (Knaker "may I lay this?", Schloapfer eyes,
Schwimmen hand value, the trick referee of each trick game), the
settlement's second plan, on a night of 8 players with a round in every
match.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import LiveServer, watch
from tests.browser.polish import PLAYERS, every_language

pytestmark = pytest.mark.browser

def a_night(server: LiveServer) -> tuple[str, int, dict[str, int]]:
    """A night of 8 with one round in a match of every game (and a closed Kul match); its edit token and ids."""
    from referee import ledger

    with server.app.app_context():
        night = ledger.create_night("Alla spel", "SEK", PLAYERS)
        ids = {
            "svangknack": ledger.create_match(night, "svangknack", PLAYERS, "Anna", "3.00").id,
            "kul": ledger.create_match(night, "kul", PLAYERS, "Anna", "1.00").id,
            "schloapfer": ledger.create_match(night, "schloapfer", PLAYERS[:6], "Anna", "1.00").id,
            "schwimmen": ledger.create_match(night, "schwimmen", PLAYERS, "Anna", "1.00").id,
            "knaker": ledger.create_match(night, "knaker", PLAYERS, "Anna", "1.00",
                                            {"double_deck": True, "payout": "loser_pays"}).id,
            "kul_closed": ledger.create_match(night, "kul", PLAYERS, "Anna", "1.00").id,
        }
        ledger.add_round(ids["svangknack"], {"svangare": "Bo", "participants": ["Bo"]})
        ledger.add_round(ids["kul"], {"last_trick": "Cia"})
        ledger.add_round(ids["schloapfer"], {"eyes": {"Bo": 40, "Cia": 40, "Dan": 20, "Eva": 12, "Fia": 20,
                                                        "Anna": 20}})
        ledger.add_round(ids["schwimmen"], {"ended_by": "knock", "by": "Anna", "losers": ["Bo"]})
        ledger.add_round(ids["knaker"], {"events": [{"out": [p]} for p in PLAYERS[:7]]})
        ledger.add_round(ids["kul_closed"], {"last_trick": "Bo"})
        ledger.close_match(ids["kul_closed"], "award", "Bo")
        token, night_id = night.edit_token, night.id
    return token, night_id, ids


def test_every_other_page_in_three_languages(live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    page, base = phone, live_server.url
    watched = watch(page, artifacts, "thumb-pages-")
    token, night_id, ids = a_night(live_server)
    page.goto(f"{base}/e/{token}")
    paths = ["/", "/nights/new", f"/matches/{ids['kul']}", f"/matches/{ids['kul_closed']}",
             f"/nights/{night_id}/settlement?plan=leader",
             "/referee/knaker", "/referee/schloapfer/eyes", "/referee/schwimmen/value"]
    paths += [f"/matches/{ids[g]}/table" for g in ("svangknack", "kul", "schloapfer", "schwimmen", "knaker")]
    paths += [f"/referee/tricks/{g}?match={ids[g]}" for g in ("svangknack", "kul", "schloapfer")]
    paths += [f"/referee/tricks/{g}/dispute?match={ids[g]}" for g in ("svangknack", "kul", "schloapfer")]
    every_language(page, base, paths)
    page.goto(f"{base}/matches/{ids['kul']}")
    # Kul's save buttons are the players' names: all eight on the first screen.
    for i in range(8):
        box = page.locator(".kul-form button[name=last_trick]").nth(i).bounding_box()
        assert box["y"] + box["height"] <= 844, (i, box)
    page.screenshot(path=str(artifacts / "after-kul.png"))
    assert watched.problems == []


def test_season_pages_in_three_languages(live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    """The group page and a night's season page (issue 14) meet the same bar: axe clean, 44 px targets."""
    from referee import ledger

    page, base = phone, live_server.url
    watched = watch(page, artifacts, "thumb-season-")
    with live_server.app.app_context():
        first = ledger.create_night("Fredag 1", "SEK", PLAYERS, group="Fredagsgänget")
        group_token = first.group.token
        for night in (first, ledger.create_night("Fredag 2", "SEK", PLAYERS, group_token=group_token)):
            kul = ledger.create_match(night, "kul", PLAYERS, "Anna", "1.00").id
            for winner in ("Bo", "Cia", "Bo", "Bo"):
                ledger.add_round(kul, {"last_trick": winner})
            sk = ledger.create_match(night, "svangknack", PLAYERS, "Anna", "3.00").id
            ledger.add_round(sk, {"svangare": "Bo", "participants": ["Bo"]})
        token, night_id = first.edit_token, first.id
    page.goto(f"{base}/e/{token}")
    every_language(page, base, [f"/groups/{group_token}", f"/nights/{night_id}/season"])
    page.screenshot(path=str(artifacts / "after-season.png"), full_page=True)
    assert watched.problems == []


def test_the_measurements_can_fail(phone: Any) -> None:
    """The checks are real: a 20 px button, a 20 px link on its own and a link-less image are caught."""
    from tests.browser.polish import axe_violations, save_in_view, small_targets

    phone.set_content('<main><button style="height:20px;min-height:0">tiny</button>'
                      '<p><a href="/x" style="font-size:12px">alone</a></p>'
                      '<p>In a sentence, <a href="/y">this link</a> is exempt.</p>'
                      '<label><input type="checkbox" name="big" style="width:44px;height:44px"> ok</label>'
                      '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">'
                      '<button id="low" style="position:absolute;top:900px;height:50px">below</button></main>')
    small = small_targets(phone)
    assert len(small) == 2 and small[0].startswith('button "tiny"') and small[1].startswith('a "alone"'), small
    assert any(v.startswith("image-alt") for v in axe_violations(phone))
    with pytest.raises(AssertionError):
        save_in_view(phone, "#low")
