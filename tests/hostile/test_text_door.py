"""Text no database stores, sent in every text field of every API operation: a 400 naming the field (issue 45.5).

JSON lets through text that neither backend stores: a lone surrogate
(``"\\ud800"``: not UTF-8, refused by SQLite's and PostgreSQL's drivers alike)
and NUL (``"\\u0000"``: PostgreSQL's text cannot hold it). A tournament's seed, a
night's group token and an import's void reason let them through to a column:
a 500. The fields are read from the app's own OpenAPI document
(``/api/openapi.json``): every operation with a JSON body gets a body it
accepts (checked at the end, so a refusal is the attack's doing) with one
string field at a time, nested ones and object keys too, replaced by a lone
surrogate, by a NUL and by 10,000 characters. The fields the document leaves
open (the import's whole night, a match's options) are found in the valid body
itself. Every string parameter of the path, the query and the headers gets a
NUL and 10,000 characters too.

A lone surrogate or a NUL must be a 400 whose ``field`` names the field, with
every row of every table unchanged; 10,000 characters must be a clean answer
(a refusal that writes nothing, or an acceptance; never a 5xx). On SQLite and
PostgreSQL, each operation on its own copy of one world (a night of every
game, payments, a later night, a tournament), put back after each accepted
post.
"""

from __future__ import annotations

import copy
import itertools
import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from referee.api.openapi import document
from tests import conftest
from tests.components import PostgresServer, missing
from tests.conftest import make_app
from tests.hostile.test_schemathesis import World, _dispose
from tests.hostile.test_state_machine import db_picture
from tests.web.helpers import Api

#: The texts no field may bring (surrogate, NUL) and the text no field needs (10,000 characters).
BAD = {"surrogate": "\ud800", "nul": "Kv\x00ll", "long": "x" * 10_000}
UNSTORABLE = ("surrogate", "nul")
#: A key of an object whose keys are free (``additionalProperties``): the first key of the valid body's object.
KEY = "<key>"
SIX = ["Anna", "Bo", "Cia", "Dan", "Eva", "Fia"]
CARDS_SK = [["AS", "KS", "2S"], ["5H", "9H", "QH"], ["3D", "4C", "7D"]]

Path_ = tuple[str | int, ...]


# --- the world, and a body each operation accepts ---------------------------------------------------------

class DoorWorld(World):
    """The fuzzer's world plus one open match of every game, each with a round it accepts next."""

    def __init__(self, client: Any) -> None:
        super().__init__(client)
        api = Api(client)
        api.night, api.token = {"id": self.night_id}, self.edit[self.night_id]
        seats = {"svangknack": ["Anna", "Bo", "Cia", "Dan"], "kul": ["Anna", "Bo", "Cia"],
                 "schloapfer": ["Anna", "Cia", "Eva"], "schwimmen": ["Bo", "Cia", "Dan", "Eva"],
                 "knaker": ["Anna", "Bo", "Cia"]}
        self.open: dict[str, int] = {g: api.new_match(g, p, stake="3.00", dealer=p[0])["id"] for g, p in seats.items()}
        self.voidable: int = api.new_match("kul", ["Anna", "Bo", "Cia"], stake="1.00")["id"]
        status, answer = api.round(self.voidable, {"last_trick": "Cia"})
        assert status == 201, answer
        # A series of two whose first series is in play, which takes a late player (issue 43.2).
        status, cup = api.call("POST", "/api/tournaments", {
            "name": "Door series", "currency": "SEK", "game": "kul", "players": ["Anna", "Bo", "Cia", "Dan"],
            "table_size": 4, "series": 2, "stake": "1.00", "seed": "door"}, token=None)
        assert status == 201, cup
        self.cup: int = cup["id"]
        self.cup_night: int = cup["night"]
        self.edit[self.cup_night] = cup["edit_token"]


@dataclass(frozen=True)
class Base:
    """A request the app accepts: its path, its JSON body, and the night whose edit token it carries."""

    path: str
    body: Any
    night: int | None = None


ROUNDS = {"svangknack": {"participants": ["Bo"]}, "kul": {"last_trick": "Cia"},
          "schloapfer": {"eyes": {"Anna": 45, "Cia": 30, "Eva": 12}},
          "schwimmen": {"ended_by": "knock", "by": "Bo", "losers": ["Dan"]},
          "knaker": {"events": [{"out": ["Anna"]}, {"lost": ["Bo"]}]}}


