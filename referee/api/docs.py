"""``GET /api/docs``: the API reference a person reads, drawn from ``/api/openapi.json``.

The viewer is Swagger UI (``swagger-ui-dist`` from the npm registry, pinned in
the Makefile, fetched by ``make api-docs`` into ``static/api-docs/``, which git
ignores, like Pyodide). It runs within the app's Content-Security-Policy: its
bundle, its stylesheet and our starter script are files of ``static/``, no
inline script or style. Without the viewer installed the page says how to
install it, and the JSON document stays where it is.
"""

from __future__ import annotations

from pathlib import Path

from flask import current_app, render_template

from referee.api import bp

#: The viewer's files under ``static/`` (what ``make api-docs`` copies there).
VIEWER = ("api-docs/swagger-ui-bundle.js", "api-docs/swagger-ui.css")


def viewer_installed() -> bool:
    static = Path(current_app.static_folder or "")
    return all((static / name).is_file() for name in VIEWER)


@bp.get("/docs")
def api_docs() -> object:
    installed = viewer_installed()
    return render_template("api/docs.html", installed=installed), 200 if installed else 503
