"""Schemathesis against ``/api/openapi.json``, in process (WSGI), on SQLite and PostgreSQL.

Why: the API contract says "never a 500 for anything a client sends", and the
OpenAPI document claims to describe every endpoint. A fuzzer that knows the
document checks both at once: each generated request must get an answer that
is not a server error and that matches the status codes, content type and
response schema the document promises.

A fuzzer without credentials or existing ids only ever reaches 401 and 404,
so every operation runs against a real night (all five games, rounds, a void,
dots, payments, payment details, a later night of the same group), and the
generated requests are steered: most carry the night's edit token, path
parameters mostly name existing nights, matches, rounds, payments and
players, and some bodies are replaced by plausible ones (real players, the
night's own export) so that the success paths and their schemas are checked
too. Positive (schema-valid) and negative (schema-breaking) requests are mixed.
"""

from __future__ import annotations

import copy
import itertools
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from referee.api.openapi import document
from referee.engine.spec import SPECS
from tests import conftest
from tests.components import PostgresServer, missing
from tests.conftest import make_app
from tests.web.helpers import Api
from tests.web.test_exports import build_night

#: Examples per operation and backend (half of them positive, half negative, roughly).
EXAMPLES = 20

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          response_headers_conformance]


def _labels() -> list[str]:
    """Every operation of the document (taken from the document itself, so none can be left out)."""
    schema = schemathesis.openapi.from_dict(document())
    return sorted(result.ok().label for result in schema.get_all_operations())


LABELS = _labels()

CARDS = ["AS", "KH", "QD", "JC", "10H", "9S", "8D", "7C", "6H", "2S", "5C", "XR"]

#: Cases run per operation label over the whole session (checked at the end of each test).
RUN: Counter[str] = Counter()


