"""Who may read and write a night: every route, every kind of credential, on SQLite and PostgreSQL.

Why: the ledger is settled with real money, and the links people pass around
are the only credentials. One night's token must never reach another night's
data, a view link must never write, and a refused write must leave the
database exactly as it was. Rather than a list of URLs that a new route could
slip past, the routes are taken from ``app.url_map``: every route that names
a night or a match is requested with

* no credentials,
* night A's view token (``?view=`` and a phone that opened ``/v/<token>``),
* night B's edit token and view token (header/query and a phone that opened
  B's ``/e/`` or ``/v/`` link),
* night A's edit token (``Authorization: Bearer`` and a phone that opened
  ``/e/<token>``), which must get past the door (so the refusals above are
  not 404s for a wrong URL).

Every other route must be listed in ``PUBLIC`` with the reason it is open;
those are probed too (with night A's match ids in the query) and must not
show night A's data to an outsider. The nights have distinctive player names
so that a leak in a page, a JSON answer, a CSV or an error message is found
by looking for them.
"""

from __future__ import annotations

import hmac
import math
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask, url_for

from referee.ledger.rights import fingerprint
from tests.conftest import make_app
from tests.web.helpers import Api

#: Routes open to anyone, and why. Every route without a night or match in its URL must be here.
PUBLIC: dict[str, str] = {
    "static": "CSS, scripts and images: no night data",
    "pages.start": "lists only the nights this phone holds an edit right to (probed below)",
    "pages.set_lang": "the language switch stores a language in the session, nothing else",
    "pages.edit_link": "the token in the URL is the credential (test_links_grant_exactly_their_night)",
    "pages.view_link": "the token in the URL is the credential (test_links_grant_exactly_their_night)",
    "pages.group_page": "the group token in the URL is the credential (tests/web/test_season.py)",
    "pages.group_sheet": "the group token in the URL is the credential (tests/web/test_season.py)",
    "api.group": "the group token in the URL is the credential (tests/web/test_season.py)",
    "api.group_ratings": "the group token in the URL is the credential (tests/ratings/test_ratings.py)",
    "pages.new_night": "anybody may start a night; it gets fresh tokens",
    "api.create_night": "anybody may start a night; it gets fresh tokens",
    "api.import_night": "an import creates a new night in a new group; it reads no stored night",
    "api.openapi": "the API's description",
    "api.api_docs": "the API's description, as a page to read (no night data)",
    "api.first_dealer": "referee question: a pure function of the request",
    "api.hand_value": "referee question: a pure function of the request",
    "api.knaker_play": "referee question: a pure function of the request",
    "api.schloapfer_eyes": "referee question: a pure function of the request",
    "api.trick_play": "referee question: a pure function of the request",
    "pages.trick_referee": "referee tool; it shows the ?match= it came from only to phones with rights "
                           "(tests/web/test_trick_referee_page.py)",
    "api.trick_dispute": "referee question: a pure function of the request",
    "pages.trick_dispute": "referee tool; it shows the ?match= it came from only to phones with rights "
                           "(tests/web/test_trick_dispute.py)",
    "pages.knaker_referee": "referee tool: a pure function of the form",
    "pages.knaker_referee_verdict": "referee tool: a pure function of the form",
    "pages.schwimmen_value": "referee tool; its ?m= back link names a match id only (probed below)",
    "pages.schloapfer_eyes": "referee tool; it shows the ?match= it came from only to phones with rights (probed)",
    "pages.service_worker": "the service worker's script and the shell's static URLs: no night data",
    "tournaments.new": "anybody may start a tournament; its night gets fresh tokens",
    "api.create_tournament": "anybody may start a tournament; its night gets fresh tokens",
    "pages.table_link": "the table token in the URL is the credential (tests/tournament/test_pages_rights.py)",
}

#: Routes of a benchmark app only (``REFEREE_BENCH=1``), never of a normal one.
BENCH_ONLY: dict[str, str] = {
    "floor.floor": "bench/load.py's baseline: an insert into its own table, no night data",
}

#: Page GETs that belong to the edit right (forms that change the night).
EDIT_PAGES = {"pages.new_match", "pages.payment_details", "pages.void_round", "pages.correct_round", "tournaments.page",
              "tournament_sheets.table_cards"}