def _one(path: str, body: Any, night: int | None = None) -> list[Base]:
    return [Base(path, body, night)]


#: A valid request of every operation with a JSON body (rounds: one per game).
BASES: dict[str, Callable[[DoorWorld], list[Base]]] = {
    "POST /api/nights": lambda _w: _one(
        "/api/nights", {"name": "Door night", "currency": "SEK", "players": ["Ada", "Ben"]}),
    "POST /api/nights/{night_id}/players": lambda w: _one(
        f"/api/nights/{w.night_id}/players", {"name": "Gus"}, w.night_id),
    "POST /api/nights/{night_id}/matches": lambda w: _one(
        f"/api/nights/{w.night_id}/matches",
        {"game": "kul", "players": ["Anna", "Bo", "Cia"], "dealer": "Anna", "stake": "1.00", "options": {}},
        w.night_id),
    "POST /api/matches/{match_id}/rounds": lambda w: [
        Base(f"/api/matches/{w.open[game]}/rounds", body, w.night_id) for game, body in ROUNDS.items()],
    "POST /api/matches/{match_id}/dots": lambda w: _one(
        f"/api/matches/{w.open['knaker']}/dots", {"player": "Anna", "offence": "ordinary"}, w.night_id),
    "POST /api/matches/{match_id}/rounds/{seq}/void": lambda w: _one(
        f"/api/matches/{w.voidable}/rounds/1/void", {"reason": "typo"}, w.night_id),
    "POST /api/matches/{match_id}/rounds/{seq}/correct": lambda w: _one(
        f"/api/matches/{w.voidable}/rounds/1/correct", {"round": {"last_trick": "Bo"}, "reason": "typo"},
        w.night_id),
    "POST /api/matches/{match_id}/close": lambda w: _one(
        f"/api/matches/{w.voidable}/close", {"pot": "split"}, w.night_id),
    "POST /api/nights/{night_id}/payments": lambda w: _one(
        f"/api/nights/{w.night_id}/payments", w.open_transfer(w.night_id), w.night_id),
    "POST /api/nights/{night_id}/payments/{payment_id}/void": lambda w: _one(
        f"/api/nights/{w.night_id}/payments/{w.payments[0]}/void", {"reason": "typo"}, w.night_id),
    "POST /api/nights/{night_id}/carry": lambda w: _one(
        f"/api/nights/{w.done_id}/carry", {"to_night": w.later_id}, w.done_id),
    "POST /api/nights/{night_id}/players/{name}/details": lambda w: _one(
        f"/api/nights/{w.night_id}/players/Anna/details", {"swish": "070-123 45 67"}, w.night_id),
    "POST /api/import": lambda w: _one("/api/import", w.export),
    "POST /api/referee/svangknack/dealer": lambda _w: _one(
        "/api/referee/svangknack/dealer", {"draws": {"Anna": "AS", "Bo": "KH"}}),
    "POST /api/referee/schwimmen/value": lambda _w: _one(
        "/api/referee/schwimmen/value", {"cards": ["AS", "KS", "QS"], "deck": 32}),
    "POST /api/referee/knaker/play": lambda _w: _one(
        "/api/referee/knaker/play", {"pile": ["5H", "6S"], "lays": [["7D"]], "source": "hand"}),
    "POST /api/referee/tricks": lambda _w: _one(
        "/api/referee/tricks", {"game": "svangknack", "trump": "H", "players": ["Anna", "Bo", "Cia"],
                                "leader": "Anna", "tricks": CARDS_SK}),
    "POST /api/referee/tricks/dispute": lambda _w: _one(
        "/api/referee/tricks/dispute", {"game": "svangknack", "trump": "H", "players": ["Anna", "Bo", "Cia"],
                                        "leader": "Anna", "trick": ["KD", "3C"], "card": "3C", "known": ["suit"]}),
    "POST /api/referee/schloapfer/eyes": lambda _w: _one(
        "/api/referee/schloapfer/eyes", {"cards": ["AS", "KH"], "trump": "S"}),
    "POST /api/tournaments/{tournament_id}/players": lambda w: _one(
        f"/api/tournaments/{w.cup}/players", {"name": "Lea"}, w.cup_night),
    "POST /api/tournaments": lambda _w: _one(
        "/api/tournaments", {"name": "Door cup", "currency": "SEK", "game": "kul", "players": SIX, "table_size": 3,
                             "stake": "1.00", "seed": "door"}),
}


