"""A client generated from the app's own OpenAPI document drives a whole night (issue 31).

Why: ``/api/openapi.json`` is only useful to a developer if a standard
generator turns it into a client that works. ``openapi-python-client`` (from
PyPI, a test dependency) generates a package from the document the app
serves, once per session; the test checks that the generator dropped nothing
(its warnings name every schema or endpoint it could not generate), that every
operation has its module and every component schema its class, that every
module imports, and then plays a night through the generated typed functions
only: every game's rounds, dots, a void, closes (one pot carried), the
settlement with the pot apart from the players, payments (one into the pot),
and a carry of what is open to a later night. The generated client speaks
HTTP through httpx to the app (WSGI transport), on SQLite and PostgreSQL.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
from decimal import Decimal
from types import ModuleType
from typing import Any

import httpx
import pytest

from referee.ledger import POT_PARTY
from tests.conftest import make_app

PACKAGE = "referee_api_client"
BASE = "http://referee.test"


def _snake(name: str) -> str:
    out = "".join("_" + c.lower() if c.isupper() else c for c in name)
    return out.lstrip("_")


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, dict[str, Any], str]:
    """The generated package (imported), the document it came from, and the generator's output."""
    work = tmp_path_factory.mktemp("client")
    app = make_app(f"sqlite:///{work / 'doc.sqlite3'}", work)
    reply = app.test_client().get("/api/openapi.json")
    assert reply.status_code == 200
    doc = reply.get_json()
    (work / "openapi.json").write_text(json.dumps(doc))
    (work / "config.yml").write_text("post_hooks: []\n")  # no formatter run: the test needs none installed
    run = subprocess.run(
        [sys.executable, "-m", "openapi_python_client", "generate", "--path", str(work / "openapi.json"),
         "--output-path", str(work / PACKAGE), "--meta", "none", "--config", str(work / "config.yml")],
        capture_output=True, text=True, timeout=300, check=False)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    sys.path.insert(0, str(work))
    try:
        package = importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(work))
    return package, doc, output


def test_the_generator_drops_nothing_and_every_module_imports(
        generated: tuple[ModuleType, dict[str, Any], str]) -> None:
    package, doc, output = generated
    # The generator reports each schema or endpoint it left out ("Unable to process schema ...",
    # "Endpoint will not be generated") under "Warning(s) encountered"; a clean run says nothing of it.
    for marker in ("Warning", "WARNING", "Unable to", "will not be generated", "Failure"):
        assert marker not in output, output
    modules = {name: importlib.import_module(name) for _f, name, _p in
               pkgutil.walk_packages(package.__path__, PACKAGE + ".")}
    endpoints = {name.rsplit(".", 1)[1] for name in modules if ".api." in name}
    operations = {op["operationId"] for item in doc["paths"].values() for op in item.values()}
    assert operations <= endpoints, operations - endpoints
    models = importlib.import_module(PACKAGE + ".models")
    for schema in doc["components"]["schemas"]:
        if "properties" in doc["components"]["schemas"][schema]:
            assert hasattr(models, schema), f"no class for the component {schema}"
    for game in ("Svangknack", "Kul", "Schloapfer", "Schwimmen", "Knaker"):
        assert hasattr(models, f"{game}Round") and hasattr(models, f"{game}State")
    assert len(modules) > 60


def _no_pot_label(value: Any) -> None:
    """No display label anywhere in an answer, neither as a key nor as a name."""
    assert POT_PARTY not in json.dumps(value, ensure_ascii=False), value


class Night:
    """The generated client's functions, bound to one night's token and the app's transport."""

    def __init__(self, package: str, transport: httpx.BaseTransport) -> None:
        self.p = package
        self.transport = transport
        self.api = importlib.import_module(f"{package}.api.default")
        self.m = importlib.import_module(f"{package}.models")
        client = importlib.import_module(f"{package}.client")
        self.anon = client.Client(base_url=BASE, httpx_args={"transport": transport})
        self.auth: Any = None
        self._client_mod = client

    def fn(self, name: str) -> Any:
        return importlib.import_module(f"{self.p}.api.default.{name}")

    def login(self, token: str) -> None:
        self.auth = self._client_mod.AuthenticatedClient(base_url=BASE, token=token,
                                                         httpx_args={"transport": self.transport})

    def call(self, name: str, *args: Any, expect: tuple[int, ...] = (200,), anon: bool = False, **kw: Any) -> Any:
        reply = self.fn(name).sync_detailed(*args, client=self.anon if anon else self.auth, **kw)
        assert reply.status_code in expect, (name, reply.status_code, reply.content[:400])
        _no_pot_label(json.loads(reply.content or b"null"))
        return reply.parsed


