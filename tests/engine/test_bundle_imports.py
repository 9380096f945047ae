"""The browser's engine bundle imports without Flask (DESIGN.md: the bundle has no Flask in it).

Pyodide has no Flask, SQLAlchemy or Flask extensions, so a module of the
bundle that imports one (even through another module) breaks the offline
engine on the phone. The browser tests would find that, slowly; this test
finds it in a second: it builds the bundle as ``make`` does
(:mod:`referee.offline.bundle`), and in a fresh interpreter that has the zip as its
only ``referee`` and refuses every import of ``flask*`` and ``sqlalchemy*``
imports every module the zip holds.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

from referee.offline import bundle

#: Run in the child: a finder first on ``sys.meta_path`` refuses the web stack, then every bundle module is imported.
CHILD = r"""
import importlib, json, sys

class NoWebStack:
    '''Refuses Flask, its extensions and SQLAlchemy, as Pyodide would (it has none of them).'''

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0].startswith(("flask", "sqlalchemy")):
            raise ImportError(f"the browser bundle imported {name}")
        return None

sys.meta_path.insert(0, NoWebStack())
zip_path, modules = sys.argv[1], json.loads(sys.argv[2])
sys.path.insert(0, zip_path)
for name in modules:
    importlib.import_module(name)
outside = sorted(name for name, module in sys.modules.items() if name.split(".")[0] == "referee"
                 and not (getattr(module, "__file__", "") or "").startswith(zip_path))
web = sorted(name for name in sys.modules if name.split(".")[0].startswith(("flask", "sqlalchemy")))
print(json.dumps({"outside": outside, "web": web}))
"""


def bundle_modules(zip_path: Path) -> list[str]:
    """The dotted names of the Python modules in the bundle (packages by their ``__init__``)."""
    with zipfile.ZipFile(zip_path) as zf:
        names = [n.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
                 for n in zf.namelist() if n.endswith(".py")]
    return sorted(names)


def import_in_child(zip_path: Path, modules: list[str]) -> subprocess.CompletedProcess[str]:
    """Import ``modules`` from ``zip_path`` in a fresh interpreter whose cwd is not the source tree."""
    return subprocess.run([sys.executable, "-c", CHILD, str(zip_path), json.dumps(modules)],
                          capture_output=True, text=True, timeout=120, cwd=zip_path.parent, check=False)


def test_every_bundle_module_imports_without_flask(tmp_path: Path) -> None:
    zip_path = bundle.build(tmp_path / "referee_engine.zip")
    modules = bundle_modules(zip_path)
    assert {"referee.offline.browser", "referee.engine", "referee.offline.round_parse"} <= set(modules)
    done = import_in_child(zip_path, modules)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.splitlines()[-1])
    assert found == {"outside": [], "web": []}, found


def test_a_module_importing_flask_is_refused(tmp_path: Path) -> None:
    """The check can fail: a bundle module that imports Flask, even indirectly, stops the import."""
    zip_path = bundle.build(tmp_path / "referee_engine.zip")
    with zipfile.ZipFile(zip_path, "a") as zf:
        zf.writestr("referee/engine/leaky.py", "from referee.engine import money\nimport flask_babel\n")
    done = import_in_child(zip_path, ["referee.engine.leaky"])
    assert done.returncode != 0 and "the browser bundle imported flask_babel" in done.stderr