def _json_operations() -> list[str]:
    doc = document()
    return sorted(f"{method.upper()} {path}" for path, ops in doc["paths"].items() for method, op in ops.items()
                  if isinstance(op, dict) and "application/json" in op.get("requestBody", {}).get("content", {}))


JSON_OPERATIONS = _json_operations()


# --- the string fields of a schema, and of a body ----------------------------------------------------------

def _resolve(schema: dict[str, Any], doc: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _is_text(schema: dict[str, Any]) -> bool:
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return "string" in kinds or any(isinstance(v, str) for v in schema.get("enum", ()))


def schema_paths(schema: dict[str, Any], doc: dict[str, Any], value: Any, at: Path_ = (),
                 depth: int = 0) -> Iterator[Path_]:
    """Every place of a string (or of a free object key) that ``schema`` allows, nested too.

    ``value`` is the valid body's value at ``at`` (or None): of the branches of an ``anyOf``,
    those that fit it are followed (a Kul round's body is not given a Schwimmen round's fields).
    """
    schema = _resolve(schema, doc)
    if depth > 8:
        return
    if _is_text(schema):
        yield at
    branches = schema.get("anyOf", []) + schema.get("oneOf", []) + schema.get("allOf", [])
    if branches:
        resolved = [_resolve(b, doc) for b in branches]
        fitting = [b for b in resolved if isinstance(value, dict) and set(value) <= set(b.get("properties", {}))]
        for branch in fitting or resolved:
            yield from schema_paths(branch, doc, value, at, depth + 1)
    for name, sub in schema.get("properties", {}).items():
        yield from schema_paths(sub, doc, value.get(name) if isinstance(value, dict) else None, (*at, name), depth + 1)
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        yield (*at, KEY)
        first = next(iter(value), None) if isinstance(value, dict) and value else None
        yield from schema_paths(extra, doc, value.get(first) if first is not None else None,
                                (*at, first if first is not None else "Anna"), depth + 1)
    if isinstance(schema.get("items"), dict):
        yield from schema_paths(schema["items"], doc, value[0] if isinstance(value, list) and value else None,
                                (*at, 0), depth + 1)


def body_paths(value: Any, at: Path_ = ()) -> Iterator[Path_]:
    """Every string and every object key of a valid body, one of each shape (lists by their first item)."""
    if isinstance(value, str):
        yield at
    elif isinstance(value, dict):
        if value:
            yield (*at, KEY)
        for key, sub in value.items():
            yield from body_paths(sub, (*at, key))
    elif isinstance(value, list) and value:
        yield from body_paths(value[0], (*at, 0))


def string_paths(schema: dict[str, Any], doc: dict[str, Any], body: Any) -> list[Path_]:
    found = dict.fromkeys([*schema_paths(schema, doc, body), *body_paths(body)])
    return [p for p in found if p]  # the body itself is an object, never a string


def put(body: Any, path: Path_, text: str) -> Any:
    """A copy of ``body`` with ``text`` at ``path`` (the objects and lists on the way made as needed)."""
    out = copy.deepcopy(body)
    holder = out
    for step, after in itertools.pairwise(path):
        fresh: Any = {} if after == KEY or isinstance(after, str) else []
        if isinstance(step, int):
            if not holder:
                holder.append(fresh)
            elif not isinstance(holder[step], type(fresh)):
                holder[step] = fresh
        elif not isinstance(holder.get(step), type(fresh)):
            holder[step] = fresh
        holder = holder[step]
    last = path[-1]
    if last == KEY:  # the first key renamed (its value kept), or a new one
        items = list(holder.items()) or [("x", 1)]
        holder.clear()
        holder.update([(text, items[0][1]), *items[1:]])
    elif isinstance(last, int):
        holder[:1] = [text]
    else:
        holder[last] = text
    return out


def shown(path: Path_) -> str:
    """A path as the API's ``field`` names it: ``deal.tricks[0][0]``."""
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else f".{step}" if out else str(step)
    return out


# --- the app on each backend ----------------------------------------------------------------------------------

@dataclass
class Door:
    """One operation's app, on a copy of the world's database that :meth:`restore` puts back."""

    app: Any
    client: Any
    world: DoorWorld
    restore: Callable[[], None]

    def send(self, base: Base, body: Any = None, path: str | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, Any]:
        hdrs = dict(headers or {})
        if base.night is not None:
            hdrs.setdefault("Authorization", f"Bearer {self.world.edit[base.night]}")
        resp = self.client.post(path or base.path, data=json.dumps(base.body if body is None else body),
                                content_type="application/json", headers=hdrs)
        return resp.status_code, resp.get_json(silent=True)

    def picture(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row, but the count of wrong tokens: a wrong group token is counted by design (docs/reliability.md)."""
        with self.app.app_context():
            return {table: rows for table, rows in db_picture().items() if table != "token_failures"}


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def world_db(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
             postgres: PostgresServer | None) -> tuple[str, PostgresServer | None, DoorWorld]:
    """The world, built once per backend; each test works on a copy."""
    if request.param == "sqlite":
        url, server = f"sqlite:///{tmp_path_factory.mktemp('door') / 'world.sqlite3'}", None
    else:
        if postgres is None:
            missing(f"PostgreSQL server (Debian package postgresql): {conftest.PG_ERROR}")
        assert postgres is not None
        url, server = postgres.create_database("door_world"), postgres
    app = make_app(url, tmp_path_factory.mktemp("door_instance"))
    world = DoorWorld(app.test_client())
    _dispose(app)
    return url, server, world


@pytest.fixture
def door(world_db: tuple[str, PostgresServer | None, DoorWorld], tmp_path: Path) -> Iterator[Door]:
    url, server, world = world_db
    if server is None:
        source, target = Path(url.removeprefix("sqlite:///")), tmp_path / "door.sqlite3"

        def copy_db() -> str:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{target}{suffix}").unlink(missing_ok=True)
                if Path(f"{source}{suffix}").exists():
                    shutil.copy(f"{source}{suffix}", f"{target}{suffix}")
            return f"sqlite:///{target}"
    else:
        def copy_db() -> str:
            return server.create_database(f"door_{tmp_path.name[-40:]}".lower(), template="door_world")

    app = make_app(copy_db(), tmp_path, TOKEN_FAILURES=10**6, LIVE_LIFETIME=0.2, LIVE_PING=0.1)
    mine = copy.copy(world)
    mine.client = app.test_client()

    def restore() -> None:
        _dispose(app)
        copy_db()

    yield Door(app, mine.client, mine, restore)
    _dispose(app)


# --- the tests -------------------------------------------------------------------------------------------

def test_every_operation_with_a_json_body_has_a_valid_body(tmp_path: Path) -> None:
    """The document's JSON operations are the ones below (so none is left out), read from the app's own URL."""
    app = make_app(f"sqlite:///{tmp_path / 'doc.sqlite3'}", tmp_path)
    served = app.test_client().get("/api/openapi.json").get_json()
    assert served == json.loads(json.dumps(document()))
    assert set(JSON_OPERATIONS) == set(BASES), set(JSON_OPERATIONS) ^ set(BASES)


@pytest.mark.parametrize("label", JSON_OPERATIONS)
def test_every_text_field_refuses_unstorable_text(door: Door, label: str) -> None:
    doc = door.client.get("/api/openapi.json").get_json()
    method, route = label.split(" ", 1)
    schema = doc["paths"][route][method.lower()]["requestBody"]["content"]["application/json"]["schema"]
    tried = 0
    for base in BASES[label](door.world):
        for path in string_paths(schema, doc, base.body):
            for kind, text in BAD.items():
                before = door.picture()
                status, answer = door.send(base, put(base.body, path, text))
                what = f"{label} {base.path}: {kind} in {shown(path)}"
                tried += 1
                assert status < 500, f"{what}: {status} {answer}"
                if kind in UNSTORABLE:
                    assert status == 400, f"{what}: {status} {answer}"
                    where = shown(path[:-1]) if path[-1] == KEY else shown(path)
                    assert str(answer.get("field", "")).startswith(where), f"{what}: field {answer}"
                if status >= 400:
                    assert door.picture() == before, f"{what}: refused ({status}) but the database changed"
                else:
                    door.restore()  # accepted: the next attack meets the world as it was
        # The baseline: the body without an attack is accepted (so each refusal above was the attack's doing).
        door.restore()
        status, answer = door.send(base)
        assert 200 <= status < 300, f"{label} {base.path}: the valid body was refused: {status} {answer}"
        door.restore()
    print(f"{label}: {tried} attacks")
    if label != "POST /api/nights/{night_id}/carry":  # its one field is a number
        assert tried >= 3, f"{label}: no string field found"


def _url_parameters() -> dict[str, list[tuple[str, str]]]:
    """Each operation's string parameters of the path, the query and the headers: (name, where)."""
    out: dict[str, list[tuple[str, str]]] = {}
    for route, ops in document()["paths"].items():
        for method, op in ops.items():
            for param in op.get("parameters", []) if isinstance(op, dict) else []:
                if _is_text(param.get("schema", {})) and param["in"] in ("path", "query", "header"):
                    out.setdefault(f"{method.upper()} {route}", []).append((param["name"], param["in"]))
    return dict(sorted(out.items()))


URL_PARAMETERS = _url_parameters()


@pytest.mark.parametrize("label", URL_PARAMETERS)
def test_every_text_parameter_refuses_nul(door: Door, label: str) -> None:
    """A NUL in a path, query or header text is a 400 naming it, before anything is read or counted.

    10,000 characters and the UTF-8 bytes of a surrogate (which a URL decodes to U+FFFD, never to a
    surrogate) are a clean answer, never a 5xx.
    """
    world = door.world
    method, route = label.split(" ", 1)
    base = BASES[label](world)[0] if label in BASES else Base("", None)
    night = base.night or world.night_id
    ids = {"night_id": night, "match_id": world.open["kul"], "seq": 1, "payment_id": world.payments[0],
           "name": "Anna", "group_token": world.group_token, "tournament_id": world.tournament, "number": 1}
    for name, where in URL_PARAMETERS[label]:
        for kind, text in (("nul", BAD["nul"]), ("long", BAD["long"]), ("surrogate bytes", "\ud800")):
            raw = quote(text.encode("utf-8", "surrogatepass"), safe="")
            path = route
            for key, value in ids.items():
                path = path.replace(f"{{{key}}}", raw if (where, key) == ("path", name) else quote(str(value)))
            query = f"?{name}={raw}" if where == "query" else ""
            headers = {"Authorization": f"Bearer {world.edit.get(night, world.edit[world.night_id])}"}
            if where == "header":
                headers[name] = text.encode("utf-8", "surrogatepass").decode("latin-1")
            before = door.picture()
            resp = door.client.open(path + query, method=method, headers=headers,
                                    data=json.dumps(base.body) if base.body is not None else None,
                                    content_type="application/json" if base.body is not None else None)
            status, answer = resp.status_code, resp.get_json(silent=True)
            resp.get_data()  # a live stream to its end (LIVE_LIFETIME), so that it gives its connection back
            resp.close()
            what = f"{label}: {kind} in {where} {name}"
            assert status < 500, f"{what}: {status} {answer}"
            if kind == "nul":
                assert status == 400 and str(answer.get("field", "")).lower() == name.lower(), \
                    f"{what}: {status} {answer}"
                assert door.picture() == before, f"{what}: refused but the database changed"
            if method == "POST" and 200 <= status < 300:
                door.restore()


def test_raw_surrogate_bytes_and_json_in_a_form_field(client: Any) -> None:
    """The door sees the parsed text: raw surrogate bytes (Python's JSON reads bytes with ``surrogatepass``) and
    JSON carried in a form field (the Knaker referee's history) are refused like escaped ones."""
    body = b'{"name": "N", "currency": "SEK", "players": ["Ada"], "group_token": "\xed\xa0\x80"}'
    resp = client.post("/api/nights", data=body, content_type="application/json")
    assert resp.status_code == 400 and resp.get_json()["field"] == "group_token", resp.get_data(as_text=True)
    resp = client.post("/referee/knaker", data={"history": '[{"pile": ["\\ud800"]}]', "pile": "5H", "lays": ""})
    assert resp.status_code == 400 and "history[0].pile[0]" in resp.get_data(as_text=True)