#: GETs that answer a redirect to the page they stand for (no night data of their own), behind its door.
REDIRECTS = {"tournaments.next_page": "edit"}

#: POSTs of the view right that write nothing to the night (a player's own view remembers a name in the
#: phone's session).
VIEW_POSTS = {"hall.me"}

#: The kinds of credentials a request may carry (see the module docstring).
CREDENTIALS = ["none", "view", "other_edit", "other_view", "edit"]

SCOPED_ARGS = {"night_id", "match_id", "tournament_id"}


@dataclass
class NightInfo:
    """A night with matches, rounds, a payment and payment details, and what identifies it."""

    night_id: int
    edit: str
    view: str
    players: list[str]
    name: str
    kul: int
    schloapfer: int
    payment: int
    tournament: int

    def markers(self) -> list[str]:
        """Strings that only this night's data contains."""
        return [*self.players, self.name, self.edit, self.view]

    def args(self) -> dict[str, Any]:
        return {"night_id": self.night_id, "match_id": self.kul, "seq": 1, "payment_id": self.payment,
                "name": self.players[0], "tournament_id": self.tournament, "number": 1}


def build(client: Any, name: str, players: list[str]) -> NightInfo:
    """A tournament's night (one table of Kul: its match) with a Schloapfer match, rounds and a payment.

    A tournament's night is a night like any other; built so, every route of
    a night, a match and a tournament is walked with the same credentials.
    """
    api = Api(client)
    status, made = api.call("POST", "/api/tournaments", {
        "name": name, "currency": "SEK", "game": "kul", "players": players[:3], "table_size": 3,
        "stake": "2.00", "series": 2}, token=None)
    assert status == 201, made
    api.night, api.token = made | {"id": made["night"]}, made["edit_token"]
    for later in players[3:]:  # a player who joins the night after the draw (a late player: series 2 of 2)
        assert api.call("POST", f"/api/nights/{made['night']}/players", {"name": later})[0] == 201
    nid = api.night["id"]
    kul = made["tables"][0]["match"]
    for who in (players[2], players[1]):
        assert api.round(kul, {"last_trick": who})[0] == 201
    sl = api.new_match("schloapfer", players[:3], stake="1.00")["id"]
    assert api.round(sl, {"eyes": {players[0]: 45, players[1]: 30, players[2]: 12}})[0] == 201
    assert api.call("POST", f"/api/nights/{nid}/players/{players[1]}/details", {"swish": "070-123 45 67"})[0] == 200
    plan = api.call("GET", f"/api/nights/{nid}/settlement")[1]["transfers"]
    status, paid = api.call("POST", f"/api/nights/{nid}/payments",
                            {k: plan[0][k] for k in ("from", "to", "from_pot", "to_pot")} | {"amount": "1.00"})
    assert status == 201, paid
    return NightInfo(nid, api.night["edit_token"], api.night["view_token"], players, name, kul, sl,
                     paid["payment"]["id"], made["id"])


def snapshot(app: Flask) -> dict[str, list[str]]:
    """Every row of every table (order-independent), but the wrong-token counts.

    Counting a wrong token (``token_failures``: an address and a count) is the
    one write a refused request is meant to make; test_ratelimit.py checks it.
    """
    from referee.models import TokenFailure, db

    with app.app_context():
        out = {t.name: sorted(repr(tuple(r)) for r in db.session.execute(t.select()).all())
               for t in db.metadata.sorted_tables if t is not TokenFailure.__table__}
        db.session.remove()
    return out


def current_edit_token(app: Flask, night_id: int) -> str:
    from referee.models import Night, db

    with app.app_context():
        night = db.session.get(Night, night_id)
        assert night is not None
        token = str(night.edit_token)
        db.session.remove()
    return token


