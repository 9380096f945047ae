"""Every phone form under hostile and broken input: refused cleanly, nothing stored.

Issue 8: "Every form posted with missing, extra, oversized (1 MB), wrongly
typed and wrongly encoded fields, and without a CSRF token: 400 or the form
with an error, nothing stored. Request bodies over a size limit refused
early."

The forms are taken from the app's URL map (every POST route outside the JSON
API, whichever blueprint); a POST route without a :data:`CASES` entry fails
:func:`test_every_post_route_is_covered`, so a new form cannot be forgotten.
Each case knows one post the app accepts (checked, so that a refusal below is
caused by the attack and not by a broken baseline), which fields are required,
free text or numbers. The attacks:

- missing: an empty body, and each required field left out;
- extra: unknown fields (ids of another night, tokens, statuses) added to a
  valid post are ignored: the post does what it would do without them and no
  extra value reaches the database; added to an invalid post, nothing is stored;
- oversized: a 1 MB field is refused with 413 before the body is read (the
  body stream counts what the app reads), also when no Content-Length is sent;
  a 200 KB value, under the body limit, in any text field is a form error;
- wrongly typed: text, negative, huge (10**30), NaN, Infinity and exponent
  numbers in number fields, and every field sent twice (an array);
- wrongly encoded: invalid UTF-8 bytes (raw and percent-encoded), the wrong
  Content-Type (text/plain, JSON), a file part in multipart; a valid post as
  multipart is accepted like the urlencoded one;
- CSRF (with CSRF enabled): no token and a forged token are 400; the page's own
  token is accepted.

"Refused" means a 400/409/413/422, or the form again with an error message
(200), or a redirect that flashes an error; never a 500. "Nothing stored"
compares every row of every table before and after. The forms that store
nothing (the referee tools) must still never answer 500.

SQLite runs the whole matrix; PostgreSQL a subset (typed, encoded and
oversized posts on the forms that write rounds, matches and payments).
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from referee import ledger
from referee.ledger import payments, tournaments
from referee.models import db
from referee.pages.form_checks import LIST_FIELDS
from referee.round_forms import PAGE_GAMES
from tests.components import PostgresServer
from tests.conftest import make_app
from tests.hostile.test_state_machine import db_picture, wipe

LIMIT = 256 * 1024
MB = 1024 * 1024
SENTINEL = "ZZSENTINEL"
#: Values no number field may take (a seat, a stake, an amount, a count, a round number). "²" and "½" are
#: digits or numbers to ``str.isdigit``/``isnumeric`` but not to ``int()``.
BAD_NUMBERS = ("abc", "NaN", "Infinity", "-Infinity", "1e400", "1e3", "-5", "1" + "0" * 30,
               "0x10", "½", "²", "3.5.1", "3\x00")
ERROR_MARK = re.compile(r'class="[^"]*\berror')


# --- the world every post is made in -------------------------------------------------------

@dataclass
class World:
    """Two nights of one group: A (closed, balances open) and B (a match of every game, one round each)."""

    night_a: int
    night_b: int
    matches: dict[str, int]
    payment: int
    payer: str
    payee: str
    tournament: int = 0
    tokens: dict[int, str] = field(default_factory=dict)
    #: Kul after a win (its next game), and a Kul whose last deal the phone saved with :data:`UNDO_KEY` (its undo).
    kul_won: int = 0
    kul_undo: int = 0


#: The form key the phone saved the undoable Kul deal with (the session names it, as after a page's save).
UNDO_KEY = "undo-deal"


def build_world() -> World:
    players = ["Anna", "Bo", "Cia", "Dan"]
    a = ledger.create_night("Night A", "SEK", players)
    m = ledger.create_match(a, "svangknack", players, "Anna", "3.00")
    ledger.add_round(m.id, {"participants": ["Bo", "Dan"], "tricks": {"Bo": 2, "Dan": 1}})
    ledger.close_match(m.id, "split")
    b = ledger.create_night("Night B", "SEK", players, group_token=a.group.token)
    games = {
        "svangknack": (players, "3.00"), "kul": (players, "1.00"), "schloapfer": (players[:3], "1.00"),
        "schwimmen": (players, "1.00"), "knaker": (players, ""),
    }
    first = {"svangknack": {"participants": ["Bo"], "tricks": {"Bo": 3}}, "kul": {"last_trick": "Cia"},
             "schloapfer": {"eyes": {"Anna": 30, "Bo": 60, "Cia": 40}},
             "schwimmen": {"ended_by": "knock", "by": "Anna", "losers": ["Bo"]},
             "knaker": {"events": [{"out": ["Anna"]}, {"out": ["Cia"]}, {"lost": ["Bo"]}]}}
    matches = {}
    for game, (seats, stake) in games.items():
        match = ledger.create_match(b, game, seats, "Anna", stake or None)
        ledger.add_round(match.id, first[game])
        matches[game] = match.id
    s = payments.settlement(a)
    payer = min((p for p in a.player_names), key=lambda p: s.open[p])
    payee = max((p for p in a.player_names), key=lambda p: s.open[p])
    paid = payments.record_payment(a, payer, payee, "1.00").row
    cup = ready_tournament()
    won = ledger.create_match(b, "kul", players[:3], "Anna", "1.00", {"marks_to_win": 2})
    for _ in range(2):
        ledger.add_round(won.id, {"last_trick": "Bo"})
    undo = ledger.create_match(b, "kul", players[:3], "Anna", "1.00")
    ledger.add_round(undo.id, {"last_trick": "Bo"}, idem=ledger.Idem("page", UNDO_KEY, lambda e: (201, {})))
    return World(a.id, b.id, matches, paid.id, payer, payee, cup.id,
                 {a.id: a.edit_token, b.id: b.edit_token, cup.night_id: cup.night.edit_token}, won.id, undo.id)


def ready_tournament() -> Any:
    """A Kul tournament of two series whose first series is played out (so "next series" draws the second)."""
    cup = tournaments.create(tournaments.check({"name": "Cup", "currency": "SEK", "game": "kul", "table_size": 3,
                                                "players": ["Anna", "Bo", "Cia", "Dan", "Eva", "Fia"],
                                                "series": 2, "stake": "1.00", "seed": "forms"}))
    for table in tournaments.current_tables(cup):
        for _ in range(20):  # a Kul table ends (and closes itself) once someone has won
            if ledger.match_json(ledger.get_match(table.match_id))["status"] == "closed":
                break
            ledger.add_round(table.match_id, {"last_trick": ledger.get_match(table.match_id).seats[0]})
        assert ledger.match_json(ledger.get_match(table.match_id))["status"] == "closed"
    return cup


# --- the forms ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    """One form: where it posts, a post the app accepts, and the kinds of its fields."""

    name: str
    endpoint: str
    url: Callable[[World], str]
    valid: Callable[[World], dict[str, str]]
    required: tuple[str, ...] = ()
    empty_valid: bool = False  # an empty post is a valid one (Svängknack: nobody knocked)
    text: tuple[str, ...] = ()
    numbers: tuple[str, ...] = ()
    stores: bool = True
    accepted: int = 302  # the status of the valid post


def round_case(game: str, fields: dict[str, str], required: tuple[str, ...],
               numbers: tuple[str, ...] = ("expected_seq",), empty_valid: bool = False) -> Case:
    return Case(f"round_{game}", "pages.add_round", lambda w: f"/matches/{w.matches[game]}/rounds",
                lambda _w: {"form_token": f"tok-{game}", "expected_seq": "2", **fields}, required,
                empty_valid=empty_valid, text=(), numbers=numbers)


CASES: list[Case] = [
    Case("new_night", "pages.new_night", lambda _w: "/nights/new",
         lambda _w: {"name": "Fredag", "currency": "SEK", "players": "Anna\nBo\nCia", "place": "Hemma"},
         required=("name", "players"), text=("name", "players", "place", "leader", "group_token"),
         numbers=("date",)),
    Case("revoke", "pages.revoke", lambda w: f"/nights/{w.night_b}/revoke", lambda _w: {"confirm": "yes"}),
    Case("add_player", "pages.add_player", lambda w: f"/nights/{w.night_b}/players",
         lambda _w: {"name": "Eva"}, required=("name",), text=("name",)),
    Case("add_payment", "pages.add_payment", lambda w: f"/nights/{w.night_a}/payments",
         lambda w: {"payer": w.payer, "payee": w.payee, "amount": "1.00", "form_token": "pay-1"},
         required=("payer", "payee", "amount"), text=("payer", "payee"), numbers=("amount",)),
    Case("void_payment", "pages.void_payment", lambda w: f"/nights/{w.night_a}/payments/{w.payment}/void",
         lambda _w: {"reason": "typo", "confirm": "yes"}, text=("reason",)),
    Case("carry", "pages.carry", lambda w: f"/nights/{w.night_a}/carry", lambda w: {"to_night": str(w.night_b)},
         required=("to_night",), numbers=("to_night",)),
    Case("payment_details", "pages.payment_details", lambda w: f"/nights/{w.night_b}/players/Anna/details",
         lambda _w: {"swish": "0701234567", "iban": "SE4550000000058398257466", "holder": "Anna Andersson"},
         text=("swish", "iban", "holder"), numbers=("swish",)),
    Case("new_match", "pages.new_match", lambda w: f"/nights/{w.night_b}/matches/new",
         lambda _w: {"game": "kul", "dealer": "Bo", "stake": "2.00", "action": "create", "in_0": "on",
                     "seat_0": "1", "in_1": "on", "seat_1": "0", "opt_marks_to_win": "3"},
         required=("game", "dealer"), text=("stake",), numbers=("stake", "seat_0", "opt_marks_to_win")),
    round_case("svangknack", {"tricks_2": "2", "tricks_3": "1"}, ("tricks_2", "tricks_3"),
               ("expected_seq", "tricks_2", "tricks_3"), empty_valid=True),
    # The svängare alone takes the pot; a fresh pot follows, so the stake may change (SK-7, SK-13).
    Case("round_svangknack_alone", "pages.add_round", lambda w: f"/matches/{w.matches['svangknack']}/rounds",
         lambda _w: {"form_token": "tok-alone", "expected_seq": "2", "tricks_2": "3", "new_stake": "6.00"},
         numbers=("tricks_2", "new_stake"), empty_valid=True),
    round_case("kul", {"last_trick": "Bo"}, ("last_trick",)),
    round_case("schloapfer", {"eyes_0": "30", "eyes_1": "60", "eyes_2": "40"}, ("eyes_0", "eyes_1", "eyes_2"),
               ("expected_seq", "eyes_0", "eyes_1")),
    round_case("schwimmen", {"ended_by": "knock", "by": "Cia", "entry": "points", "points_0": "20",
                             "points_1": "31", "points_3": "25", "points_2": "17"},
               ("ended_by", "by"), ("expected_seq", "points_0")),
    round_case("knaker", {"save": "game", "kind_0": "out", "step_0": "1", "kind_2": "out", "step_2": "1",
                          "kind_1": "lost", "step_1": "2"},
               ("kind_0",), ("expected_seq", "step_0", "step_1")),
    Case("void_round", "pages.void_round", lambda w: f"/matches/{w.matches['kul']}/rounds/1/void",
         lambda _w: {"reason": "Wrong player"}, text=("reason",)),
    # A correction's confirm (its first post is a dry run that stores nothing): Kul's deal 1, Cia's trick, was Bo's.
    Case("correct_round", "pages.correct_round", lambda w: f"/matches/{w.matches['kul']}/rounds/1/correct",
         lambda _w: {"form_token": "cor-1", "last_trick": "Bo", "confirm": "yes", "reason": "Wrong player"},
         required=("last_trick",), text=("reason", "last_trick")),
    Case("close_match", "pages.close_match", lambda w: f"/matches/{w.matches['kul']}/close",
         lambda _w: {"pot": "award", "to": "Cia", "confirm": "yes"}, required=("pot",), text=("to",)),
    Case("undo_deal", "pages.undo_deal", lambda w: f"/matches/{w.kul_undo}/rounds/1/undo",
         lambda _w: {"form_token": "undo-1"}),
    Case("next_game", "pages.next_game", lambda w: f"/matches/{w.kul_won}/next", lambda _w: {"form_token": "kul-2"}),
    Case("knaker_referee", "pages.knaker_referee", lambda _w: "/referee/knaker",
         lambda _w: {"pile": "5H 6S", "lays": "hand:7D", "action": "ask"}, text=("pile", "lays", "history", "typed"),
         numbers=("dots",), stores=False, accepted=200),
    Case("knaker_referee_verdict", "pages.knaker_referee_verdict", lambda _w: "/referee/knaker/verdict",
         lambda _w: {"pile": "5H 6S", "lays": "hand:7D"}, text=("pile", "lays", "history"), numbers=("dots",),
         stores=False, accepted=200),
    # Cia (the svängare after the first round) and Dan play a deal; Cia takes all three tricks.
    Case("round_from_deal", "pages.round_from_deal", lambda w: f"/matches/{w.matches['svangknack']}/rounds/deal",
         lambda _w: {"form_token": "tok-deal", "expected_seq": "2", "players": "Cia, Dan", "leader": "Cia",
                     "trump": "H", "deal": "AS 2S / AD 2D / AC 2C"},
         required=("deal", "players", "leader"), text=("players", "leader", "deal", "trump"),
         numbers=("expected_seq",)),
    Case("trick_referee", "pages.trick_referee", lambda _w: "/referee/tricks/svangknack",
         lambda _w: {"players": "Anna, Bo", "leader": "Anna", "trump": "H", "deal": "AS 2S"},
         text=("players", "leader", "deal", "trump"), stores=False, accepted=200),
    Case("trick_dispute", "pages.trick_dispute", lambda _w: "/referee/tricks/svangknack/dispute",
         lambda _w: {"players": "Anna, Bo, Cia", "leader": "Anna", "trump": "H", "trick": "KD 3C", "card": "3C",
                     "known": "suit"},
         required=("players", "leader", "trump", "trick"),
         text=("players", "leader", "trump", "trick", "card", "known"),
         stores=False, accepted=200),
    Case("schloapfer_eyes", "pages.schloapfer_eyes", lambda _w: "/referee/schloapfer/eyes",
         lambda _w: {"trump": "S", "card": "AS"}, text=("card", "trump", "match"), numbers=("pos", "match"),
         stores=False, accepted=200),
    # The tournaments' forms (issue 30), on blueprints of their own (issue 45.7).
    Case("new_tournament", "tournaments.new", lambda _w: "/tournaments/new",
         lambda _w: {"name": "Kvällscup", "currency": "SEK", "game": "kul", "players": "Anna\nBo\nCia\nDan",
                     "table_size": "2", "format": "series", "series": "1", "stake": "1.00", "seed": "cup"},
         required=("name", "players"), text=("name", "players", "seed", "stake", "prizes"),
         numbers=("table_size", "series")),
    Case("next_series", "tournaments.next_series", lambda w: f"/tournaments/{w.tournament}/next",
         lambda _w: {"form_token": "next-1"}),
    # Players who come late or leave early (issue 43.2): the cup is in its first of two series.
    Case("late_player", "tournaments.late_player", lambda w: f"/tournaments/{w.tournament}/players",
         lambda _w: {"name": "Lea"}, required=("name",), text=("name",)),
    Case("withdraw", "tournaments.withdraw", lambda w: f"/tournaments/{w.tournament}/players/Bo/withdraw",
         lambda _w: {"confirm": "yes"}),
    Case("tournament_me", "hall.me", lambda w: f"/tournaments/{w.tournament}/me", lambda _w: {"player": "Bo"},
         text=("player",), stores=False, accepted=302),  # the phone's choice is kept in its session
]
BY_NAME = {c.name: c for c in CASES}
STORING = [c for c in CASES if c.stores]


# --- apps, clients, checks --------------------------------------------------------------------

def fresh(app: Any) -> tuple[Any, World]:
    """An emptied database with the world built anew, and a phone holding both nights' edit links."""
    with app.app_context():
        wipe()
        world = build_world()
    client = app.test_client()
    for token in world.tokens.values():
        assert client.get(f"/e/{token}").status_code == 302
    with client.session_transaction() as sess:
        sess["offline_done"] = [UNDO_KEY]  # this phone saved the Kul deal of world.kul_undo
    return client, world


