"""No code outside the engine branches on a game's name (issue 27): it asks the game's spec instead.

A comparison such as ``match.game == "knaker"`` or ``game in ("schwimmen", "knaker")``
is a list of games kept in a second place; a new game or a renamed one slips
past it silently. :mod:`referee.engine.spec` holds the capabilities
(``has_trumps``, ``has_svangare``, ``has_dots``, ``round_word``, ``ranking``,
``brag`` ...) that replace them. The Python modules are read with ``ast`` (any
``==``/``!=``/``in``/``not in``/``case`` against a game's name as a string
literal, whatever the other side is called); the Jinja templates with a
regular expression, since Jinja is not Python.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from referee.engine.spec import SPECS

ROOT = Path(__file__).resolve().parent.parent
NAMES = frozenset(SPECS)
_QUOTED = "|".join(re.escape(name) for name in sorted(NAMES))
_TEMPLATE = re.compile(
    rf"""(==|!=)\s*['"]({_QUOTED})['"]|['"]({_QUOTED})['"]\s*(==|!=)"""
    rf"""|\bin\s*[(\[][^)\]]*['"]({_QUOTED})['"]""")


def _names_in(node: ast.AST) -> bool:
    """``node`` is a game's name as a literal, or a tuple/list/set holding one."""
    if isinstance(node, ast.Constant):
        return node.value in NAMES
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_names_in(elt) for elt in node.elts)
    return False


def python_branches(source: str) -> list[int]:
    """The lines of ``source`` that compare something with a game's name."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn) for op in node.ops) \
                    and any(_names_in(side) for side in sides):
                lines.append(node.lineno)
        elif isinstance(node, ast.match_case) and isinstance(node.pattern, ast.MatchValue) \
                and _names_in(node.pattern.value):
            lines.append(node.pattern.lineno)
    return lines


def template_branches(source: str) -> list[int]:
    """The lines of a Jinja template that compare something with a game's name."""
    return [source.count("\n", 0, m.start()) + 1 for m in _TEMPLATE.finditer(source)]


def branches() -> list[str]:
    """Every such comparison outside ``referee/engine/``, as ``path:line``."""
    found = []
    for path in sorted((ROOT / "referee").rglob("*.py")):
        if (ROOT / "referee" / "engine") in path.parents:
            continue
        found += [f"{path.relative_to(ROOT)}:{n}" for n in python_branches(path.read_text(encoding="utf-8"))]
    for path in sorted((ROOT / "templates").rglob("*.html")):
        found += [f"{path.relative_to(ROOT)}:{n}" for n in template_branches(path.read_text(encoding="utf-8"))]
    return found


def test_no_game_name_branch_outside_the_engine() -> None:
    assert branches() == []


def test_the_python_check_sees_each_form_of_branch() -> None:
    src = ('if match.game == "knaker":\n    pass\n'
           'x = "kul" != game\n'
           'y = game in ("schwimmen", "knaker")\n'
           'z = module.NAME not in ["svangknack"]\n'
           'match g:\n    case "schloapfer":\n        pass\n'
           'ok = spec.has_dots and name == "Knaker" and title == "kulan" and game in GAMES\n')
    assert python_branches(src) == [1, 3, 4, 5, 7]


def test_the_template_check_sees_each_form_of_branch() -> None:
    src = ('{% if game != "kul" %}\n'
           "{% elif game in ('schwimmen', 'knaker') %}\n"
           "{% if 'schloapfer' == match.game %}\n"
           '{% if game_spec(game).has_trumps and word == "game" %}\n')
    assert template_branches(src) == [1, 2, 3]