class Caller:
    """A phone or script holding one kind of credential for night A (or B): session and token."""

    def __init__(self, app: Flask, kind: str, a: NightInfo, b: NightInfo) -> None:
        self.app, self.kind, self.a, self.b = app, kind, a, b
        self.client = app.test_client()
        self.headers: dict[str, str] = {}
        self.query: dict[str, str] = {}
        self.login()

    def login(self) -> None:
        link, token = {"none": ("", ""), "view": ("v", self.a.view), "other_edit": ("e", self.b.edit),
                       "other_view": ("v", self.b.view), "edit": ("e", self.a.edit)}[self.kind]
        if not link:
            return
        assert self.client.get(f"/{link}/{token}").status_code == 302
        if link == "e":
            self.headers = {"Authorization": f"Bearer {token}"}
        else:
            self.query = {"view": token}

    def refresh(self) -> None:
        """After a revoke the right edit token is a new one: open the new edit link."""
        if self.kind == "edit":
            self.a.edit = current_edit_token(self.app, self.a.night_id)
            self.login()

    def request(self, method: str, url: str, extra_query: dict[str, Any] | None = None) -> Any:
        query = {**self.query, **(extra_query or {})}
        if url.startswith("/api/") and method == "POST":
            return self.client.open(url, method=method, json={}, headers=self.headers, query_string=query)
        return self.client.open(url, method=method, data={} if method == "POST" else None, headers=self.headers,
                                query_string=query)


def leaked(resp: Any, night: NightInfo, url: str) -> list[str]:
    """Night A's markers in the answer (a name the request itself carried in its URL does not count)."""
    text = resp.get_data().decode("utf-8", "replace")
    return [m for m in night.markers() if m in text and m not in url]


def shown(resp: Any, night: NightInfo) -> bool:
    """The answer shows the night (PDFs are compressed: their type stands in for the content)."""
    if resp.mimetype == "application/pdf":
        return resp.get_data().startswith(b"%PDF")
    if resp.mimetype == "text/event-stream":  # the live stream names the night by its id, no players
        return f'"night": {night.night_id},' in resp.get_data().decode()
    text = resp.get_data().decode("utf-8", "replace")
    return any(p in text for p in night.players)


def routes(app: Flask) -> Iterator[tuple[str, str, Any]]:
    """(endpoint, method, rule) of every route, HEAD and OPTIONS aside."""
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: (r.rule, r.endpoint)):
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            yield rule.endpoint, method, rule


def scoped(rule: Any) -> bool:
    return bool(SCOPED_ARGS & set(rule.arguments))


def kind_of(endpoint: str, method: str) -> str:
    if endpoint in VIEW_POSTS and method == "POST":
        return "view-post"
    if method != "GET":
        return "write"
    if endpoint in REDIRECTS:
        return "redirect-" + REDIRECTS[endpoint]
    return "edit" if endpoint in EDIT_PAGES else "read"


@pytest.fixture
def world(backend: str, tmp_path: Path) -> Iterator[tuple[Flask, NightInfo, NightInfo]]:
    # Most requests below present wrong tokens on purpose: a limit that high keeps them from turning
    # into 429s (test_wrong_tokens_are_still_rate_limited shows the limiter at work).
    # The live stream ends after LIVE_LIFETIME: short, so that reading its answer ends.
    app = make_app(backend, tmp_path, TOKEN_FAILURES=10**6, LIVE_LIFETIME=0.2, LIVE_PING=0.1)
    client = app.test_client()
    a = build(client, "Nightof Aardvarks", ["Zorblax", "Quimby", "Vantablack", "Ophelix"])
    b = build(client, "Nightof Bumblebees", ["Brontolo", "Kessika", "Wumpus"])
    yield app, a, b
    from referee.models import db

    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def test_every_route_is_covered_or_public(tmp_path: Path) -> None:
    """A new route must either name a night/match (and so be tested below) or be listed as public."""
    app = make_app(f"sqlite:///{tmp_path / 'routes.sqlite3'}", tmp_path)
    endpoints = {endpoint for endpoint, _m, _r in routes(app)}
    unclassified = sorted(f"{m} {r.rule} ({e})" for e, m, r in routes(app)
                          if not scoped(r) and e not in PUBLIC and e not in BENCH_ONLY)
    assert not unclassified, f"routes neither covered by the access matrix nor listed in PUBLIC: {unclassified}"
    assert not set(PUBLIC) - endpoints, f"PUBLIC lists routes that no longer exist: {set(PUBLIC) - endpoints}"
    both = sorted(e for e, _m, r in routes(app) if scoped(r) and e in PUBLIC)
    assert not both, f"routes that name a night or match cannot be public: {both}"
    if os.environ.get("REFEREE_BENCH") != "1":
        assert not endpoints & set(BENCH_ONLY), "the benchmark's open endpoint is in a normal app"
    assert endpoints >= EDIT_PAGES, f"EDIT_PAGES names routes that no longer exist: {EDIT_PAGES - endpoints}"