def picture(client: Any) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the client's app's database (no app context is held between requests)."""
    with client.application.app_context():
        return db_picture()


@pytest.fixture(scope="module")
def sqlite_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    tmp = tmp_path_factory.mktemp("forms")
    app = make_app(f"sqlite:///{tmp / 'forms.sqlite3'}", tmp)
    yield app
    with app.app_context():
        db.engine.dispose()


@pytest.fixture(scope="module")
def csrf_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    tmp = tmp_path_factory.mktemp("forms_csrf")
    app = make_app(f"sqlite:///{tmp / 'forms.sqlite3'}", tmp, WTF_CSRF_ENABLED=True)
    yield app
    with app.app_context():
        db.engine.dispose()


@pytest.fixture(scope="module")
def pg_app(tmp_path_factory: pytest.TempPathFactory, postgres: PostgresServer | None) -> Iterator[Any]:
    if postgres is None:
        pytest.skip("PostgreSQL server not available")
    app = make_app(postgres.create_database("hostile_forms"), Path(tmp_path_factory.mktemp("forms_pg")))
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def env(sqlite_app: Any) -> tuple[Any, World]:
    return fresh(sqlite_app)


def flashed_error(client: Any) -> bool:
    with client.session_transaction() as sess:
        return any(cat == "error" for cat, _msg in sess.get("_flashes", []))


def refused(client: Any, case: Case, resp: Any, what: str) -> None:
    """A clean refusal: never a 500; an error status, or the form again with an error."""
    status = resp.status_code
    assert status != 500, f"{case.name}, {what}: 500"
    if not case.stores:  # the referee tools store nothing: any clean answer will do
        assert status in (200, 400, 413, 422), f"{case.name}, {what}: {status}"
        return
    if status in (400, 409, 413, 422):
        return
    if status == 200:
        assert ERROR_MARK.search(resp.get_data(as_text=True)), f"{case.name}, {what}: 200 without an error"
        return
    assert status == 302 and flashed_error(client), f"{case.name}, {what}: {status} without an error"


def check_refused(client: Any, case: Case, world: World, what: str, data: Any = None, **kw: Any) -> None:
    """Post, expect a clean refusal and every row of every table unchanged."""
    with client.session_transaction() as sess:
        sess.pop("_flashes", None)
    before = picture(client)
    resp = client.post(case.url(world), data=data, **kw)
    refused(client, case, resp, what)
    assert picture(client) == before, f"{case.name}, {what}: the database changed"


def check_accepted(client: Any, case: Case, world: World, data: Any = None, **kw: Any) -> dict[str, Any]:
    """The baseline: the case's valid post is accepted (and stores, if the form stores)."""
    with client.session_transaction() as sess:
        sess.pop("_flashes", None)
    before = picture(client)
    resp = client.post(case.url(world), data=case.valid(world) if data is None else data, **kw)
    assert resp.status_code == case.accepted, (case.name, resp.status_code, resp.get_data(as_text=True)[:3000])
    if case.stores:
        assert resp.status_code != 302 or not flashed_error(client), case.name
        assert picture(client) != before, f"{case.name}: the valid post stored nothing"
    return picture(client)


