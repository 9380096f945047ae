"""The game registry (referee/engine/spec.py) and the vocabularies (referee/engine/vocab.py)."""

from __future__ import annotations

import ast
import inspect
import json
from pathlib import Path

from referee.engine import knaker, kul, schloapfer, schwimmen, svangknack, tricks
from referee.engine.spec import SPECS, GameResult, GameSpec, spec, title
from referee.engine.vocab import CLOSE_HOWS, CloseHow, EventKind, MatchStatus, PaymentKind
from referee.offline import round_parse

ROOT = Path(__file__).resolve().parents[2] / "referee"
FUNCTIONS = ("start", "parse_round", "apply", "check", "round_json", "close", "state_json")
MODULES = {m.NAME: m for m in (svangknack, kul, schloapfer, schwimmen, knaker)}


def test_each_spec_is_its_module() -> None:
    assert list(SPECS) == ["svangknack", "kul", "schloapfer", "schwimmen", "knaker"]
    for name, game in SPECS.items():
        assert game.name == name == MODULES[name].NAME and spec(name) is game
        for attr in ("Options", "State", "Round", *FUNCTIONS):
            assert getattr(game, attr) is getattr(MODULES[name], attr), (name, attr)
    assert isinstance(SPECS["kul"], GameSpec) and not hasattr(SPECS["kul"], "module")


def test_capabilities_say_what_the_games_do() -> None:
    for name, game in SPECS.items():
        assert game.can_carry == ("carried_in" in inspect.signature(game.start).parameters), name
        assert game.has_pot == (name != "knaker"), name  # Knaker pays its pot out after every game
    assert {n for n, g in SPECS.items() if g.can_carry} == {"svangknack", "kul"}
    assert tricks.GAMES == ("svangknack", "kul", "schloapfer")
    assert tricks.HAND_SIZE == {"svangknack": 3, "kul": 5, "schloapfer": 6}  # seed, KU-3, SL-3
    assert [len(tricks.DECKS[g]) for g in tricks.GAMES] == [52, 52, 36]
    assert title("schwimmen") == "Schwimmen / 31" and title("svangknack") == "Svängknack" and title("x") == "x"


def test_each_list_of_games_is_the_registry() -> None:
    """The parsers, the forms, the trick referee's games and the API's schemas are derived from SPECS."""
    from referee import round_forms
    from referee.api import openapi_games

    for loader in (round_parse, round_forms):
        assert list(loader.MODULES) == list(SPECS)
        assert all(m.__name__ == f"{loader.__name__}.{n}" for n, m in loader.MODULES.items())
    assert round_parse.module("nope") is None and round_parse.module("kul") is round_parse.MODULES["kul"]
    schemas = openapi_games.schemas()
    assert [r["$ref"].rsplit("/", 1)[1] for r in schemas["RoundIn"]["anyOf"]] == [
        openapi_games.component(n, "Round") for n in SPECS]
    for name, game in SPECS.items():
        assert schemas[openapi_games.component(name, "State")]["description"].startswith(
            f"The state of a {game.title} match")
        assert all(schemas[part] == dict(shape) for part, shape in game.schema_parts.items())
    assert schemas["TricksQuestion"]["properties"]["game"]["enum"] == list(tricks.GAMES)


def test_games_are_imported_by_the_registry_names_only() -> None:
    """A module imported by a computed name bypasses the registry unless the name is the registry's:
    only the two loaders use ``import_module``, each on ``f"{__name__}.{name}" for name in SPECS``."""
    loaders = {ROOT / "offline" / "round_parse" / "__init__.py", ROOT / "round_forms" / "__init__.py"}
    for path in ROOT.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {a.name for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
        calls = [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Call)
                 and ast.unparse(n.func) in ("import_module", "importlib.import_module", "__import__")]
        if path in loaders:
            assert calls == ['import_module(f\'{__name__}.{name}\')'], (path, calls)
        else:
            assert "importlib" not in names and "import_module" not in names and not calls, path


def test_the_spec_answers_what_the_ledger_asked_of_knaker_and_schwimmen() -> None:
    """Knaker's finished games, open dots and log view, Schwimmen's survival ranking: the spec's answers."""
    players = ("A", "B", "C")
    k = spec("knaker")
    state = k.start(players, "A", 100, knaker.Options())
    dot = {"dot": {"player": "B", "offence": "ordinary"}}
    game = {"events": [{"out": ["A"]}, {"lost": ["C"]}]}
    dotted = k.apply(state, k.parse_round(state, dot, None))
    played = k.apply(dotted, k.parse_round(dotted, game, None))
    assert k.game_result(state, dotted) is None and k.open_dots(dotted) == (0, 1, 0)
    assert k.game_result(dotted, played) == GameResult(places=(1, 2, 3), dots=(0, 1, 0))
    assert k.rank(played, lambda: ()) == [("A", 1), ("B", 2), ("C", 3)]
    view = k.log_view(players, [(1, dot), (2, game), (3, dot)])
    assert [g["places"] for g in view["games"]] == [{"A": 1, "B": 2, "C": 3}]
    assert view["games"][0]["scores"] == {"A": 2, "B": 1, "C": 0}
    assert [d["seq"] for d in view["dots"]] == [3]
    for name in ("svangknack", "kul", "schloapfer", "schwimmen"):
        assert spec(name).log_view is None and spec(name).open_dots(state) == ()

    s = spec("schwimmen")
    first = s.start(players, "A", 100, schwimmen.Options())
    assert s.game_result(first, first) is None
    # Nobody out yet: the winner-less ranking is by survival alone, everyone shares the first place.
    assert s.rank(first, lambda: [first]) == [("A", 1), ("B", 1), ("C", 1)]
    assert spec("kul").rank(spec("kul").start(players, "A", 100, kul.Options()), lambda: ()) == [
        ("A", 1), ("B", 1), ("C", 1)]


def test_a_vocabulary_word_is_its_string() -> None:
    """Stored values and JSON stay as they were: a member equals, hashes and serialises as its text."""
    assert CLOSE_HOWS == ("split", "award", "carry") and all(type(h) is str for h in CLOSE_HOWS)
    assert json.dumps({"pot": CloseHow.CARRY, "kind": EventKind.CLOSE}) == '{"pot": "carry", "kind": "close"}'
    assert [k.value for k in PaymentKind] == ["payment", "opening", "carry_out", "prize", "fee"]
    assert {MatchStatus.OPEN: 1}["open"] == 1 and f"{MatchStatus.CLOSED}" == "closed"
