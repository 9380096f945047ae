"""Brotli and gzip variants of the static files, made once at install time (``make static-compressed``).

``python -m referee.static_compress static`` writes ``file.br`` and
``file.gz`` next to every file of ``static/`` that they shrink by at least
5 % (WhiteNoise's compressor, its rule), skipping files whose variants were
made from the file as it is: Pyodide's WebAssembly takes most of a minute
at brotli's best setting, and is compressed once per Pyodide version, not
on every ``make run``. Unlike WhiteNoise's own command, ``.zip`` files are
compressed too: Pyodide's standard library zip stores its modules
uncompressed, and shrinks to a third. ``referee.static_files`` serves the
variants and ignores one not made from its file as it is.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from whitenoise.compress import Compressor

from referee.static_files import VARIANTS, fresh

#: Formats that are compressed already (WhiteNoise's list without "zip").
SKIP = tuple(ext for ext in Compressor.SKIP_COMPRESS_EXTENSIONS if ext != "zip")


#: The files compression did not shrink, as they were then (relative path: [mtime_ns, size]): not tried again.
NOT_SHRUNK = ".not-compressed.json"


def compress(root: Path) -> list[Path]:
    """Make the missing or stale variants under ``root``; returns the files compressed (or tried).

    A file that compression does not shrink (a tiny script, a zip of deflated entries) has no variant; it is
    noted in ``NOT_SHRUNK`` and tried again only once it changes.
    """
    compressor = Compressor(extensions=SKIP, quiet=True)
    noted = root / NOT_SHRUNK
    try:
        not_shrunk: dict[str, list[int]] = json.loads(noted.read_text())
    except (OSError, ValueError):
        not_shrunk = {}

    def known(path: Path) -> bool:
        stat = path.stat()
        return not_shrunk.get(path.relative_to(root).as_posix()) == [stat.st_mtime_ns, stat.st_size]

    todo = [p for p in sorted(root.rglob("*")) if p.is_file() and compressor.should_compress(p.name)
            and not p.name.startswith(".") and not known(p)
            and not any(fresh(p.with_name(p.name + s), p) for s in VARIANTS)]

    def one(path: Path) -> None:
        for stale in (path.with_name(path.name + s) for s in VARIANTS):
            stale.unlink(missing_ok=True)
        stat = path.stat()
        if not compressor.compress(str(path)):
            not_shrunk[path.relative_to(root).as_posix()] = [stat.st_mtime_ns, stat.st_size]

    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(one, todo))
    if todo:
        noted.write_text(json.dumps(not_shrunk, indent=0, sort_keys=True))
    return todo


if __name__ == "__main__":
    done = compress(Path(sys.argv[1] if len(sys.argv) > 1 else "static"))
    print(f"compressed {len(done)} static files")
