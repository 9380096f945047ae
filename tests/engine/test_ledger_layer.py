"""The ledger sits below the doors (issue 27): it never imports them, not even inside a function.

``referee/ledger/`` writes every row; pages, API, reports, the export door and
the error answers call it. An import of theirs from the ledger, at the top or
hidden inside a function, would be a loop through the layers.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

LEDGER = Path(__file__).resolve().parents[2] / "referee" / "ledger"
#: (``referee.offline`` is not among them: what ships to the browser sits below the ledger, above the engine
#: (``tests/test_layers.py``), and the ledger reads a page's round form with its parser, issue 48.3.)
ABOVE = ("referee.pages", "referee.api", "referee.reports", "referee.errors", "referee.exports",
         "referee.guest_pages", "referee.web")


def _imports(tree: ast.AST) -> list[tuple[str, bool]]:
    """Every module a file imports, with whether the import sits inside a function."""
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, nested: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = nested or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.Import):
                found.extend((alias.name, inner) for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module:
                found.append((child.module, inner))
                found.extend((f"{child.module}.{alias.name}", inner) for alias in child.names)
            visit(child, inner)

    visit(tree, False)
    return found


@pytest.mark.parametrize("path", sorted(LEDGER.glob("*.py")), ids=lambda p: p.name)
def test_the_ledger_imports_nothing_above_it(path: Path) -> None:
    imports = _imports(ast.parse(path.read_text(), str(path)))
    assert imports, "no imports found: the check would pass on anything"
    above = [name for name, _nested in imports if name.startswith(ABOVE)]
    assert not above, f"{path.name} imports {above}"
    nested = [name for name, inner in imports if inner and name.startswith("referee")]
    assert not nested, f"{path.name} imports {nested} inside a function"


def test_the_check_sees_a_hidden_import() -> None:
    tree = ast.parse("def f():\n    from referee.pages import can_edit\n")
    assert ("referee.pages", True) in _imports(tree)