def test_access_matrix(world: tuple[Flask, NightInfo, NightInfo]) -> None:
    """Every night-scoped route × every credential: refused, unchanged and unleaked unless it is night A's."""
    app, a, b = world
    callers = {kind: Caller(app, kind, a, b) for kind in CREDENTIALS}
    problems: list[str] = []
    checked = 0
    for endpoint, method, rule in routes(app):
        if not scoped(rule):
            continue
        with app.test_request_context():
            url = url_for(endpoint, **{k: v for k, v in a.args().items() if k in rule.arguments})
        kind = kind_of(endpoint, method)
        where = f"{method} {url} ({endpoint}, {kind})"
        for cred in CREDENTIALS:
            caller = callers[cred]
            allowed = cred == "edit" or (cred == "view" and kind in ("read", "view-post", "redirect-view"))
            before = snapshot(app) if kind in ("write", "view-post") and not allowed else None
            resp = caller.request(method, url)
            checked += 1
            status = resp.status_code
            if allowed:
                if status in (401, 403, 404, 429) or status >= 500:
                    problems.append(f"{where} with {cred}: {status}, expected to get through")
                elif kind.startswith(("redirect", "view-post")):
                    if status != 302:
                        problems.append(f"{where} with {cred}: {status}, expected its redirect")
                elif kind != "write" and not (status == 200 and shown(resp, a)):
                    problems.append(f"{where} with {cred}: {status}, night A's data not shown")
                if cred == "edit":
                    for other in callers.values():
                        other.refresh()
                continue
            if status not in (401, 403):
                problems.append(f"{where} with {cred}: {status}, expected 401/403")
            if cred == "none" and url.startswith("/api/") and status != 401:
                problems.append(f"{where} without a token: {status}, expected 401")
            if leaks := leaked(resp, a, url):
                problems.append(f"{where} with {cred}: the answer shows night A's {leaks}")
            if before is not None and (after := snapshot(app)) != before:
                changed = sorted(t for t in after if after[t] != before[t])
                problems.append(f"{where} with {cred}: the database changed ({changed})")
    assert not problems, "\n".join(problems)
    assert checked >= 30 * len(CREDENTIALS), checked  # the url_map really was walked


def test_public_routes_show_nothing_of_a_night_to_outsiders(world: tuple[Flask, NightInfo, NightInfo]) -> None:
    """The open routes, given night A's ids where they take one, show an outsider nothing of night A."""
    app, a, b = world
    problems: list[str] = []
    ids = {"match": a.schloapfer, "m": a.kul, "night": a.night_id}
    insider = Caller(app, "edit", a, b)
    for endpoint, method, rule in routes(app):
        if scoped(rule) or endpoint == "static" or rule.arguments:
            continue  # static files, and /e/, /v/, /lang/ take their own argument (tested elsewhere)
        with app.test_request_context():
            url = url_for(endpoint)
        for cred in ("none", "other_edit", "other_view"):
            resp = Caller(app, cred, a, b).request(method, url, ids)
            if resp.status_code >= 500:
                problems.append(f"{method} {url} with {cred}: {resp.status_code}")
            if leaks := leaked(resp, a, url):
                problems.append(f"{method} {url} with {cred}: shows night A's {leaks}")
    # The probe can see a leak: the same counter, opened by a phone with the edit right, names the players.
    resp = insider.request("GET", "/referee/schloapfer/eyes", ids)
    assert resp.status_code == 200 and leaked(resp, a, ""), "the probe would not notice night A's data"
    assert not problems, "\n".join(problems)


def test_links_grant_exactly_their_night(world: tuple[Flask, NightInfo, NightInfo]) -> None:
    """/e/ and /v/ links: the edit link edits one night, the view link only reads it, a wrong one is 404."""
    app, a, b = world
    phone = app.test_client()
    assert phone.get(f"/v/{a.view}").status_code == 302
    assert phone.get(f"/nights/{a.night_id}").status_code == 200
    assert phone.get(f"/nights/{a.night_id}/matches/new").status_code == 403
    assert phone.get(f"/nights/{b.night_id}").status_code == 403
    assert phone.get(f"/e/{a.edit}").status_code == 302
    assert phone.get(f"/nights/{a.night_id}/matches/new").status_code == 200
    assert phone.get(f"/nights/{b.night_id}").status_code == 403
    assert phone.get(f"/nights/{b.night_id}/matches/new").status_code == 403
    for wrong in (a.edit[:-1], a.edit + "x", a.edit.swapcase(), b.view + "x"):
        assert app.test_client().get(f"/e/{wrong}").status_code == 404, wrong


