"""Build the engine bundle the phone's browser runs (``python -m referee.offline.bundle OUT.zip``).

The zip holds the pure engine (``referee/engine``), the round forms' parsers
(``referee/offline/round_parse``), the browser's door (``referee/offline/browser.py``; the
game registry is ``referee/engine/spec.py``) and the compiled catalogs, laid out as in the source tree, with an empty
``referee/__init__.py`` so that importing the engine does not import Flask.
It is made from the source at install time (``make run``/``make test``), so
the browser never runs a second copy of a rule.
"""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the referee package

#: What the browser needs, relative to the ``referee`` package.
MODULES = ("offline/__init__.py", "offline/browser.py")


def files() -> list[tuple[Path, str]]:
    """``(source, name in the zip)`` for everything the bundle holds, in a stable order."""
    found = [(p, f"referee/{p.relative_to(ROOT).as_posix()}") for p in sorted((ROOT / "engine").glob("*.py"))]
    parsers = sorted((ROOT / "offline" / "round_parse").glob("*.py"))
    found += [(p, f"referee/{p.relative_to(ROOT).as_posix()}") for p in parsers]
    found += [(ROOT / m, f"referee/{m}") for m in MODULES]
    found += [(p, f"referee/{p.relative_to(ROOT).as_posix()}")
              for p in sorted((ROOT / "translations").glob("*/LC_MESSAGES/messages.mo"))]
    return found


def build(out: Path) -> Path:
    """Write the bundle to ``out`` (fixed timestamps: the same source gives the same bytes).

    Stored, not deflated: brotli on the wire compresses the whole bundle better than deflate file by file.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr(zipfile.ZipInfo("referee/__init__.py", (2026, 1, 1, 0, 0, 0)),
                    '"""The engine bundle for the browser (built by referee/offline/bundle.py)."""\n')
        for src, name in files():
            zf.writestr(zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0)), src.read_bytes(),
                        compress_type=zipfile.ZIP_STORED)
    tmp.replace(out)
    return out


if __name__ == "__main__":
    print(build(Path(sys.argv[1] if len(sys.argv) > 1 else "static/pyodide/referee_engine.zip")))
