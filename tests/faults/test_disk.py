"""Disk full or read-only database: a clear error, nothing half-written, recovery without restart.

The faults are the databases' own errors, raised by the real database inside
the app's real write transactions; only the way they are switched on is a
test device:

- SQLite, disk full: ``PRAGMA max_page_count`` set to the file's current size
  on every connection the app takes from its pool; the first write that needs
  a new page fails with ``SQLITE_FULL`` ("database or disk is full"), exactly
  as on a full disk. Writes that still fit into free space in existing pages
  succeed, as they would on a real disk, so each scenario writes until the
  database refuses (within a bound) and checks that refused write.
- SQLite, read-only: ``PRAGMA query_only=1`` on every connection:
  ``SQLITE_READONLY`` ("attempt to write a readonly database"), as for a file
  on a file system remounted read-only. A separate test opens the database
  file itself read-only (``?mode=ro``).
- PostgreSQL, read-only: every connection the app takes runs in
  ``default_transaction_read_only`` (what ``ALTER DATABASE ... SET`` does for
  new connections, and what a hot standby after a failover does): SQLSTATE
  25006 ``read_only_sql_transaction``.
- PostgreSQL, disk full: a real full disk needs a tablespace on a tiny file
  system (``mount``: not available in every CI container). Instead, a
  statement trigger on every table raises SQLSTATE 53100 ``disk_full`` from
  inside the server, mid-transaction, which is where PostgreSQL raises it when
  it cannot extend a file. The app sees the same driver error class and code.

Removing the fault switches the setting back; the app is not restarted.
Expected behaviour: the API answers ``507`` with a JSON error naming the
cause; the pages answer ``507`` with the error page in the user's language;
every table's rows are exactly as before the refused write; afterwards the
same writes succeed (a round sent again with the same ``Idempotency-Key``
counts once), and every match's replay equals its snapshot.
"""

from __future__ import annotations

import html
import re
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, select, text

from referee import create_app, ledger
from referee.ledger import POT_PARTY
from referee.models import Match, db
from tests.components import free_port
from tests.conftest import make_app

MESSAGE = {
    "en": "The database cannot store anything right now (disk full or read-only); nothing was saved.",
    "sv": "Databasen kan inte spara något just nu (disken är full eller skrivskyddad); ingenting sparades.",
    "de": "Die Datenbank kann gerade nichts speichern (Speicher voll oder schreibgeschützt); "
          "nichts wurde gespeichert.",
}
HEADING = {"en": "Nothing was saved", "sv": "Ingenting sparades", "de": "Nichts wurde gespeichert"}
#: Writes tried before the (page-count limited) SQLite database must have refused one.
MAX_TRIES = 80

PLAYERS = ["Anna", "Bo", "Cia", "Dan"]
#: The database's own words for each fault, as the app logs them: the 507 came from this fault.
DRIVER_ERROR = {
    ("sqlite", "full"): "database or disk is full",
    ("sqlite", "read_only"): "attempt to write a readonly database",
    ("postgresql", "full"): "the disk is full (fault test)",
    ("postgresql", "read_only"): "cannot execute INSERT in a read-only transaction",
}


# --- the fault switch -----------------------------------------------------------

