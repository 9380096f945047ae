"""Trim Pyodide's standard library zip to what the engine can use (``python -m referee.offline.stdlib_trim ZIP``).

Issue 29: the phone fetches the offline engine over a mobile plan, so it
gets no module the engine never imports: the test suite, the IDE and the
REPL, the debugger, XML, databases, multiprocessing, mail and network
protocols, and the legacy single-byte and East Asian codecs (the engine
reads and writes UTF-8 JSON). The entries are written *stored*, not
deflated: brotli on the wire (``referee.static_compress``) then compresses
the modules as one text and does better than deflate file by file (the
phone keeps the decoded zip, a few MB more in its cache).

Idempotent (run by the Makefile after Pyodide is unpacked); a module
dropped here and needed later comes back by ``rm -rf static/pyodide && make
browser-engine``. The browser tests (``tests/browser/*engine*``) run the
engine on the trimmed library.
"""

from __future__ import annotations

import re
import sys
import zipfile
from pathlib import Path

#: Top-level packages and modules the engine and Pyodide's start never import.
DROP = frozenset({
    "test", "unittest", "idlelib", "tkinter", "turtledemo", "turtle.py", "lib2to3", "ensurepip", "venv",
    "pydoc_data", "pydoc.py", "doctest.py", "pdb.py", "xmlrpc", "wsgiref", "sqlite3", "curses", "dbm",
    "multiprocessing", "xml", "_pyrepl", "tarfile.py", "mailbox.py", "imaplib.py", "smtplib.py", "ftplib.py",
    "poplib.py", "nntplib.py", "telnetlib.py", "this.py", "antigravity.py", "cProfile.py", "profile.py",
    "pstats.py", "trace.py", "tabnanny.py", "pickletools.py", "mailcap.py", "cgi.py", "cgitb.py",
})
#: Codecs kept: Unicode, ASCII, Latin-1 and Windows-1252, and the machinery (aliases, the registry).
KEPT_CODEC = re.compile(r"^encodings/(__init__|aliases|utf_\w+|ascii|latin_1|cp1252|cp437|charmap|idna|punycode|"
                        r"raw_unicode_escape|unicode_escape|mbcs|undefined|base64_codec|hex_codec)\.py$")


def kept(name: str) -> bool:
    """Whether the zip entry ``name`` stays."""
    top = name.split("/", 1)[0]
    if top in DROP:
        return False
    if top == "encodings" and name.endswith(".py"):
        return bool(KEPT_CODEC.match(name))
    return True


def trim(path: Path) -> tuple[int, int]:
    """Rewrite the zip at ``path`` without the dropped modules, its entries stored; (entries before, after)."""
    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as out:
        infos = src.infolist()
        left = [info for info in infos if kept(info.filename)]
        for info in left:
            entry = zipfile.ZipInfo(info.filename, info.date_time)
            entry.external_attr = info.external_attr
            out.writestr(entry, src.read(info), compress_type=zipfile.ZIP_STORED)
    tmp.replace(path)
    return len(infos), len(left)


if __name__ == "__main__":
    before, after = trim(Path(sys.argv[1]))
    print(f"standard library: {after} of {before} entries kept")
