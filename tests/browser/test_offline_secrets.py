"""The phone's offline copies keep no secret, and go when the phone loses its right (issue 25.5).

Headless Chromium, 390x844, the real service worker (static/sw.js) against
the app on a live port. The leader's phone opens the night (its page shows
the edit link and its QR code), a match, the season (which shows the group
link to a leader) and the group page itself; whatever the worker kept is
then read out of Cache Storage: no edit token and no group token anywhere,
in an address or a page, while the night's page is still there to open
offline. A second leader phone and a guest's phone keep their copies until
the leader makes a new edit link; the second leader's copies of that night
go as soon as its open page hears the change, the guest's stay (its view
right is unchanged) until the guest's cookie is gone.

The same for a tournament (issue 45.2): the organiser's page shows every
table's ``/t/`` link; with it, the hall, the players' view and a table's
link opened, no table token is anywhere in Cache Storage, and the
organiser's page, kept without its links, goes on a revoke.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.browser.conftest import PHONE, LiveServer, watch
from tests.browser.test_offline_queue import api, night_and_match
from tests.browser.test_tournament import PLAYERS, tournament

#: Everything the service worker kept in the caches whose names start with ``prefix`` (every cache: ""): address,
#: the night and right it was kept with, the body as text.
KEPT = """async (prefix) => {
  const out = [];
  for (const name of await caches.keys()) {
    if (!name.startsWith(prefix)) continue;
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      const hit = await cache.match(request, { ignoreVary: true });
      if (!hit) continue;  // dropped meanwhile
      out.push({ url: request.url, night: hit.headers.get("X-Referee-Night"),
                 right: hit.headers.get("X-Referee-Right"), body: await hit.text() });
    }
  }
  return out;
}"""


def kept(page: Any, prefix: str = "referee-pages") -> list[dict[str, Any]]:
    """The pages the worker kept (``prefix=""``: everything in Cache Storage, the shell's files too)."""
    return list(page.evaluate(KEPT, prefix))


def until(page: Any, check: Callable[[list[dict[str, Any]]], bool], what: str, timeout: float = 10) -> None:
    """Until what the worker kept passes ``check`` (it stores and drops after answering)."""
    deadline = time.monotonic() + timeout
    while not check(kept(page)):
        assert time.monotonic() < deadline, f"{what}: {[(c['url'], c['night'], c['right']) for c in kept(page)]}"
        time.sleep(0.1)


def wait_kept(page: Any, path: str) -> None:
    until(page, lambda copies: any(urlsplit(c["url"]).path == path for c in copies), f"{path} kept")


def controlled(page: Any, base: str, link: str) -> None:
    """Open a night's link and wait until the service worker controls the page."""
    page.goto(f"{base}{link}")
    page.wait_for_function("() => navigator.serviceWorker && navigator.serviceWorker.controller !== null")


def test_kept_pages_show_no_edit_link_or_group_token(live_server: LiveServer, phone: Any, artifacts: Path) -> None:
    from playwright.sync_api import expect

    base, page = live_server.url, phone
    watched = watch(page, artifacts, "offline-secrets-")
    night, match = night_and_match(base)
    controlled(page, base, f"/e/{night['edit_token']}")
    nid = night["id"]
    for path in (f"/nights/{nid}", f"/matches/{match['id']}", f"/nights/{nid}/season"):
        page.goto(base + path)
        wait_kept(page, path)
    assert night["edit_token"] in page.goto(f"{base}/nights/{nid}").text()  # the leader does see the edit link
    wait_kept(page, f"/nights/{nid}")
    page.goto(f"{base}/groups/{night['group_token']}")
    expect(page.locator("section.share input")).to_have_value(f"{base}/groups/{night['group_token']}")
    page.goto(f"{base}/nights/{nid}/season")
    expect(page.locator("section.share input")).to_have_count(1)  # the season shows the leader the group link
    wait_kept(page, f"/nights/{nid}/season")

    copies = kept(page)
    assert {c["url"].removeprefix(base) for c in copies} >= {f"/nights/{nid}", f"/matches/{match['id']}",
                                                             f"/nights/{nid}/season"}
    for secret in (night["edit_token"], night["group_token"]):
        assert not [c["url"] for c in copies if secret in c["url"] or secret in c["body"]]
    night_copy = next(c for c in copies if c["url"] == f"{base}/nights/{nid}")
    assert night_copy["night"] == str(nid) and night_copy["right"] == "edit"
    assert night["view_token"] in night_copy["body"]  # the view link (read only) stays for guests to scan

    page.context.set_offline(True)  # the night's page still opens without a network, without the edit link
    page.goto(f"{base}/nights/{nid}")
    assert page.locator("html").get_attribute("data-offline-copy")
    expect(page.locator('input[aria-label="Edit link"]')).to_have_count(0)
    expect(page.locator('input[aria-label="View link"]')).to_have_count(1)
    page.context.set_offline(False)
    watched.shot("night-offline", full=False)
    assert not [p for p in watched.problems if "ERR_INTERNET_DISCONNECTED" not in p]


def test_a_new_edit_link_drops_the_old_phones_copies_of_the_night(live_server: LiveServer, browser: Any,
                                                                   artifacts: Path) -> None:
    base = live_server.url
    night, match = night_and_match(base)
    other, _ = night_and_match(base)
    nid, pages = night["id"], (f"/nights/{night['id']}", f"/matches/{match['id']}")
    phones = []
    for link in (f"/e/{night['edit_token']}", f"/v/{night['view_token']}"):  # a second leader, a guest
        context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True,
                                      locale="en-US")
        page = context.new_page()
        controlled(page, base, f"/e/{other['edit_token']}")  # another night, which stays
        page.goto(f"{base}/nights/{other['id']}")
        wait_kept(page, f"/nights/{other['id']}")
        page.goto(f"{base}{link}")
        for path in pages:
            page.goto(base + path)
            wait_kept(page, path)
        phones.append(page)
    co_leader, guest = phones
    try:
        assert {c["right"] for c in kept(co_leader) if c["night"] == str(nid)} == {"edit"}

        api(base, f"/api/nights/{nid}/revoke", {}, night["edit_token"])  # the leader makes a new edit link

        # The old link's phone, still on the match page, hears the change (live.js fetches the page again, now
        # a 403): its copies of the night go without a tap.
        until(co_leader, lambda copies: all(c["night"] != str(nid) for c in copies), "the night's copies dropped")
        assert co_leader.goto(f"{base}/nights/{nid}").status == 403  # it lost its right
        left = kept(co_leader)
        assert not [c["url"] for c in left if c["night"] == str(nid)]
        assert [c for c in left if c["url"] == f"{base}/nights/{other['id']}"]

        assert guest.goto(f"{base}/nights/{nid}").status == 200  # the guest's view right is unchanged
        wait_kept(guest, f"/nights/{nid}")
        assert {c["url"].removeprefix(base) for c in kept(guest) if c["night"] == str(nid)} >= set(pages)

        guest.context.clear_cookies()  # the cookie gone (cleared, expired): the guest's copies go with its right
        assert guest.goto(f"{base}/nights/{nid}").status == 403
        until(guest, lambda copies: all(c["night"] != str(nid) for c in copies), "the guest's copies dropped")
        watch(co_leader, artifacts, "offline-secrets-").shot("revoked", full=False)
    finally:
        for page in phones:
            page.context.close()


