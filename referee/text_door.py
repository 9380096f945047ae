"""Text a request brings, checked once at the door: nothing a database cannot store gets in (issue 45.5).

JSON lets through text that no column holds: a lone surrogate (``"\\ud800"``,
which is not UTF-8, so neither SQLite's nor PostgreSQL's driver can send it)
and NUL (``"\\u0000"``, which PostgreSQL's text refuses). Each reached a column
past the checks of its field (a tournament's seed, a night's group token, an
import's void reason): a 500, and the next field added would have been the
next 500. So every text of every request goes through :func:`check`, once,
before any view reads it:

- each string and each key of a JSON body, nested ones too (:func:`check_json`,
  run by the JSON parser of :mod:`referee.json_depth`, which every request's
  JSON goes through);
- each field of a form (:mod:`referee.pages.form_checks`; the bytes of a form
  are UTF-8, so only NUL can be in it);
- the URL's path and query and the request's headers (:func:`check_url`, the
  first thing every request does); a URL's bytes decode to no surrogate, a
  NUL may be there.

Such text is a 400 whose ``field`` names where it was (``players[2]``,
``deal.tricks[0][1]``, a query's or header's name); nothing was read further,
so nothing is written. A text's length is its field's own check.
"""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Flask, request
from flask_babel import lazy_gettext as _l
from werkzeug.exceptions import BadRequest

#: NUL and the surrogates (in a ``str``, a surrogate is always a lone one: a pair is one character).
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
#: How much of a bad object key the field shows.
SHOWN_KEY = 60


class Unstorable(BadRequest):
    """Text with a NUL or a lone surrogate (400); :attr:`field` says where it was."""

    def __init__(self, field: str) -> None:
        super().__init__(_l("%(field)s contains a NUL character or a lone surrogate, which cannot be stored.",
                            field=field))
        self.field = field


def check(text: str, field: str) -> None:
    """Raise :class:`Unstorable` naming ``field`` when ``text`` holds a NUL or a lone surrogate."""
    if _UNSTORABLE.search(text):
        raise Unstorable(field)


def check_json(value: Any, root: str = "") -> None:
    """:func:`check` every string and every key of a parsed JSON document, the fields named by their path.

    ``root`` names the document when it is one field of something (a form's field); a request's body is
    nameless, so its fields are named as the API names them (``players[2]``).
    """
    stack: list[tuple[Any, str]] = [(value, root)]
    while stack:  # not recursive: the depth is bounded (json_depth), but a loop needs no bound at all
        item, at = stack.pop()
        if isinstance(item, str):
            check(item, at or "body")
        elif isinstance(item, dict):
            for key, sub in item.items():
                field = f"{at}.{key}" if at else key
                if _UNSTORABLE.search(key):
                    shown = json.dumps(key)[1:-1][:SHOWN_KEY]  # the key with its bad characters escaped
                    raise Unstorable(f"{at}.{shown}" if at else shown)
                stack.append((sub, field))
        elif isinstance(item, list):
            stack.extend((sub, f"{at or 'body'}[{i}]") for i, sub in enumerate(item))


def check_url() -> None:
    """:func:`check` the path's parts, the query's names and values, and the headers (before every request)."""
    for name, value in (request.view_args or {}).items():
        if isinstance(value, str):
            check(value, name)
    for name, value in request.args.items(multi=True):
        check(name, "query")
        check(value, name)
    for name, value in request.headers.items():
        check(value, name)


def install(app: Flask) -> None:
    """Run :func:`check_url` before every other before-request function (nothing may read the URL's text first)."""
    app.before_request_funcs.setdefault(None, []).insert(0, check_url)
