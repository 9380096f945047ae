"""The engine is pure: no Flask, no SQLAlchemy, no I/O modules (DESIGN.md)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "referee" / "engine"
PURE = [*sorted(ENGINE.glob("*.py")), ENGINE.parent / "ledger" / "settle.py"]
FORBIDDEN = {"flask", "flask_sqlalchemy", "sqlalchemy", "werkzeug", "jinja2", "requests", "socket",
             "subprocess", "sqlite3", "psycopg", "os", "random", "time", "datetime", "referee.models",
             "referee.ledger"}


@pytest.mark.parametrize("path", PURE, ids=lambda p: p.name)
def test_engine_module_imports_nothing_impure(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
    bad = {name for name in imported if name in FORBIDDEN or name.split(".")[0] in FORBIDDEN}
    assert not bad, f"{path.name} imports {sorted(bad)}"
    assert not re.search(r"(?<![\w.])open\(", path.read_text(encoding="utf-8")), f"{path.name} opens files"