class World:
    """A night with something of everything, and the ids a request may name."""

    def __init__(self, client: Any) -> None:
        self.client = client
        api = build_night(client)
        self.night_id: int = api.night["id"]
        self.group_token: str = api.night["group_token"]
        # A night of the group whose matches are over (its debts can be carried) and a later one.
        done = Api(client)
        done.new_night(["Anna", "Bo", "Cia"], group_token=api.night["group_token"])
        kul = done.new_match("kul", ["Anna", "Bo", "Cia"], stake="1.00")["id"]
        while not done.match(kul)["state"]["finished"]:
            assert done.round(kul, {"last_trick": "Cia"})[0] == 201
        assert done.match(kul)["status"] == "closed"  # a won Kul closes itself
        self.done_id: int = done.night["id"]
        later = Api(client)
        later.new_night(["Anna", "Bo", "Cia", "Fia"], group_token=api.night["group_token"])
        self.later_id: int = later.night["id"]
        #: Each night's edit and view token (a revoke replaces an edit token).
        self.edit: dict[int, str] = {n.night["id"]: n.night["edit_token"] for n in (api, done, later)}
        self.view: dict[int, str] = {n.night["id"]: n.night["view_token"] for n in (api, done, later)}
        # build_night closes its Knaker match: one more, open, so that dots can be given.
        self.open_knaker: int = api.new_match("knaker", ["Anna", "Bo", "Cia"], stake="1.00")["id"]
        api.new_match("kul", ["Bo", "Cia", "Dan"], stake="1.00")  # its Kul is won already
        night = api.call("GET", f"/api/nights/{self.night_id}")[1]
        self.players: list[str] = night["players"]
        self.matches: dict[int, str] = {m["id"]: m["game"] for m in night["matches"]}
        self.match_players: dict[int, list[str]] = {m["id"]: m["players"] for m in night["matches"]}
        self.rounds: dict[int, int] = {mid: len(api.match(mid)["rounds"]) for mid in self.matches}
        settlement = api.call("GET", f"/api/nights/{self.night_id}/settlement")[1]
        self.payments: list[int] = [p["id"] for p in settlement["payments"]]
        self.export: dict[str, Any] = api.call("GET", f"/api/nights/{self.night_id}/export.json")[1]
        assert self.payments and len(self.matches) == 7 and set(self.matches.values()) == set(SPECS)
        # A tournament of the group (issue 30): its night's tokens join the others', its ids the path choices.
        status, made = api.call("POST", "/api/tournaments", {
            "name": "Fuzz cup", "currency": "SEK", "game": "kul", "players": ["Anna", "Bo", "Cia", "Dan", "Eva", "Fia"],
            "table_size": 3, "stake": "1.00", "group_token": self.group_token}, token=None)
        assert status == 201, made
        self.tournament: int = made["id"]
        self.tournament_night: int = made["night"]
        self.edit[made["night"]] = made["edit_token"]
        self.view[made["night"]] = made["view_token"]

    def path_choices(self, name: str, match_id: int | None) -> list[Any]:
        if name == "night_id":
            return [self.night_id, self.done_id, self.later_id]
        if name == "match_id":
            return list(self.matches)
        if name == "seq":
            top = self.rounds.get(match_id or 0, 3)
            return list(range(1, top + 2))
        if name == "payment_id":
            return self.payments
        if name == "name":
            return self.players
        if name == "group_token":
            return [self.group_token]
        if name == "tournament_id":
            return [self.tournament]
        if name == "number":
            return [1, 2]
        raise AssertionError(f"no real values for path parameter {name}")

    def svangare(self, match_id: int) -> str:
        """Who must play the next Svängknack round (SK-8): the match's live state says."""
        resp = self.client.get(f"/api/matches/{match_id}",
                               headers={"Authorization": f"Bearer {self.edit[self.night_id]}"})
        return str((resp.get_json() or {}).get("state", {}).get("svangare") or self.players[0])

    def open_transfer(self, night_id: object) -> dict[str, str]:
        """A part of a transfer the night's settlement plan asks for (or a made-up one)."""
        token = self.edit.get(night_id, "") if isinstance(night_id, int) else ""
        resp = self.client.get(f"/api/nights/{night_id}/settlement", headers={"Authorization": f"Bearer {token}"})
        transfers = (resp.get_json() or {}).get("transfers") if resp.status_code == 200 else None
        if not transfers:
            return {"from": "Anna", "to": "Bo", "amount": "0.01"}
        return {k: transfers[0][k] for k in ("from", "to", "from_pot", "to_pot")} | {"amount": "0.01"}

    def plausible_body(self, label: str, case: Any, draw: Any) -> Any:
        """A body the app may well accept (None: keep the generated one)."""
        players = self.players
        match_id = (case.path_parameters or {}).get("match_id")
        night_id = (case.path_parameters or {}).get("night_id")
        seats = self.match_players.get(match_id, players[:3]) if isinstance(match_id, int) else players[:3]
        pick = st.sampled_from(players)
        bodies: dict[str, Any] = {
            "POST /api/nights": st.fixed_dictionaries(
                {"name": st.text(min_size=1, max_size=20), "currency": st.sampled_from(["SEK", "EUR", "JPY"]),
                 "players": st.lists(st.sampled_from(["Ada", "Ben", "Cy", "Di"]), min_size=1, max_size=4,
                                     unique=True)}),
            "POST /api/import": st.just(self.export),
            "POST /api/nights/{night_id}/players": st.fixed_dictionaries({"name": st.text(min_size=1, max_size=12)}),
            "POST /api/nights/{night_id}/matches": st.fixed_dictionaries(
                {"game": st.sampled_from(["svangknack", "kul", "schloapfer", "schwimmen", "knaker"]),
                 "players": st.lists(pick, min_size=2, max_size=5, unique=True),
                 "stake": st.sampled_from(["3.00", "0.30", "6"])}),
            "POST /api/nights/{night_id}/payments": st.one_of(
                st.fixed_dictionaries({"from": pick, "to": pick, "amount": st.sampled_from(["0.50", "999.00"])}),
                st.builds(lambda: self.open_transfer(night_id))),
            "POST /api/nights/{night_id}/carry": st.fixed_dictionaries(
                {"to_night": st.sampled_from([self.later_id, self.night_id, self.done_id])}),
            "POST /api/matches/{match_id}/dots": st.fixed_dictionaries(
                {"player": st.sampled_from(["Anna", "Bo", "Cia"]),
                 "offence": st.sampled_from(["ordinary", "swap_face_down"])}),
            "POST /api/matches/{match_id}/close": st.fixed_dictionaries(
                {"pot": st.sampled_from(["split", "award", "carry"]), "to": st.sampled_from(seats)}),
            "POST /api/matches/{match_id}/rounds": {
                "kul": st.fixed_dictionaries({"last_trick": st.sampled_from(seats)}),
                "svangknack": st.builds(lambda: {"participants": [self.svangare(match_id)]}),
                "schloapfer": st.fixed_dictionaries(
                    {"eyes": st.dictionaries(st.sampled_from(seats), st.integers(0, 70), min_size=1)}),
                "schwimmen": st.fixed_dictionaries(
                    {"ended_by": st.sampled_from(["knock", "31", "feuer"]), "by": st.sampled_from(seats),
                     "losers": st.lists(st.sampled_from(seats), min_size=1, max_size=1)}),
                "knaker": st.fixed_dictionaries({"events": st.lists(st.dictionaries(
                    st.sampled_from(["out", "lost"]), st.lists(st.sampled_from(seats), min_size=1, max_size=2,
                                                               unique=True), min_size=1, max_size=1),
                    min_size=1, max_size=3)}),
            }.get(self.matches.get(match_id, ""), st.just({"last_trick": seats[0]})),
            "POST /api/nights/{night_id}/players/{name}/details": st.fixed_dictionaries(
                {"swish": st.sampled_from(["070-123 45 67", "", "123"])}),
            "POST /api/referee/svangknack/dealer": st.fixed_dictionaries(
                {"draws": st.dictionaries(st.sampled_from(players), st.sampled_from(CARDS), min_size=1)}),
            "POST /api/referee/schwimmen/value": st.fixed_dictionaries(
                {"cards": st.lists(st.sampled_from(CARDS), min_size=3, max_size=3, unique=True),
                 "deck": st.sampled_from([32, 36, 52])}),
            "POST /api/referee/schloapfer/eyes": st.fixed_dictionaries(
                {"cards": st.lists(st.sampled_from(CARDS), max_size=8, unique=True),
                 "trump": st.sampled_from("SHDC")}),
            "POST /api/referee/tricks/dispute": st.fixed_dictionaries(
                {"game": st.just("svangknack"), "trump": st.sampled_from("SHDC"), "players": st.just(players),
                 "leader": st.sampled_from(players),
                 "trick": st.lists(st.sampled_from(CARDS), min_size=1, max_size=len(players), unique=True),
                 "known": st.lists(st.sampled_from(["suit", "higher", "trump", "higher_trump", "second"]),
                                   max_size=3)}),
            "POST /api/referee/knaker/play": st.fixed_dictionaries(
                {"pile": st.lists(st.sampled_from(CARDS), max_size=4, unique=True),
                 "lays": st.lists(st.lists(st.sampled_from(CARDS), min_size=1, max_size=2, unique=True),
                                  min_size=1, max_size=2),
                 "last_card": st.booleans()}),
        }
        strategy = bodies.get(label)
        return None if strategy is None else draw(strategy)