class Fault:
    """Makes the app's database refuse writes (``full`` or ``read_only``), and stop refusing."""

    TRIGGER = "zz_referee_disk_full"

    def __init__(self, app: Any) -> None:
        self.app = app
        with app.app_context():
            self.engine = db.engine
        self.dialect = self.engine.dialect.name
        self.kind: str | None = None
        self.default_max_pages: int | None = None
        event.listen(self.engine, "checkout", self._on_checkout)

    def _on_checkout(self, dbapi_conn: Any, _record: Any, _proxy: Any) -> None:
        """Each connection the app takes gets the current fault (or none)."""
        if self.dialect == "sqlite":
            cur = dbapi_conn.cursor()
            if self.default_max_pages is None:
                self.default_max_pages = int(cur.execute("PRAGMA max_page_count").fetchone()[0])
            cur.execute(f"PRAGMA query_only={1 if self.kind == 'read_only' else 0}")
            if self.kind == "full":
                pages = int(cur.execute("PRAGMA page_count").fetchone()[0])
                cur.execute(f"PRAGMA max_page_count={pages}")
            else:
                cur.execute(f"PRAGMA max_page_count={self.default_max_pages}")
            cur.close()
        else:
            with dbapi_conn.cursor() as cur:
                cur.execute(f"SET default_transaction_read_only = {'on' if self.kind == 'read_only' else 'off'}")
            dbapi_conn.commit()

    def _pg_admin(self, sql: Callable[[list[str]], list[str]]) -> None:
        """DDL on the app's database through a connection of its own (autocommit)."""
        admin = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            tables = [r[0] for r in conn.execute(text(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"))]
            for statement in sql(tables):
                conn.execute(text(statement))

    def on(self, kind: str) -> None:
        if kind == "full" and self.dialect == "sqlite":
            # Pack the tables into as few pages as they need, so that few writes still fit.
            raw = self.engine.raw_connection()  # no BEGIN: VACUUM runs outside a transaction
            try:
                raw.driver_connection.execute("VACUUM")
            finally:
                raw.close()
        self.kind = kind
        if kind == "full" and self.dialect == "postgresql":
            self._pg_admin(lambda tables: [
                "CREATE OR REPLACE FUNCTION zz_referee_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$ "
                "BEGIN RAISE EXCEPTION 'could not write: the disk is full (fault test)' "
                "USING ERRCODE = 'disk_full'; END $$",
                *(f'CREATE TRIGGER {self.TRIGGER} BEFORE INSERT OR UPDATE OR DELETE ON "{t}" '
                  f"FOR EACH STATEMENT EXECUTE FUNCTION zz_referee_disk_full()" for t in tables)])

    def off(self) -> None:
        if self.kind == "full" and self.dialect == "postgresql":
            self.kind = None
            self._pg_admin(lambda tables: [f'DROP TRIGGER {self.TRIGGER} ON "{t}"' for t in tables])
        self.kind = None

    def close(self) -> None:
        self.off()
        event.remove(self.engine, "checkout", self._on_checkout)


@pytest.fixture
def app(backend: str, tmp_path: Path) -> Iterator[Any]:
    """The app on a fresh database; SQLite files get 512-byte pages (the smallest SQLite has).

    With small pages, little free space is left in the pages a table already
    has, so a "full" file refuses after a few writes rather than dozens. The
    app works the same with any page size.
    """
    if backend.startswith("sqlite:///"):
        conn = sqlite3.connect(backend.removeprefix("sqlite:///"))
        conn.execute("PRAGMA page_size=512")
        conn.execute("VACUUM")  # an empty file takes the page size now
        conn.close()
    application = make_app(backend, tmp_path)
    if backend.startswith("sqlite:///"):
        with application.app_context():
            assert db.session.execute(text("PRAGMA page_size")).scalar() == 512
            db.session.remove()
    yield application
    with application.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def fault(app: Any) -> Iterator[Fault]:
    f = Fault(app)
    yield f
    f.close()


# --- what the database holds ---------------------------------------------------------

def everything(app: Any) -> dict[str, list[str]]:
    """Every row of every table (sorted reprs): the whole ledger, to compare before and after."""
    with app.app_context():
        rows = {t.name: sorted(repr(tuple(r)) for r in db.session.execute(select(t)))
                for t in db.metadata.sorted_tables}
        db.session.remove()
    return rows


def check_matches(app: Any) -> int:
    """Every match's replay of its log equals its snapshot; returns the number of live rounds."""
    live = 0
    with app.app_context():
        for match in db.session.scalars(select(Match)):
            assert ledger.replay(match) == ledger.state_of(match), f"match {match.id}: replay != snapshot"
            live += sum(1 for r in match.rounds if not r.void)
        db.session.remove()
    return live


def until_refused(app: Any, attempt: Callable[[int], Any], ok: tuple[int, ...]) -> tuple[Any, dict[str, Any]]:
    """Repeat a write until the database refuses it; returns the refused answer and the rows before it.

    A read-only database refuses the first write. A full SQLite file still
    takes what fits into free space in its pages (like a real full disk), so
    those writes succeed and are part of the ledger; the one that needs a new
    page is refused. Anything but success or a 507 fails the test.
    """
    for i in range(MAX_TRIES):
        before = everything(app)
        resp = attempt(i)
        if resp.status_code == 507:
            return resp, before
        assert resp.status_code in ok, (resp.status_code, resp.get_data(as_text=True)[:500])
    pytest.fail(f"the database took {MAX_TRIES} writes without refusing one")


def assert_api_refusal(resp: Any) -> None:
    assert resp.status_code == 507, resp.get_data(as_text=True)[:500]
    assert resp.get_json() == {"error": MESSAGE["en"]}
    assert "Retry-After" not in resp.headers  # retrying in 2 s does not fix a full disk


def assert_page_refusal(resp: Any, lang: str) -> None:
    page = resp.get_data(as_text=True)
    assert resp.status_code == 507, page[:500]
    assert resp.mimetype == "text/html"
    text_only = html.unescape(re.sub(r"<[^>]+>", " ", page))
    assert MESSAGE[lang] in text_only and HEADING[lang] in text_only, text_only[:1500]
    assert "Traceback" not in page and "Internal Server Error" not in page


# --- set-up through the API ------------------------------------------------------------

def api(client: Any, method: str, path: str, body: Any = None, token: str | None = None,
        **headers: str) -> Any:
    hdrs = {k.replace("_", "-"): v for k, v in headers.items()}
    if token:
        hdrs["Authorization"] = f"Bearer {token}"
    return client.open(path, method=method, json=body, headers=hdrs)


def new_night(client: Any) -> dict[str, Any]:
    resp = api(client, "POST", "/api/nights", {"name": "Fredag", "currency": "SEK", "players": PLAYERS})
    assert resp.status_code == 201, resp.get_json()
    return dict(resp.get_json())


def new_match(client: Any, night: dict[str, Any]) -> int:
    resp = api(client, "POST", f"/api/nights/{night['id']}/matches",
               {"game": "svangknack", "players": PLAYERS, "dealer": "Anna", "stake": "3.00"},
               token=night["edit_token"])
    assert resp.status_code == 201, resp.get_json()
    return int(resp.get_json()["id"])


def next_round(client: Any, night: dict[str, Any], match_id: int) -> dict[str, Any]:
    """A valid Svängknack round for the match's current state: the svängare and the next player."""
    state = api(client, "GET", f"/api/matches/{match_id}", token=night["edit_token"]).get_json()["state"]
    sv = state["svangare"]
    other = PLAYERS[(PLAYERS.index(sv) + 1) % len(PLAYERS)]
    return {"participants": [sv, other], "tricks": {sv: 2, other: 1}}


def page_round_form(client: Any, match_id: int) -> dict[str, str]:
    """The round form of the match page: its hidden fields, and the svängare with 2 tricks, the next with 1."""
    page = client.get(f"/matches/{match_id}").get_data(as_text=True)
    token = re.search(r'name="form_token" type="hidden" value="([^"]+)"', page)
    seq = re.search(r'name="expected_seq" type="hidden" value="([^"]+)"', page)
    sv = re.search(r'id="svangare">([^<]+)<', page)
    assert token and seq and sv, page[:2000]
    i = PLAYERS.index(sv.group(1))
    return {"form_token": token.group(1), "expected_seq": seq.group(1),
            f"tricks_{i}": "2", f"tricks_{(i + 1) % len(PLAYERS)}": "1"}


# --- the tests ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["full", "read_only"])
def test_round_entry_refused_then_counted_once(app: Any, client: Any, fault: Fault, kind: str,
                                               caplog: pytest.LogCaptureFixture) -> None:
    """API and page round entry while the database refuses writes; then the same round, once."""
    night = new_night(client)
    match_id = new_match(client, night)
    client.get(f"/e/{night['edit_token']}")  # the page session (edit rights)
    for _ in range(3):
        assert api(client, "POST", f"/api/matches/{match_id}/rounds", next_round(client, night, match_id),
                   token=night["edit_token"]).status_code == 201
    rounds_before_fault = check_matches(app)
    fault.on(kind)

    sent: dict[str, Any] = {}

    def enter(i: int) -> Any:
        sent["payload"], sent["key"] = next_round(client, night, match_id), f"disk-{kind}-{i}"
        return api(client, "POST", f"/api/matches/{match_id}/rounds", sent["payload"],
                   token=night["edit_token"], Idempotency_Key=sent["key"])

    resp, before = until_refused(app, enter, ok=(201,))
    assert_api_refusal(resp)
    assert DRIVER_ERROR[fault.dialect, kind] in caplog.text
    assert everything(app) == before, "the refused API round left rows behind"
    # The same round from the page, in each language: the error page, nothing stored.
    for lang in ("en", "sv", "de"):
        resp, before = until_refused(
            app, lambda _i, lang=lang: client.post(f"/matches/{match_id}/rounds",
                                                   data=page_round_form(client, match_id),
                                                   headers={"Accept-Language": lang}), ok=(302,))
        assert_page_refusal(resp, lang)
        assert everything(app) == before, f"the refused page round ({lang}) left rows behind"
    # A void (of the last live round, always allowed) is a write too.

    def void(_i: int) -> Any:
        rounds = api(client, "GET", f"/api/matches/{match_id}", token=night["edit_token"]).get_json()["rounds"]
        last = max(r["round"] for r in rounds if not r["void"])
        return api(client, "POST", f"/api/matches/{match_id}/rounds/{last}/void", {"reason": "x"},
                   token=night["edit_token"])

    if not (kind == "full" and fault.dialect == "sqlite"):
        # (A void rewrites a page in place: a page-count limit cannot refuse it. A real full
        # disk would, when the WAL file cannot grow; that case is left out.)
        resp, before = until_refused(app, void, ok=())
        assert_api_refusal(resp)
        assert everything(app) == before
    stored = check_matches(app)
    assert stored >= rounds_before_fault

    fault.off()
    # No restart: the phone sends the refused round again with the same key; it counts once.
    assert check_matches(app) == stored
    again = api(client, "POST", f"/api/matches/{match_id}/rounds", sent["payload"],
                token=night["edit_token"], Idempotency_Key=sent["key"])
    assert again.status_code == 201 and "Idempotent-Replayed" not in again.headers, again.get_json()
    replay = api(client, "POST", f"/api/matches/{match_id}/rounds", sent["payload"],
                 token=night["edit_token"], Idempotency_Key=sent["key"])
    assert (replay.status_code, replay.headers.get("Idempotent-Replayed")) == (201, "true")
    assert replay.get_json() == again.get_json()
    assert client.post(f"/matches/{match_id}/rounds", data=page_round_form(client, match_id)).status_code == 302
    assert check_matches(app) == stored + 2


@pytest.mark.parametrize("kind", ["full", "read_only"])
def test_night_and_payment_refused(app: Any, client: Any, fault: Fault, kind: str) -> None:
    """Creating a night (API and page) and recording a payment (API and page) while writes are refused."""
    night = new_night(client)
    match_id = new_match(client, night)
    for _ in range(2):
        assert api(client, "POST", f"/api/matches/{match_id}/rounds", next_round(client, night, match_id),
                   token=night["edit_token"]).status_code == 201
    client.get(f"/e/{night['edit_token']}")
    plan = api(client, "GET", f"/api/nights/{night['id']}/settlement", token=night["edit_token"]).get_json()
    transfer = plan["transfers"][0]
    # The API names the pot by a flag; the page's form by the settlement's party (a player or the pot).
    paid = {k: transfer[k] for k in ("from", "to", "from_pot", "to_pot")}
    payer = POT_PARTY if transfer["from_pot"] else transfer["from"]
    payee = POT_PARTY if transfer["to_pot"] else transfer["to"]
    fault.on(kind)

    resp, before = until_refused(app, lambda i: api(
        client, "POST", "/api/nights", {"name": f"Night {i}", "currency": "SEK", "players": PLAYERS}), ok=(201,))
    assert_api_refusal(resp)
    assert everything(app) == before
    resp, before = until_refused(app, lambda i: client.post(
        "/nights/new", data={"name": f"Page night {i}", "currency": "SEK", "players": "\n".join(PLAYERS)},
        headers={"Accept-Language": "sv"}), ok=(302,))
    assert_page_refusal(resp, "sv")
    assert everything(app) == before

    resp, before = until_refused(app, lambda i: api(
        client, "POST", f"/api/nights/{night['id']}/payments",
        paid | {"amount": "0.01"}, token=night["edit_token"],
        Idempotency_Key=f"pay-{i}"), ok=(201,))
    assert_api_refusal(resp)
    assert everything(app) == before
    resp, before = until_refused(app, lambda i: client.post(
        f"/nights/{night['id']}/payments",
        data={"payer": payer, "payee": payee, "amount": "0.01", "form_token": f"pf-{i}"},
        headers={"Accept-Language": "de"}), ok=(302,))
    assert_page_refusal(resp, "de")
    assert everything(app) == before
    live = check_matches(app)

    fault.off()
    assert everything(app) == before and check_matches(app) == live
    assert api(client, "POST", "/api/nights", {"name": "After", "currency": "SEK",
                                               "players": PLAYERS}).status_code == 201
    assert api(client, "POST", f"/api/nights/{night['id']}/payments",
               paid | {"amount": "0.01"}, token=night["edit_token"]).status_code == 201
    assert client.post(f"/nights/{night['id']}/payments", data={
        "payer": payer, "payee": payee, "amount": "0.01", "form_token": "after"},
    ).status_code == 302


def test_sqlite_file_opened_read_only(tmp_path: Path) -> None:
    """The database file itself read-only (``mode=ro``): 507 on writes, reads still answer."""
    path = tmp_path / "ro.sqlite3"
    writer = make_app(f"sqlite:///{path}", tmp_path)
    client = writer.test_client()
    night = new_night(client)
    match_id = new_match(client, night)
    with writer.app_context():
        db.engine.dispose()
    reader = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///file:{path}?mode=ro&uri=true", "TESTING": True,
                         "WTF_CSRF_ENABLED": False, "SECRET_KEY": "test", "INSTANCE_PATH": str(tmp_path)})
    before = everything(reader)
    ro = reader.test_client()
    assert api(ro, "GET", f"/api/matches/{match_id}", token=night["edit_token"]).status_code == 200
    assert_api_refusal(api(ro, "POST", f"/api/matches/{match_id}/rounds", next_round(ro, night, match_id),
                           token=night["edit_token"]))
    ro.get(f"/e/{night['edit_token']}")
    assert_page_refusal(ro.post(f"/matches/{match_id}/rounds", data=page_round_form(ro, match_id),
                                headers={"Accept-Language": "de"}), "de")
    assert everything(reader) == before
    with reader.app_context():
        db.engine.dispose()


@pytest.mark.parametrize("url", [
    "sqlite:////nonexistent-dir/referee.sqlite3",
    "postgresql+psycopg://referee@127.0.0.1:{port}/referee?connect_timeout=2",
], ids=["sqlite-cannot-open", "postgres-refused"])
def test_unreachable_database_is_still_503(url: str, tmp_path: Path) -> None:
    """A database that cannot be reached is not 'full': 503 with Retry-After, as before."""
    app = create_app({"SQLALCHEMY_DATABASE_URI": url.format(port=free_port()), "TESTING": True,
                      "WTF_CSRF_ENABLED": False, "SECRET_KEY": "test", "INSTANCE_PATH": str(tmp_path)})
    client = app.test_client()
    resp = api(client, "POST", "/api/nights", {"name": "x", "currency": "SEK", "players": PLAYERS})
    assert resp.status_code == 503 and resp.headers.get("Retry-After") == "2", resp.get_data(as_text=True)
    resp = client.post("/nights/new", data={"name": "x", "currency": "SEK", "players": "Anna\nBo"})
    assert resp.status_code == 503 and resp.headers.get("Retry-After") == "2"
    assert "try again in a moment" in resp.get_data(as_text=True)