def ids(cases: list[Case]) -> list[Any]:
    return [pytest.param(c, id=c.name) for c in cases]


# --- the URL map --------------------------------------------------------------------------

def test_every_post_route_is_covered(sqlite_app: Any) -> None:
    posts = {r.endpoint for r in sqlite_app.url_map.iter_rules()  # every form: every POST outside the JSON API
             if "POST" in (r.methods or ()) and not r.rule.startswith("/api/")}
    assert posts, "no POST routes found: the blueprint names changed?"
    covered = {c.endpoint for c in CASES}
    assert not posts - covered, f"POST routes without a hostile-input case: {sorted(posts - covered)}"
    assert not covered - posts, f"cases of routes that no longer exist: {sorted(covered - posts)}"
    round_games = {c.name.removeprefix("round_") for c in CASES if c.endpoint == "pages.add_round"}
    assert set(PAGE_GAMES) <= round_games, f"games whose round form has no case: {set(PAGE_GAMES) - round_games}"


def test_error_mark_is_absent_from_a_clean_form(env: tuple[Any, World]) -> None:
    """The 200-with-error check can fail: the forms as first shown carry no error mark."""
    client, world = env
    for url in ("/nights/new", f"/nights/{world.night_b}/matches/new", f"/matches/{world.matches['kul']}",
                f"/matches/{world.matches['kul']}/rounds/1/void", f"/nights/{world.night_b}/players/Anna/details"):
        resp = client.get(url)
        assert resp.status_code == 200 and not ERROR_MARK.search(resp.get_data(as_text=True)), url