def test_wrong_tokens_are_still_rate_limited(tmp_path: Path) -> None:
    """With the ordinary limit, another night's token tried on several endpoints is soon a 429."""
    app = make_app(f"sqlite:///{tmp_path / 'rl.sqlite3'}", tmp_path, TOKEN_FAILURES=3, TOKEN_WINDOW=60)
    client = app.test_client()
    a = build(client, "Nightof Aardvarks", ["Zorblax", "Quimby", "Vantablack"])
    b = build(client, "Nightof Bumblebees", ["Brontolo", "Kessika", "Wumpus"])
    wrong = {"Authorization": f"Bearer {b.edit}"}
    statuses = [client.get(f"/api/nights/{a.night_id}", headers=wrong).status_code,
                client.post(f"/api/nights/{a.night_id}/matches", json={}, headers=wrong).status_code,
                client.get(f"/api/matches/{a.kul}", headers=wrong).status_code,
                client.get(f"/api/nights/{a.night_id}/settlement", headers=wrong).status_code]
    assert statuses == [403, 403, 403, 429]


def test_tokens_have_at_least_128_bits(client: Any) -> None:
    """Tokens drawn from a 64-symbol alphabet, long enough for 128 bits, and all different."""
    api = Api(client)
    tokens: list[str] = []
    for k in range(12):
        night = api.new_night(["Anna", "Bo"], group=f"g{k}")
        tokens += [night["edit_token"], night["view_token"], night["group_token"]]
    status, body = api.call("POST", f"/api/nights/{api.night['id']}/revoke", {})
    assert status == 200
    tokens.append(body["edit_token"])
    assert len(set(tokens)) == len(tokens)
    alphabet = set("".join(tokens))
    assert alphabet <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"), alphabet
    # ~1200 random characters use nearly every symbol; a counter, a hex digest or a timestamp would not.
    assert len(alphabet) >= 56, f"only {len(alphabet)} symbols in use"
    bits = min(len(t) for t in tokens) * math.log2(64)
    assert bits >= 128, f"tokens carry at most {bits:.0f} bits"
    assert all(re.fullmatch(r"[A-Za-z0-9_-]+", t) for t in tokens)


def test_tokens_are_compared_in_constant_time(world: tuple[Flask, NightInfo, NightInfo],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The API, the sheets and the pages hand presented tokens to hmac.compare_digest.

    A plain ``==`` would return faster the earlier the first wrong character
    is; the recorder below sees every comparison the app makes through
    ``hmac.compare_digest`` and finds none when a token is compared otherwise.
    """
    app, a, b = world
    seen: list[tuple[bytes | str, bytes | str]] = []
    real = hmac.compare_digest

    def recording(x: Any, y: Any) -> bool:
        seen.append((x, y))
        return real(x, y)

    monkeypatch.setattr(hmac, "compare_digest", recording)

    def text(value: bytes | str) -> str:
        return value.decode("utf-8", "replace") if isinstance(value, bytes) else value

    def compared(token: str) -> bool:
        return any(token in (text(x), text(y)) for x, y in seen)

    guess = a.edit[:-1] + ("A" if a.edit[-1] != "A" else "B")  # right length, last character wrong
    client = app.test_client()
    assert client.get(f"/api/nights/{a.night_id}", headers={"Authorization": f"Bearer {guess}"}).status_code == 403
    assert compared(guess) and compared(a.edit), "the API compares tokens without hmac.compare_digest"
    seen.clear()
    assert client.get(f"/nights/{a.night_id}/export.csv", query_string={"view": guess}).status_code == 403
    assert compared(guess) and compared(a.view), "the sheets compare tokens without hmac.compare_digest"
    seen.clear()
    phone = app.test_client()
    assert phone.get(f"/e/{b.edit}").status_code == 302
    assert phone.get(f"/nights/{b.night_id}/matches/new").status_code == 200
    # The session keeps a fingerprint of the edit token; that is what the pages compare.
    assert compared(fingerprint(b.edit)), "the pages compare edit rights without hmac.compare_digest"
