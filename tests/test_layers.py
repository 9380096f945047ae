"""The layers of ``referee/`` and their order, read from the source: every import, also those inside functions.

engine ← offline (what ships to the browser) ← ledger (the rows and their
rules) ← house (pages, api, reports, the round forms, the app factory). A
module imports only from its own layer or below; no two packages import each
other (a loop between packages, whatever the layer); and no import inside a
function closes a loop: such an import hides the loop from a reader (and
from Python until the function runs), which is the thing this test exists to
refuse. An import under ``if TYPE_CHECKING:`` runs never and is left out,
except in one check: below the house no two modules import each other, not
even for types.

No module above the engine names a game module (issue 48): the ledger,
the API, the pages, the sheets and the browser's door ask the registry
(:mod:`referee.engine.spec`) for a game and its spec answers what they need
of it; only the game's own modules above the engine (its parser
``referee.offline.round_parse.<game>``, its form ``referee.round_forms.<game>``,
its referee tool ``referee.pages.referee.<game>_*``) import its engine modules.

The loops of the blueprint pattern (``referee/pages/__init__.py`` defines
``bp`` and then imports the modules that register on it, which import
``bp``) are module-level, within one package, and stay visible: allowed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from referee.engine.spec import SPECS

REFEREE = Path(__file__).resolve().parents[1] / "referee"

#: The layers, lowest first: a module belongs to the first layer one of whose prefixes it starts with, else to
#: the ledger (the models, the services and the small modules beside them). ``referee`` alone is the app factory.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("engine", ("referee.engine",)),
    ("offline", ("referee.offline",)),
    ("ledger", ()),
    ("house", ("referee.pages", "referee.api", "referee.reports", "referee.round_forms", "referee.floor",
               "referee.web")),
)
RANK = {name: i for i, (name, _prefixes) in enumerate(LAYERS)}


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    in_function: bool
    line: int


def modules() -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its own name)."""
    out = {}
    for path in REFEREE.rglob("*.py"):
        parts = list(path.relative_to(REFEREE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    return ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def edges(mods: dict[str, Path], *, type_checking: bool = False) -> list[Edge]:
    """Every import of one module of the package by another, ``from referee import x`` as ``referee.x``
    (with ``type_checking``, those under ``if TYPE_CHECKING:`` too)."""

    def known(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    found: list[Edge] = []
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]

        def visit(node: ast.AST, in_function: bool, name: str = name, package: str = package) -> Iterator[Edge]:
            if isinstance(node, ast.If) and _is_type_checking(node) and not type_checking:
                for rest in node.orelse:
                    yield from visit(rest, in_function)
                return
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in mods else base for alias in node.names]
            for target in targets:
                if (resolved := known(target)) and resolved != name:
                    yield Edge(name, resolved, in_function, getattr(node, "lineno", 0))
            inner = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            for child in ast.iter_child_nodes(node):
                yield from visit(child, inner)

        found.extend(visit(ast.parse(path.read_text(encoding="utf-8")), False))
    return found


def layer(module: str) -> str:
    for name, prefixes in LAYERS:
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return name
    return "house" if module == "referee" else "ledger"


def package(module: str) -> str:
    """The package a module counts in for loops: ``referee.pages.offline`` → ``referee.pages``; a top-level
    module is its own (``referee.services``)."""
    return ".".join(module.split(".")[:2])


def reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = {start}, [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


MODS = modules()
EDGES = edges(MODS)


def test_the_graph_is_read() -> None:
    """The reader sees what it must (else every assertion below would pass on an empty graph)."""
    pairs = {(e.source, e.target) for e in EDGES}
    assert ("referee.pages.matches", "referee.engine") in pairs or ("referee.pages", "referee.engine.spec") in pairs
    assert any(e.in_function for e in EDGES), "create_app imports its blueprints inside the function"
    assert len(MODS) > 50 and {"referee", "referee.pages", "referee.engine.spec"} <= set(MODS)


@pytest.mark.parametrize("layer_name", [name for name, _p in LAYERS])
def test_no_import_goes_up_a_layer(layer_name: str) -> None:
    up = [f"{e.source} → {e.target} (line {e.line}, {layer(e.source)} imports {layer(e.target)})"
          for e in EDGES if layer(e.source) == layer_name and RANK[layer(e.target)] > RANK[layer_name]]
    assert not up, "\n".join(up)


def test_no_loop_between_packages() -> None:
    graph: dict[str, set[str]] = {}
    for e in EDGES:
        if package(e.source) != package(e.target):
            graph.setdefault(package(e.source), set()).add(package(e.target))
    loops = sorted(f"{a} → {b} → … → {a}" for a, targets in graph.items() for b in targets if reaches(graph, b, a))
    assert not loops, "\n".join(loops)


def test_no_import_inside_a_function_hides_a_loop() -> None:
    graph: dict[str, set[str]] = {}
    for e in EDGES:
        graph.setdefault(e.source, set()).add(e.target)
    hidden = [f"{e.source}:{e.line} imports {e.target} inside a function, and {e.target} leads back to it"
              for e in EDGES if e.in_function and reaches(graph, e.target, e.source)]
    assert not hidden, "\n".join(hidden)


def test_the_checks_catch_a_loop_and_a_climb(tmp_path: Path) -> None:
    """The checks themselves, on a made-up package: an engine module that imports a page, inside a function."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}}
    assert reaches(graph, "b", "a") and not reaches({"a": {"b"}}, "b", "a")
    assert layer("referee.engine.kul") == "engine" and layer("referee.pages.table") == "house"
    assert layer("referee.services") == "ledger" and layer("referee") == "house"
    assert RANK[layer("referee.pages")] > RANK[layer("referee.engine")]
    source = "def f():\n    from referee.pages import bp\nfrom referee.engine.money import Money\n"
    fake = {"referee.engine.fake": tmp_path / "fake.py", "referee.pages": tmp_path / "p.py",
            "referee.engine.money": tmp_path / "m.py"}
    (tmp_path / "fake.py").write_text(source)
    (tmp_path / "p.py").write_text("from referee.engine import fake\n")
    (tmp_path / "m.py").write_text("")
    got = {(e.source, e.target, e.in_function) for e in edges(fake)}
    assert ("referee.engine.fake", "referee.pages", True) in got
    assert ("referee.engine.fake", "referee.engine.money", False) in got
    assert ("referee.pages", "referee.engine.fake", False) in got


def game_of(module: str) -> str | None:
    """The game a module belongs to by its name: ``referee.engine.knaker_pile`` and
    ``referee.round_forms.knaker`` are Knaker's; ``referee.engine.tricks`` is no game's."""
    last = module.rpartition(".")[2]
    return next((name for name in SPECS if last == name or last.startswith(name + "_")), None)


#: The packages above the engine where a game has modules of its own: its parser and its form (named as
#: the game) and its referee tools (named after it, ``schwimmen_value``). Nowhere else, so that a page
#: helper such as a ``referee/pages/knaker_log.py`` cannot read a game's records by being named after it.
OWN: dict[str, bool] = {"referee.offline.round_parse": True, "referee.round_forms": True,
                        "referee.pages.referee": False}


def own_game(module: str) -> str | None:
    """The game whose own module ``module`` is (above the engine), if any."""
    package, _dot, last = module.rpartition(".")
    if package not in OWN:
        return None
    game = game_of(module)
    return game if game is not None and (last == game or not OWN[package]) else None


def game_module_uses(mods: dict[str, Path]) -> list[str]:
    """Every import of a game's engine module by a module above the engine that is not that game's own."""
    found = []
    for e in edges(mods, type_checking=True):
        game = game_of(e.target) if layer(e.target) == "engine" else None
        if game is not None and layer(e.source) != "engine" and own_game(e.source) != game:
            found.append(f"{e.source}:{e.line} imports {e.target}")
    for name, path in mods.items():  # and a dotted use after a plain ``import referee.engine``
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and layer(name) != "engine":
                dotted = ast.unparse(node)
                game = game_of(dotted) if dotted.startswith("referee.engine.") and dotted.count(".") == 2 else None
                if game is not None and own_game(name) != game:
                    found.append(f"{name}:{node.lineno} names {dotted}")
    return found


def test_no_module_above_the_engine_names_a_game_module() -> None:
    """The registry is the one face of a game: above the engine, only a game's own modules import it."""
    found = game_module_uses(MODS)
    assert not found, "\n".join(found)


def test_the_game_check_catches_a_ledger_that_imports_a_game(tmp_path: Path) -> None:
    """The check itself, on a made-up package: a ledger module reading Knaker's state, a page under
    TYPE_CHECKING and by a dotted name, a page helper named after Knaker; Knaker's own form and its
    referee tool may import Knaker's engine."""
    files = {
        "referee.ledger.fake": "from referee.engine import knaker, tricks\n",
        "referee.pages.fake": ("from typing import TYPE_CHECKING\nimport referee.engine\n"
                               "if TYPE_CHECKING:\n    from referee.engine.schwimmen import State\n"
                               "X = referee.engine.kul.NAME\n"),
        "referee.round_forms.knaker": "from referee.engine.knaker import OFFENCES\n",
        "referee.pages.knaker_log": "from referee.engine import knaker\n",
        "referee.pages.referee.knaker_pile": "from referee.engine import knaker_pile\n",
        "referee.engine": "", "referee.engine.knaker": "", "referee.engine.schwimmen": "",
        "referee.engine.kul": "", "referee.engine.tricks": "", "referee.engine.knaker_pile": "",
    }
    fake = {}
    for name, text in files.items():
        (tmp_path / f"{name}.py").write_text(text)
        fake[name] = tmp_path / f"{name}.py"
    got = sorted(game_module_uses(fake))
    assert got == ["referee.ledger.fake:1 imports referee.engine.knaker",
                   "referee.pages.fake:4 imports referee.engine.schwimmen",
                   "referee.pages.fake:5 names referee.engine.kul",
                   "referee.pages.knaker_log:1 imports referee.engine.knaker"], got

#: What the ledger must not import (issue 48.1): Flask and what speaks HTTP, sessions or pictures. The web layer
#: (``referee/web/``, pages, api, reports) reads the request and hands the ledger plain values.
WEB_PACKAGES = frozenset({"flask", "flask_babel", "flask_sqlalchemy", "flask_wtf", "flask_migrate", "werkzeug",
                          "segno"})
#: Modules below the house that may import one of them, and why.
#: ``referee.models`` holds Flask-SQLAlchemy's ``db``: the ledger writes through ``db.session`` (the app's database
#: handle, scoped to an app context, which a script opens with ``app.app_context()``); Flask-SQLAlchemy imports
#: Flask, but the ledger reads no request, session or config through it.
#: (``referee.payment_codes``, which the ledger checks a payee's details with, draws no QR code: that is
#: ``referee.payment_qr``'s, which only the web layer imports.)
BELOW_THE_HOUSE_MAY = {"referee.models": {"flask_sqlalchemy"}}


def outside_imports(path: Path) -> list[tuple[str, int]]:
    """The top-level names of the packages outside ``referee`` a file imports (inside functions too), with lines."""
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for rest in node.orelse:
                visit(rest)
            return
        if isinstance(node, ast.Import):
            found.extend((alias.name.split(".")[0], node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.append((node.module.split(".")[0], node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def web_imports_of_the_ledger(mods: dict[str, Path]) -> tuple[set[str], list[str]]:
    """What the ledger reaches (its modules and every module of ``referee`` they import, inside functions too),
    and each import of :data:`WEB_PACKAGES` among them but for :data:`BELOW_THE_HOUSE_MAY`."""
    graph: dict[str, set[str]] = {}
    for e in edges(mods):
        graph.setdefault(e.source, set()).add(e.target)
    ledger = sorted(m for m in mods if m == "referee.ledger" or m.startswith("referee.ledger."))
    reached, todo = set(ledger), list(ledger)
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in reached:
                reached.add(nxt)
                todo.append(nxt)
    wrong = [f"{m}:{line} imports {name}" for m in sorted(reached) for name, line in outside_imports(mods[m])
             if name in WEB_PACKAGES and name not in BELOW_THE_HOUSE_MAY.get(m, set())]
    return reached, wrong


def test_the_ledger_speaks_no_http() -> None:
    """No module of ``referee/ledger`` imports Flask, Flask-Babel, Werkzeug or segno, nor does any module of
    ``referee`` it imports (inside functions too), but for :data:`BELOW_THE_HOUSE_MAY`.

    Why: the ledger is driven by plain values (a key and a request's fingerprint, the caller's address, a
    phone's grants as a mapping, settings per engine) so that a script or a command drives it with no request;
    an import of Flask in it is the first step back to reading ``request``, ``session`` or ``current_app``.
    """
    reached, wrong = web_imports_of_the_ledger(MODS)
    assert {"referee.models", "referee.ledger.rights", "referee.ledger.idempotency"} <= reached
    assert not any(layer(m) == "house" for m in reached), sorted(m for m in reached if layer(m) == "house")
    assert not wrong, "\n".join(wrong)


def test_the_http_check_catches_a_ledger_that_reaches_flask(tmp_path: Path) -> None:
    """The check itself, on a made-up package: a ledger module that imports a helper of ``referee`` which
    imports Flask inside a function is caught; the models' Flask-SQLAlchemy is allowed, a second import not."""
    files = {
        "referee.ledger": "",
        "referee.ledger.fake": "from referee import helper\nfrom referee.models import db\n",
        "referee.helper": "def f():\n    from flask import request\n",
        "referee.models": "from flask_sqlalchemy import SQLAlchemy\nimport werkzeug\n",
    }
    fake = {}
    for name, text in files.items():
        (tmp_path / f"{name}.py").write_text(text)
        fake[name] = tmp_path / f"{name}.py"
    reached, wrong = web_imports_of_the_ledger(fake)
    assert reached == set(files), reached
    assert wrong == ["referee.helper:2 imports flask", "referee.models:2 imports werkzeug"], wrong


def test_the_http_check_catches_an_import(tmp_path: Path) -> None:
    """The check itself: an import of Flask inside a function, and one of segno at the top, are seen."""
    (tmp_path / "x.py").write_text("import segno.helpers\ndef f():\n    from flask import request\n")
    assert outside_imports(tmp_path / "x.py") == [("segno", 1), ("flask", 3)]


@pytest.mark.parametrize("layer_name", ["engine", "offline", "ledger"])
def test_no_two_modules_of_a_lower_layer_import_each_other_not_even_for_types(layer_name: str) -> None:
    """Below the house (whose blueprints loop by design) the modules read as a tree: a game's checks read its
    records from ``<game>_state``, which the game module re-exports, so neither imports the other (four games'
    checks imported their game back under TYPE_CHECKING: a loop a reader meets, if Python does not)."""
    graph: dict[str, set[str]] = {}
    for e in edges(MODS, type_checking=True):
        if layer(e.source) == layer(e.target) == layer_name:
            graph.setdefault(e.source, set()).add(e.target)
    assert graph, f"no import read inside the {layer_name} layer"
    loops = sorted(f"{a} → {b} → … → {a}" for a, targets in graph.items() for b in targets if reaches(graph, b, a))
    assert not loops, "\n".join(loops)