# --- missing and extra fields ----------------------------------------------------------------

@pytest.mark.parametrize("case", ids(CASES))
def test_missing_fields(env: tuple[Any, World], case: Case) -> None:
    client, world = env
    if case.required and not case.empty_valid:
        check_refused(client, case, world, "empty body", {})
    valid = case.valid(world)
    for name in case.required:
        check_refused(client, case, world, f"without {name}", {k: v for k, v in valid.items() if k != name})
        check_refused(client, case, world, f"{name} empty", valid | {name: ""})
    check_accepted(client, case, world)


EXTRA = {"id": "987654", "night_id": "987654", "match_id": "987654", "edit_token": SENTINEL, "status": "closed",
         "void": "1", "balance": "987654", "is_admin": "1", "payload": SENTINEL, SENTINEL: SENTINEL}


@pytest.mark.parametrize("case", ids(CASES))
def test_extra_fields(env: tuple[Any, World], case: Case) -> None:
    client, world = env
    valid = case.valid(world)
    if case.required:  # an invalid post with extras: still nothing stored
        check_refused(client, case, world, "extras without a required field",
                      {k: v for k, v in valid.items() if k != case.required[0]} | EXTRA)
    after = check_accepted(client, case, world, valid | EXTRA)
    flat = repr(after)
    assert SENTINEL not in flat and "987654" not in flat, f"{case.name}: an unknown field was stored"
    made = case.name in ("new_night", "new_tournament")  # a tournament is a night
    assert len(after["nights"]) == 3 + made, "a night was made or lost"