def money(text: str) -> Decimal:
    return Decimal(text)


def test_a_whole_night_through_the_generated_client(generated: tuple[ModuleType, dict[str, Any], str],
                                                    app: Any) -> None:
    package = generated[0].__name__
    c = Night(package, httpx.WSGITransport(app=app))
    m = c.m
    night = c.call("create_night", anon=True, expect=(201,), body=m.NightIn(
        name="Fredag", currency="SEK", players=["Anna", "Bo", "Cia", "Dan"], group="Gänget"))
    assert isinstance(night, m.Night) and night.edit_token
    c.login(night.edit_token)
    nid = night.id

    def new_match(game: str, players: list[str], **kw: Any) -> Any:
        match = c.call("create_match", nid, expect=(201,), body=m.MatchIn(
            game=m.MatchInGame(game), players=players, **kw))
        assert isinstance(match, m.Match) and match.game.value == game
        return match

    def enter(match_id: int, body: Any, state_class: Any, key: str | None = None) -> Any:
        kw = {"idempotency_key": key} if key else {}
        out = c.call("enter_round", match_id, expect=(200, 201), body=body, **kw)
        assert isinstance(out, m.RoundOut) and isinstance(out.state, state_class), out
        return out

    # Svängknack: Bo svängar alone and takes the whole pot (SK-7); the next pot stays and is carried.
    sk = new_match("svangknack", ["Anna", "Bo", "Cia"], stake="3.00")
    assert isinstance(sk.state, m.SvangknackState) and sk.state.pot == "9.00"
    out = enter(sk.id, m.SvangknackRound(participants=["Bo"]), m.SvangknackState)
    assert out.state.balances["Bo"] == "3.00" and out.state.pot == "9.00"
    # Kul: Cia takes the last trick three times and wins the pot; the match closes itself.
    kul = new_match("kul", ["Anna", "Bo", "Cia", "Dan"], stake="2.00")
    for _ in range(3):
        out = enter(kul.id, m.KulRound(last_trick="Cia"), m.KulState)
    assert out.state.winner == "Cia" and out.state.finished is True and out.state.marks["Cia"] == 3
    # Schloapfer: one deal of eyes.
    sl = new_match("schloapfer", ["Anna", "Bo", "Cia"], stake="5.00")
    out = enter(sl.id, m.SchloapferRound(eyes=m.SchloapferRoundEyes.from_dict({"Anna": 20, "Bo": 90, "Cia": 42})),
                m.SchloapferState)
    assert out.state.players["Bo"].points == 1 and out.state.players["Anna"].rings == 1
    # Schwimmen: Cia knocks, Anna loses a life; sent twice with one key, counted once.
    sw = new_match("schwimmen", ["Anna", "Bo", "Cia"], stake="1.00")
    for _ in range(2):
        out = enter(sw.id, m.SchwimmenRound(ended_by=m.SchwimmenRoundEndedBy("knock"), by="Cia", losers=["Anna"]),
                    m.SchwimmenState, key="sw-1")
    assert out.round_ == 1 and out.state.players["Anna"].lives == 2 and out.state.players["Anna"].swimming is False
    # Knaker: a game of two rounds of play, then dots, then the game is voided.
    kn = new_match("knaker", ["Anna", "Bo", "Cia"])
    out = enter(kn.id, m.KnakerRound(events=[m.KnakerEvent(out=["Bo"]), m.KnakerEvent(lost=["Cia"])]),
                m.KnakerState)
    assert out.state.places.to_dict() == {"Bo": 1, "Anna": 2, "Cia": 3}
    dots = c.call("give_dots", kn.id, expect=(201,), body=m.Dot(player="Anna", offence="ordinary"))
    assert isinstance(dots.state, m.KnakerState) and dots.state.dots["Anna"] == 1
    voided = c.call("void_round", kn.id, 1, body=m.VoidRoundBody(reason="wrong game"))
    assert isinstance(voided, m.ChangesOut) and voided.state.places.to_dict() == {} and voided.changes == []
    full = c.call("get_match", kn.id)
    assert [r.void for r in full.rounds] == [True, False]
    # The referee's questions, typed too.
    value = c.call("schwimmen_value", anon=True, body=m.SchwimmenValueQuestion(cards=["10H", "JH", "AH"]))
    assert value.value == 31 and value.kind.value == "31"
    play = c.call("knaker_play", anon=True, body=m.KnakerPlayQuestion(pile=["9D"], lays=[["QC"]]))
    assert play.legal is True and play.rule.startswith("KN-")

    # Closes: Svängknack's pot is carried (it stays money in a pot), the others split or have none.
    closed = c.call("close_match", sk.id, body=m.CloseMatchBody(pot=m.CloseMatchBodyPot("carry")))
    assert closed.state.finished is True
    for match in (sl, sw, kn):
        assert c.call("close_match", match.id, body=m.CloseMatchBody(pot=m.CloseMatchBodyPot("split"))).state.finished

    # The settlement: players only in every map, the pot in fields of its own.
    s = c.call("get_settlement", nid)
    assert isinstance(s, m.Settlement)
    players = {"Anna", "Bo", "Cia", "Dan"}
    for per_player in (s.balances, s.result):
        assert set(per_player.to_dict()) <= players
    assert s.pots == "9.00" and s.pot_account.result == "9.00" and s.pot_account.open_ == "9.00"
    assert sum(money(v) for v in s.balances.to_dict().values()) + money(s.pot_account.open_) == 0
    night_view = c.call("get_night", nid)
    assert night_view.pots == "9.00" and set(night_view.balances.to_dict()) == players
    into_pot = [t for t in s.transfers if t.to_pot]
    assert into_pot and all(t.to is None and t.from_ in players for t in into_pot)
    assert sum(money(t.amount) for t in into_pot) == Decimal("9.00")
    assert all(not t.from_pot and t.to in players for t in s.transfers if not t.to_pot)
    # A payment into the pot, and one between players, as the plan says.
    first = into_pot[0]
    paid = c.call("record_payment", nid, expect=(201,), body=m.PaymentIn(
        from_=first.from_, to_pot=True, amount=first.amount))
    assert paid.payment.to_pot is True and paid.payment.to is None and paid.payment.from_ == first.from_
    assert money(paid.settlement.pot_account.paid) == -money(first.amount)
    to_player = next(t for t in s.transfers if not t.to_pot)
    paid = c.call("record_payment", nid, expect=(201,), body=m.PaymentIn(
        from_=to_player.from_, to=to_player.to, amount=to_player.amount))
    assert paid.payment.to == to_player.to and paid.payment.to_pot is False
    # The pot's label is no name a client may send.
    c.call("record_payment", nid, expect=(400,), body=m.PaymentIn(from_="Anna", to=POT_PARTY, amount="1.00"))

    # A carry of what is still open to a later night of the group: the pot goes as the pot.
    later = c.call("create_night", anon=True, expect=(201,), body=m.NightIn(
        name="Lördag", currency="SEK", players=["Anna", "Bo"], group_token=night.group_token))
    before = c.call("get_settlement", nid)
    carried = c.call("carry_debts", nid, body=m.CarryDebtsBody(to_night=later.id))
    assert set(carried.settlement.carried_out.to_dict()) <= players
    assert carried.settlement.pot_account.carried_out == before.pot_account.open_
    assert carried.settlement.transfers == [] and money(carried.settlement.pot_account.open_) == 0
    c.login(later.edit_token)
    opened = c.call("get_settlement", later.id)
    assert opened.pot_account.opening == before.pot_account.open_
    assert {"Anna", "Bo"} <= set(opened.balances.to_dict()) <= players  # a debtor not yet there is seated
    assert sum(money(v) for v in opened.balances.to_dict().values()) + money(opened.pot_account.open_) == 0


def test_api_docs_without_the_viewer_says_how_to_install_it(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.api import docs

    monkeypatch.setattr(docs, "VIEWER", ("api-docs/not-there.js",))
    reply = client.get("/api/docs")
    assert reply.status_code == 503 and b"make api-docs" in reply.data and b"<script" not in reply.data
    monkeypatch.setattr(docs, "VIEWER", ("js/api_docs.js",))
    reply = client.get("/api/docs")
    assert reply.status_code == 200 and b"api-docs/swagger-ui-bundle.js" in reply.data
    assert "script-src 'self'" in reply.headers["Content-Security-Policy"]
