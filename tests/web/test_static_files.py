"""Static files on the wire (issue 29): compressed where it shrinks, immutable under a versioned URL only.

Every file of ``static/`` (Pyodide's included, when installed) is fetched
through the app as a phone would (``Accept-Encoding: br, gzip``): a text or
WebAssembly file that brotli shrinks comes compressed, and decodes to the
file's bytes; a versioned URL (``?v=<hash>``, ``/static/pyodide/<hash>/``)
is ``immutable``, any other static URL and the service worker are not. The
pages name every static file by a versioned URL. The compressed variants
are made as ``make test`` makes them (``referee.static_compress``, a no-op
when they are up to date); a variant older than its file is not served.
"""

from __future__ import annotations

import gzip
import os
import re
from pathlib import Path
from typing import Any

import brotli
import pytest
from werkzeug.test import Client

from referee import static_compress, static_files
from tests.conftest import make_app
from tests.web.test_pages import create_match, create_night

STATIC = Path(__file__).resolve().parents[2] / "static"
#: What a phone's browser sends.
PHONE = {"Accept-Encoding": "br, gzip"}
COMPRESSIBLE = re.compile(r"^(text/|application/(javascript|json|wasm|manifest\+json)|image/svg)")


@pytest.fixture(scope="module", autouse=True)
def _compressed() -> None:
    static_compress.compress(STATIC)


def _files() -> list[str]:
    return sorted(p.relative_to(STATIC).as_posix() for p in STATIC.rglob("*")
                  if p.is_file() and not p.name.endswith(static_files.VARIANTS) and not p.name.startswith("."))


def _decoded(resp: Any) -> bytes:
    data = resp.get_data()
    encoding = resp.headers.get("Content-Encoding")
    return brotli.decompress(data) if encoding == "br" else gzip.decompress(data) if encoding == "gzip" else data


def test_every_static_file_is_compressed_where_it_shrinks_and_immutable_when_versioned(tmp_path: Path) -> None:
    app = make_app(f"sqlite:///{tmp_path / 'static.sqlite3'}", tmp_path)  # no database in it: one backend
    client = app.test_client()
    files = _files()
    assert "css/app.css" in files and "js/pyengine.js" in files
    engine = static_files.engine_base(STATIC)
    for name in files:
        raw = (STATIC / name).read_bytes()
        with app.test_request_context():
            from flask import url_for

            versioned = url_for("static", filename=name)
        assert re.search(r"\?v=[0-9a-f]{12}$", versioned), versioned
        resp = client.get(versioned, headers=PHONE)
        assert resp.status_code == 200, name
        assert resp.headers["Cache-Control"] == "public, max-age=31536000, immutable", name
        assert _decoded(resp) == raw, name  # the bytes of the file, whatever the encoding
        assert resp.headers["X-Content-Type-Options"] == "nosniff"
        assert "wasm-unsafe-eval" in resp.headers["Content-Security-Policy"]  # a module worker runs under it
        if COMPRESSIBLE.match(resp.mimetype) and len(brotli.compress(raw, quality=5)) <= 0.9 * len(raw):
            assert resp.headers.get("Content-Encoding") == "br", name  # a text file that shrinks: it is compressed
            if len(gzip.compress(raw)) <= 0.95 * len(raw):  # an older browser: gzip
                gz = client.get(versioned, headers={"Accept-Encoding": "gzip"})
                assert gz.headers.get("Content-Encoding") == "gzip" and _decoded(gz) == raw, name
        if "Content-Encoding" in resp.headers:
            assert len(resp.get_data()) < len(raw), name  # only where it shrinks
        # The same file without a version: kept, but asked again (its ETag) every time.
        plain = client.get(f"/static/{name}", headers=PHONE)
        assert plain.status_code == 200 and plain.headers["Cache-Control"] == "no-cache", name
        assert client.get(f"/static/{name}", headers={"If-None-Match": plain.headers["ETag"]}).status_code == 304
        if engine and name.startswith("pyodide/") and name.split("/")[1] in static_files.PYODIDE_FILES:
            resp = client.get(engine + name.split("/")[1], headers=PHONE)
            assert resp.headers["Cache-Control"] == "public, max-age=31536000, immutable", name
            assert _decoded(resp) == raw, name
    # The service worker is never kept (the browser must see a new one), nor is a page.
    assert client.get("/sw.js").headers["Cache-Control"] == "private, no-store"
    assert client.get("/").headers["Cache-Control"] == "private, no-store"


def test_the_pages_name_every_static_file_by_a_versioned_url(client: Any) -> None:
    night_id = create_night(client)
    match_id = create_match(client, night_id)
    engine = static_files.engine_base(STATIC)
    seen = set()
    for path in ("/", f"/nights/{night_id}", f"/matches/{match_id}", f"/nights/{night_id}/settlement",
                 "/referee/knaker"):
        page = client.get(path).get_data(as_text=True)
        urls = re.findall(r"/static/[^\"' ]+", page)
        assert urls, path
        for url in urls:
            seen.add(url)
            assert re.search(r"\?v=[0-9a-f]{12}$", url) or (engine and url.startswith(engine)), (path, url)
    if engine:  # the leader's match page names the engine's files, Pyodide's under its versioned folder
        assert any(url.startswith(engine) for url in seen)


def test_a_variant_not_made_from_the_file_as_it_is_is_not_served(tmp_path: Path) -> None:
    (tmp_path / "a.css").write_text("body { color: red; }\n" * 200)
    static_compress.compress(tmp_path)
    assert (tmp_path / "a.css.br").exists() and (tmp_path / "a.css.gz").exists()

    def fallback(environ: Any, start_response: Any) -> list[bytes]:
        start_response("404 Not Found", [])
        return [b""]

    served = Client(static_files.StaticFiles(fallback, tmp_path))
    assert served.get("/static/a.css", headers=PHONE).headers.get("Content-Encoding") == "br"
    (tmp_path / "a.css").write_text("body { color: blue; }\n" * 200)  # edited after the variants were made
    stat = (tmp_path / "a.css").stat()
    os.utime(tmp_path / "a.css", ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    resp = Client(static_files.StaticFiles(fallback, tmp_path)).get("/static/a.css", headers=PHONE)
    assert "Content-Encoding" not in resp.headers and b"blue" in resp.get_data()
    assert static_compress.compress(tmp_path) == [tmp_path / "a.css"]  # made again, and only that file
    assert static_compress.compress(tmp_path) == []
