"""The game registry (referee/engine/spec.py) and the vocabularies (referee/engine/vocab.py)."""

from __future__ import annotations

import ast
import inspect
import json
from pathlib import Path

from referee import games
from referee.engine import tricks
from referee.engine.spec import SPECS, GameSpec
from referee.engine.vocab import CLOSE_HOWS, CloseHow, EventKind, MatchStatus, PaymentKind
from referee.offline import round_parse

ROOT = Path(__file__).resolve().parents[2] / "referee"
FUNCTIONS = ("start", "parse_round", "apply", "check", "round_json", "close", "state_json")


def test_each_spec_is_its_module() -> None:
    assert list(SPECS) == ["svangknack", "kul", "schloapfer", "schwimmen", "knaker"]
    for name, spec in SPECS.items():
        assert spec.name == name == spec.module.NAME
        for attr in ("Options", "State", "Round", *FUNCTIONS):
            assert getattr(spec, attr) is getattr(spec.module, attr), (name, attr)


def test_capabilities_say_what_the_games_do() -> None:
    for name, spec in SPECS.items():
        assert spec.can_carry == ("carried_in" in inspect.signature(spec.start).parameters), name
        assert spec.has_tricks == (name in tricks.GAMES), name
        assert spec.has_pot == (name != "knaker"), name  # Knaker pays its pot out after every game
    assert {"svangknack", "kul"} == games.CARRY_GAMES


def test_the_old_names_are_views_of_the_registry() -> None:
    assert list(games.GAMES) == list(SPECS) and {n: n for n in SPECS} == games.GAMES
    assert games.TITLES["schwimmen"] == "Schwimmen / 31" and games.TITLES["svangknack"] == "Svängknack"
    assert all(games.game(name) is spec.module for name, spec in SPECS.items())
    assert set(round_parse.MODULES) == set(SPECS)
    assert round_parse.module("nope") is None and round_parse.module("kul") is round_parse.MODULES["kul"]
    assert isinstance(SPECS["kul"], GameSpec)


def test_no_game_is_found_by_importlib() -> None:
    """Games are listed in the registry; modules imported by a computed name would bypass it."""
    for path in (ROOT / "games.py", ROOT / "engine" / "spec.py", ROOT / "offline" / "round_parse" / "__init__.py",
                 ROOT / "round_forms" / "__init__.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {a.name for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
        assert "importlib" not in names and "import_module" not in names, path.name


def test_a_vocabulary_word_is_its_string() -> None:
    """Stored values and JSON stay as they were: a member equals, hashes and serialises as its text."""
    assert CLOSE_HOWS == ("split", "award", "carry") and all(type(h) is str for h in CLOSE_HOWS)
    assert json.dumps({"pot": CloseHow.CARRY, "kind": EventKind.CLOSE}) == '{"pot": "carry", "kind": "close"}'
    assert [k.value for k in PaymentKind] == ["payment", "opening", "carry_out", "prize"]
    assert {MatchStatus.OPEN: 1}["open"] == 1 and f"{MatchStatus.CLOSED}" == "closed"
