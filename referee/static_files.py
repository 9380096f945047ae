"""The static files, served by WhiteNoise: compressed on the wire, kept for a year under versioned URLs (issue 29).

Why WhiteNoise: it serves a WSGI app's static files itself, picks the
brotli or gzip variant each file has next to it (``file.br``, ``file.gz``,
made once at install time by ``python -m whitenoise.compress``, see the
Makefile's ``static-compressed``) by the request's ``Accept-Encoding``,
answers ``If-None-Match`` and ranges, and scans the folder once at start, so
a request for a static file never reaches Flask.

Versioned URLs, two kinds:

- ``?v=<content hash>`` (``url_for('static', ...)`` adds it, see
  ``referee._register_headers``): the app's styles, scripts and icons.
- ``/static/pyodide/<hash>/<file>``: the in-browser engine's Pyodide
  files, where the version must be in the path (Pyodide loads its other
  files relative to its own URL, so a query would be lost). The hash is of
  their contents (:func:`engine_version`); the engine bundle changes with
  the rules and is fetched by its own ``?v=`` URL, so a rules change does not
  send the phone 4.8 MB of Pyodide again.

A versioned URL is ``public, max-age=31536000, immutable``; any other static
URL (a worker script's relative import, an old bookmark) is ``no-cache``:
kept, but asked again with its ETag each time. The page headers the app
sets on every answer (Content-Security-Policy, nosniff) are set here too,
as a module worker runs under the policy of its own script's answer.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from wsgiref.headers import Headers

from whitenoise import WhiteNoise
from whitenoise.responders import StaticFile

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
#: The Pyodide files the engine loads (the Makefile's PYODIDE_FILES), served under their version.
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
PYODIDE_DIR = "pyodide"
#: The compressed variants WhiteNoise serves, made by ``referee.static_compress``.
VARIANTS = (".br", ".gz")
#: Every answer's security headers (pages set theirs in ``referee._register_headers``).
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self' 'wasm-unsafe-eval'; "
        "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
    "X-Content-Type-Options": "nosniff",
    # The app's own pages send their address (Flask-WTF refuses a form posted over HTTPS without a Referer
    # of the same host: behind Caddy every round entry was a 400); other sites never get it (tokens in URLs).
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}


def fresh(variant: Path, path: Path) -> bool:
    """Whether ``variant`` was made from ``path`` as it is (WhiteNoise gives a variant its file's mtime)."""
    try:
        return abs(variant.stat().st_mtime_ns - path.stat().st_mtime_ns) < MTIME_SLACK_NS
    except OSError:
        return False


#: The variant's mtime is set from a float of seconds: equal to the file's within microseconds.
MTIME_SLACK_NS = 1_000_000


def static_version(folder: str | Path, filename: str) -> str:
    """A short hash of a static file's content: its URL changes when the file does (``?v=``)."""
    path = Path(folder) / filename
    try:
        stat = path.stat()
    except OSError:
        return ""
    return _hash(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=512)
def _hash(path: str, _mtime: int, _size: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]


def engine_version(static: str | Path) -> str:
    """The version of the installed Pyodide files (a hash of their hashes), or "" when they are not installed."""
    parts = [static_version(Path(static) / PYODIDE_DIR, name) for name in PYODIDE_FILES]
    if not all(parts):
        return ""
    return hashlib.sha256("".join(parts).encode()).hexdigest()[:12]


def engine_base(static: str | Path) -> str:
    """The versioned folder URL of Pyodide's files (``indexURL``), or "" when they are not installed."""
    version = engine_version(static)
    return f"/static/{PYODIDE_DIR}/{version}/" if version else ""


def wire_size(path: Path, raw: bool = False) -> int:
    """Bytes on the wire of a static file: its smallest kept form (brotli, gzip or as is); 0 when missing.

    With ``raw``, the file's own size (what the browser reads once it is decoded).
    """
    forms = (path,) if raw else (path, path.with_name(path.name + ".br"), path.with_name(path.name + ".gz"))
    sizes = [p.stat().st_size for p in forms if p.is_file()]
    return min(sizes, default=0)


class StaticFiles(WhiteNoise):  # type: ignore[misc]  # WhiteNoise has no type hints
    """WhiteNoise with the cache rule of this app: immutable only under a versioned URL (see the module)."""

    def __init__(self, application: Callable[..., Iterable[bytes]], static: Path) -> None:
        super().__init__(application, root=str(static), prefix="static/", max_age=None)
        version = engine_version(static)
        if version:
            self.pyodide_prefix = f"/static/{PYODIDE_DIR}/{version}/"
            folder = static / PYODIDE_DIR
            for name in PYODIDE_FILES:
                self.add_file_to_dictionary(self.pyodide_prefix + name, str(folder / name))
        else:
            self.pyodide_prefix = ""

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        static_file = self.files.get(path)
        if static_file is None:
            answer: Iterable[bytes] = self.application(environ, start_response)
            return answer
        query = environ.get("QUERY_STRING", "")
        versioned = (bool(self.pyodide_prefix) and path.startswith(self.pyodide_prefix)) or any(
            part.startswith("v=") and len(part) > 2 for part in query.split("&"))
        cache = IMMUTABLE if versioned else REVALIDATE

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            kept = [(k, v) for k, v in headers if k.lower() != "cache-control"]
            return start_response(status, [*kept, ("Cache-Control", cache)], exc_info)

        served: Iterable[bytes] = self.serve(static_file, environ, start)
        return served

    def get_static_file(self, path: str, url: str, stat_cache: Any = None) -> StaticFile:
        """WhiteNoise's, without a compressed variant not made from the file as it is (edited since)."""
        headers = Headers([])
        self.add_mime_headers(headers, path, url)
        _security_headers(headers, path, url)
        encodings = {name: path + suffix for name, suffix in (("gzip", ".gz"), ("br", ".br"))
                     if fresh(Path(path + suffix), Path(path))}
        return StaticFile(path, headers.items(), encodings=encodings, stat_cache=stat_cache)


def _security_headers(headers: Any, _path: str, _url: str) -> None:
    for name, value in SECURITY_HEADERS.items():
        headers[name] = value