_copies = itertools.count(1)


@pytest.fixture(scope="module", autouse=True)
def _report_cases() -> Iterator[None]:
    """How many requests the fuzzer sent in this module (shown with ``-s``)."""
    yield
    print(f"\nschemathesis: {sum(RUN.values())} cases over {len(RUN)} operations and both backends")


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def template(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
             postgres: PostgresServer | None) -> tuple[str, World]:
    """The world, built once per backend: each test fuzzes a copy of its database."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('world') / 'world.sqlite3'}"
    else:
        if postgres is None:
            missing(f"PostgreSQL server (Debian package postgresql): {conftest.PG_ERROR}")
        assert postgres is not None
        url = postgres.create_database("schemathesis_world")
    app = make_app(url, tmp_path_factory.mktemp("instance"))
    world = World(app.test_client())
    _dispose(app)
    return url, world


def _dispose(app: Any) -> None:
    from referee.models import db

    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def _copy_database(url: str, tmp_path: Path) -> str:
    if url.startswith("sqlite:///"):
        source = Path(url.removeprefix("sqlite:///"))
        target = tmp_path / "fuzz.sqlite3"
        for suffix in ("", "-wal", "-shm"):
            if Path(f"{source}{suffix}").exists():
                shutil.copy(f"{source}{suffix}", f"{target}{suffix}")
        return f"sqlite:///{target}"
    admin = sa.create_engine(sa.make_url(url).set(database="postgres"), isolation_level="AUTOCOMMIT")
    name = f"fuzz{next(_copies)}"
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
        conn.exec_driver_sql(f'CREATE DATABASE "{name}" TEMPLATE "{sa.make_url(url).database}"')
    admin.dispose()
    return str(sa.make_url(url).set(database=name).render_as_string(hide_password=False))


@pytest.fixture
def world_app(template: tuple[str, World], tmp_path: Path) -> Iterator[tuple[Any, World]]:
    url, world = template
    # Random view tokens are wrong tokens: the limiter must not turn the whole run into 429s.
    # The live stream ends after LIVE_LIFETIME seconds: short here, so a fuzzed case reads it to the end.
    application = make_app(_copy_database(url, tmp_path), tmp_path, TOKEN_FAILURES=10**6, LIVE_LIFETIME=0.2,
                           LIVE_PING=0.1)
    mine = copy.copy(world)
    mine.edit = dict(world.edit)  # revoking changes the tokens
    mine.client = application.test_client()
    yield application, mine
    _dispose(application)


def _steer(case: Any, label: str, world: World, draw: Any) -> None:
    """Point the generated request at real things, with the right credentials most of the time."""
    params = case.path_parameters or {}
    for name in list(params):
        # Hypothesis favours small draws: 0-2 (mostly drawn) mean an existing object, 3 the generated value.
        if draw(st.integers(0, 3)) < 3:
            params[name] = draw(st.sampled_from(world.path_choices(name, params.get("match_id"))))
    if label.startswith("POST") and draw(st.integers(0, 1)) == 0:  # about half: a plausible body
        body = world.plausible_body(label, case, draw)
        if body is not None:
            case.body = body
            if label.endswith("/dots"):
                params["match_id"] = world.open_knaker  # the only match that takes dots now
            if label.endswith("/carry"):
                params["night_id"] = world.done_id  # the only night whose matches are all over
            if case.headers:
                case.headers.pop("Expected-Round", None)  # a random one is a 409 and nothing more
    if params:
        case.path_parameters = params
    # The night the request is about (match routes: all matches are the main night's).
    night = params.get("night_id", world.tournament_night if "tournament_id" in params else world.night_id)
    night = night if isinstance(night, int) and night in world.edit else world.night_id
    other = world.later_id if night != world.later_id else world.night_id
    who = draw(st.sampled_from(["edit"] * 6 + ["view", "none", "other"]))
    headers = dict(case.headers or {})
    headers.pop("Authorization", None)
    if who == "edit":
        headers["Authorization"] = f"Bearer {world.edit[night]}"
    elif who == "other":
        headers["Authorization"] = f"Bearer {world.edit[other]}"
    elif who == "view":
        case.query = {**(case.query or {}), "view": world.view[night]}
    case.headers = headers


@pytest.mark.parametrize("label", LABELS)
def test_operation_survives_fuzzing(world_app: tuple[Any, World], label: str) -> None:
    app, world = world_app
    client = world.client
    # from_dict, not from_wsgi: from_wsgi leaves out the document's own operation, which must be fuzzed too.
    schema = schemathesis.openapi.from_dict(client.get("/api/openapi.json").get_json())
    schema.app = app
    operation = next(r.ok() for r in schema.get_all_operations() if r.ok().label == label)
    strategy = st.one_of(operation.as_strategy(generation_mode=GenerationMode.POSITIVE),
                         operation.as_strategy(generation_mode=GenerationMode.NEGATIVE))
    statuses: Counter[int] = Counter()

    @settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(case=strategy, data=st.data())
    def fuzz(case: Any, data: st.DataObject) -> None:
        _steer(case, label, world, data.draw)
        response = case.call_and_validate(checks=CHECKS)
        statuses[response.status_code] += 1
        RUN[label] += 1
        if label == "POST /api/nights/{night_id}/revoke" and response.status_code == 200:
            world.edit[case.path_parameters["night_id"]] = response.json()["edit_token"]

    fuzz()
    print(f"{label}: {sum(statuses.values())} cases, statuses {dict(sorted(statuses.items()))}")
    # An operation without inputs has few distinct cases; Hypothesis stops once it has tried them.
    least = 1 if not (operation.path_parameters or operation.body or operation.query or operation.headers) \
        else EXAMPLES // 2
    assert sum(statuses.values()) >= least, f"{label} was hardly exercised: {statuses}"
    if label != "GET /api/openapi.json":
        # Steering must reach past the door: some answers other than 401/403/404 for every operation.
        assert set(statuses) - {401, 403, 404}, f"{label} only met closed doors: {statuses}"


def test_every_api_route_is_an_operation_of_the_document(tmp_path: Path) -> None:
    """The fuzzing above covers the document; the document must cover the app (both ways)."""
    app = make_app(f"sqlite:///{tmp_path / 'routes.sqlite3'}", tmp_path)
    routes = set()
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        path = rule.rule
        for arg in rule.arguments:
            path = path.replace(f"<int:{arg}>", f"{{{arg}}}").replace(f"<{arg}>", f"{{{arg}}}")
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            routes.add(f"{method} {path}")
    assert routes == set(LABELS)


@pytest.mark.parametrize("big", [2**31, 2**40, 2**62 - 1])
def test_ids_beyond_32_bits_are_404_or_400(client: Any, big: int) -> None:
    """Found by this fuzzer on PostgreSQL: ids are INTEGER columns there, and 2**31 overflowed (a 500)."""
    api = Api(client)
    night = api.new_night(["Anna", "Bo"])["id"]
    for method, path in (("GET", f"/api/nights/{big}"), ("GET", f"/api/matches/{big}"),
                         ("POST", f"/api/nights/{big}/carry"), ("POST", f"/api/nights/{night}/payments/{big}/void"),
                         ("GET", f"/nights/{big}"), ("GET", f"/matches/{big}/protocol.pdf")):
        assert api.call(method, path, {} if method == "POST" else None)[0] == 404, path
    status, body = api.call("POST", f"/api/nights/{night}/carry", {"to_night": big})
    assert status == 400 and body["field"] == "to_night"
    status, body = api.call("POST", f"/api/nights/{night}/payments/{2**31 - 1}/void", {})
    assert status == 404, body