def test_the_organisers_page_is_kept_without_the_tables_links(live_server: LiveServer, phone: Any,
                                                               artifacts: Path) -> None:
    from playwright.sync_api import expect

    base, page = live_server.url, phone
    watched = watch(page, artifacts, "offline-secrets-tournament-")
    made = tournament(base, PLAYERS, 4)
    tid, nid = made["id"], made["night"]
    tokens = [t["table_token"] for t in made["tables"]]
    controlled(page, base, f"/e/{made['edit_token']}")
    organiser = f"/tournaments/{tid}"
    page.goto(base + organiser)
    expect(page.locator("details.tt-link input.copy")).to_have_count(len(tokens))  # the organiser sees them
    wait_kept(page, organiser)
    for path in (f"/tournaments/{tid}/hall", f"/tournaments/{tid}/me", f"/nights/{nid}", f"/nights/{nid}/season"):
        page.goto(base + path)
        wait_kept(page, path)
    page.goto(f"{base}/t/{tokens[0]}")  # the organiser tries a table's link on this phone: the match page
    wait_kept(page, f"/matches/{made['tables'][0]['match']}")
    page.goto(base + organiser)
    wait_kept(page, organiser)

    everything = kept(page, "")
    for secret in (*tokens, made["edit_token"], made["group_token"]):
        assert not [c["url"] for c in everything if secret in c["url"] or secret in c["body"]]
    copy = next(c for c in kept(page) if c["url"] == base + organiser)
    assert (copy["night"], copy["right"]) == (str(nid), "edit")  # so that a revoke drops it

    page.context.set_offline(True)  # the organiser's page still opens with no network, without the links
    page.goto(base + organiser)
    assert page.locator("html").get_attribute("data-offline-copy")
    expect(page.locator("#tables li.tourn-table")).to_have_count(len(tokens))
    expect(page.locator("details.tt-link")).to_have_count(0)
    watched.shot("organiser-offline", full=False)
    page.context.set_offline(False)
    assert not [p for p in watched.problems if "ERR_INTERNET_DISCONNECTED" not in p]


def test_a_new_edit_link_drops_the_co_organisers_copy_of_the_tournament(live_server: LiveServer, phone: Any,
                                                                       artifacts: Path) -> None:
    base, page = live_server.url, phone
    made = tournament(base, PLAYERS, 4)
    nid, organiser = made["night"], f"/tournaments/{made['id']}"
    controlled(page, base, f"/e/{made['edit_token']}")  # a second organiser's phone
    page.goto(base + organiser)
    wait_kept(page, organiser)

    api(base, f"/api/nights/{nid}/revoke", {}, made["edit_token"])  # the organiser makes a new edit link

    # The page, still open, hears the change and fetches itself again (a 403 now): its copy goes without a tap.
    until(page, lambda copies: all(urlsplit(c["url"]).path != organiser for c in copies), "the copy dropped")
    assert page.goto(base + organiser).status == 403
    watch(page, artifacts, "offline-secrets-tournament-").shot("revoked", full=False)