# --- oversized --------------------------------------------------------------------------------

class CountingStream(io.BytesIO):
    """A request body that remembers how much of it the app read."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.taken = 0

    def read(self, size: int | None = -1) -> bytes:
        chunk = super().read(size)
        self.taken += len(chunk)
        return chunk

    def readline(self, size: int | None = -1) -> bytes:
        chunk = super().readline(size)
        self.taken += len(chunk)
        return chunk


def big_body(case: Case, world: World, size: int) -> bytes:
    from urllib.parse import urlencode

    target = (case.text or case.required or ("filler",))[0]
    return urlencode(case.valid(world) | {target: "x" * size}).encode()


@pytest.mark.parametrize("case", ids(CASES))
def test_oversized_body_is_refused_before_it_is_read(env: tuple[Any, World], case: Case) -> None:
    client, world = env
    body = big_body(case, world, MB)
    before = picture(client)
    stream = CountingStream(body)
    resp = client.post(case.url(world), input_stream=stream, content_length=len(body),
                       content_type="application/x-www-form-urlencoded")
    assert resp.status_code == 413, (case.name, resp.status_code)
    assert stream.taken == 0, f"{case.name}: {stream.taken} bytes read before refusing"
    # No Content-Length (a streamed body): refused once the limit is passed, not after the whole body.
    stream = CountingStream(body)
    resp = client.post(case.url(world), input_stream=stream, content_type="application/x-www-form-urlencoded",
                       environ_overrides={"wsgi.input_terminated": True})
    assert resp.status_code == 413, (case.name, "streamed", resp.status_code)
    assert stream.taken <= LIMIT + 64 * 1024, f"{case.name}: read {stream.taken} bytes of a streamed body"
    # Multipart, the other form encoding.
    target = (case.text or case.required or ("filler",))[0]
    resp = client.post(case.url(world), data=case.valid(world) | {target: "x" * MB}, content_type="multipart/form-data")
    assert resp.status_code == 413, (case.name, "multipart", resp.status_code)
    assert picture(client) == before


@pytest.mark.parametrize("case", ids([c for c in CASES if c.text]))
def test_a_long_text_field_under_the_body_limit_is_a_form_error(env: tuple[Any, World], case: Case) -> None:
    """200 KB passes the body limit; no form takes a text that long: refused, not stored."""
    client, world = env
    for name in case.text:
        check_refused(client, case, world, f"200 KB in {name}", case.valid(world) | {name: "Å" * 100_000})
        check_refused(client, case, world, f"200 KB in {name} (multipart)", case.valid(world) | {name: "y" * 200_000},
                      content_type="multipart/form-data")


# --- wrongly typed ----------------------------------------------------------------------------

@pytest.mark.parametrize("case", ids(CASES))
def test_wrongly_typed_fields(env: tuple[Any, World], case: Case) -> None:
    client, world = env
    valid = case.valid(world)
    for name in case.numbers:
        for bad in BAD_NUMBERS:
            check_refused(client, case, world, f"{name}={bad[:12]!r}", valid | {name: bad})
    for name, value in valid.items():  # each field sent twice: a list where one value belongs
        other = "Nobody" if value != "Nobody" else "Anna"
        data = [(k, v) for k, v in valid.items()] + [(name, other)]
        if (case.name, name) in (("schloapfer_eyes", "card"), ("trick_dispute", "known")):
            continue  # the eye counter takes a list of cards, the dispute a list of facts, by design
        check_refused(client, case, world, f"{name} twice", _multidict(data))
    check_accepted(client, case, world)


def _multidict(pairs: list[tuple[str, str]]) -> Any:
    from werkzeug.datastructures import MultiDict

    return MultiDict(pairs)


# --- wrongly encoded --------------------------------------------------------------------------

def _field_for_bytes(case: Case) -> str:
    return (case.text or case.required or case.numbers or ("filler",))[0]


@pytest.mark.parametrize("case", ids(CASES))
def test_wrongly_encoded_bodies(env: tuple[Any, World], case: Case) -> None:
    from urllib.parse import urlencode

    client, world = env
    valid = case.valid(world)
    target = _field_for_bytes(case)
    rest = urlencode({k: v for k, v in valid.items() if k != target}).encode()
    form = "application/x-www-form-urlencoded"
    for raw in (b"\xff\xfeAnna", b"Anna\xc3", b"\xed\xa0\x80x", "Åsa".encode("latin-1")):
        body = rest + b"&" + target.encode() + b"=" + raw
        check_refused(client, case, world, f"raw bytes {raw!r} in {target}", body, content_type=form)
    for quoted in ("%FF%FEAnna", "Anna%C3", "%C0%AF"):
        body = rest + b"&" + target.encode() + b"=" + quoted.encode()
        check_refused(client, case, world, f"percent-encoded {quoted} in {target}", body, content_type=form)
    check_refused(client, case, world, "a key of invalid bytes", rest + b"&\xff\xfe=1", content_type=form)
    if case.stores and case.name != "revoke":
        check_refused(client, case, world, "text/plain body", urlencode(valid), content_type="text/plain")
        check_refused(client, case, world, "a JSON body", json.dumps(valid), content_type="application/json")
        check_refused(client, case, world, "no Content-Type", urlencode(valid).encode(), content_type="")
        file_data = valid | {target: (io.BytesIO(b"Anna"), "name.txt")}
        check_refused(client, case, world, f"a file in {target}", file_data, content_type="multipart/form-data")
        check_refused(client, case, world, "a multipart body without its boundary",
                      b"--xx\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n\xff",
                      content_type="multipart/form-data; boundary=yy")
        whole = _multipart(valid)
        check_refused(client, case, world, "a multipart body cut short", whole[: len(whole) * 2 // 3],
                      content_type="multipart/form-data; boundary=cut")
    # The same post, whole and as multipart, is accepted like the urlencoded one.
    check_accepted(client, case, world, _multipart(valid), content_type="multipart/form-data; boundary=cut")


def _multipart(fields: dict[str, str]) -> bytes:
    """``fields`` as a multipart body with the boundary ``cut``."""
    parts = [f'--cut\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n' for k, v in fields.items()]
    return ("".join(parts) + "--cut--\r\n").encode()


# --- every form, both backends: one check for all (issue 45.7) ------------------------------------------------

@pytest.fixture(params=["sqlite", "postgres"])
def either_app(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue("sqlite_app" if request.param == "sqlite" else "pg_app")


@pytest.mark.parametrize("case", ids(CASES))
def test_every_form_refuses_bad_bytes_a_doubled_field_and_nul(either_app: Any, case: Case) -> None:
    """Whatever its blueprint, a form with invalid UTF-8, a field sent twice or a NUL is a 400; nothing stored.

    Each attack is the case's valid post with one field changed, so the 400 is the attack's: the valid post
    is accepted after them. The tournament and hall forms took ``name=Kv%E4ll`` (stored as that text) and
    ``name=A&name=B`` (the first kept), which ``/nights/new`` refused; a NUL in a text was a 500 on PostgreSQL.
    """
    from urllib.parse import urlencode

    client, world = fresh(either_app)
    valid = case.valid(world)
    lists = LIST_FIELDS.get(case.endpoint, set())
    target = next(k for k in (*case.text, *case.required, *valid) if k not in lists)
    rest = urlencode({k: v for k, v in valid.items() if k != target})
    form = "application/x-www-form-urlencoded"
    for what, body in (("invalid UTF-8", f"{rest}&{target}=Kv%E4ll"),
                       ("a doubled field", f"{rest}&{target}={quote(valid.get(target, 'A'))}&{target}=B"),
                       ("a NUL", f"{rest}&{target}=Kv%00ll")):
        before = picture(client)
        resp = client.post(case.url(world), data=body.encode(), content_type=form)
        assert resp.status_code == 400, (case.name, what, target, resp.status_code)
        assert picture(client) == before, f"{case.name}, {what}: the database changed"
    check_accepted(client, case, world)


# --- CSRF ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", ids(CASES))
def test_without_a_csrf_token(csrf_app: Any, case: Case) -> None:
    from urllib.parse import urlencode

    client, world = fresh(csrf_app)
    valid = case.valid(world)
    before = picture(client)
    for what, data in (("no CSRF token", valid), ("a forged CSRF token", valid | {"csrf_token": "forged.AAAA"})):
        resp = client.post(case.url(world), data=data)
        assert resp.status_code == 400, (case.name, what, resp.status_code)
        assert picture(client) == before, f"{case.name}, {what}: the database changed"
    html = client.get("/nights/new").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html)
    assert token, "the page carries no CSRF token"
    signed = valid | {"csrf_token": token.group(1)}
    # With a good token, a body the form cannot have sent is still refused (the check must see the raw
    # body before CSRFProtect parses it).
    target = _field_for_bytes(case)
    body = urlencode({k: v for k, v in signed.items() if k != target}).encode() + f"&{target}=%FF%FEAnna".encode()
    check_refused(client, case, world, "signed, percent-encoded bytes", body,
                  content_type="application/x-www-form-urlencoded")
    whole = _multipart(signed)
    check_refused(client, case, world, "signed, multipart cut short", whole[: len(whole) * 2 // 3],
                  content_type="multipart/form-data; boundary=cut")
    check_accepted(client, case, world, signed)


# --- PostgreSQL ----------------------------------------------------------------------------------

PG_CASES = [BY_NAME[n] for n in ("new_night", "new_match", "add_payment", "round_svangknack", "round_schwimmen",
                                 "carry")]


@pytest.mark.parametrize("case", ids(PG_CASES))
def test_postgres_typed_encoded_and_oversized(pg_app: Any, case: Case) -> None:
    from urllib.parse import urlencode

    client, world = fresh(pg_app)
    valid = case.valid(world)
    for name in case.numbers:
        for bad in ("abc", "NaN", "-5", "1" + "0" * 30, "1e400"):
            check_refused(client, case, world, f"{name}={bad[:12]!r}", valid | {name: bad})
    target = _field_for_bytes(case)
    body = urlencode({k: v for k, v in valid.items() if k != target}).encode() + f"&{target}=".encode() + b"\xff"
    check_refused(client, case, world, "invalid UTF-8", body, content_type="application/x-www-form-urlencoded")
    for name in case.text:
        check_refused(client, case, world, f"200 KB in {name}", valid | {name: "x" * 200_000})
    check_refused(client, case, world, "1 MB", big_body(case, world, MB),
                  content_type="application/x-www-form-urlencoded")
    check_accepted(client, case, world)
