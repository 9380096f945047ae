"""JSON nested no deeper than a real request ever is, checked before it is parsed (issue 25.10).

Python's parser recurses once per level: ten thousand nested lists (20 KB)
were a ``RecursionError``, a 500, on every API write and on the Knaker
referee's forms. Every JSON text a request brings is parsed by :func:`loads`
(the app's JSON provider for ``request.get_json``, and the forms that carry
JSON in a field), which first counts the nesting without parsing and refuses
more than :data:`MAX_DEPTH` levels with a 400. The deepest real document, a
night export, is five levels deep. The parsed document's text then passes
:func:`referee.text_door.check_json` (no NUL, no lone surrogate).
"""

from __future__ import annotations

import json
import re
from typing import Any

from flask.json.provider import DefaultJSONProvider
from flask_babel import lazy_gettext as _l
from werkzeug.exceptions import BadRequest

from referee import text_door

#: The deepest nesting of objects and lists a request may send.
MAX_DEPTH = 32

#: A JSON string (skipped whole: brackets inside it are text) or a bracket.
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


class TooDeep(BadRequest):
    """JSON nested deeper than :data:`MAX_DEPTH` (400)."""

    description = _l("The JSON is nested deeper than %(n)s levels.", n=MAX_DEPTH)


def check_depth(text: str | bytes, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`TooDeep` when ``text`` opens more than ``limit`` objects or lists inside each other."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("latin-1")  # brackets and quotes keep their places in any encoding of JSON
    if text.count("[") + text.count("{") <= limit:
        return  # cannot be deeper: nearly every request ends here
    depth = 0
    for found in _STRING_OR_BRACKET.finditer(text):
        mark = found.group()
        if mark in "[{":
            depth += 1
            if depth > limit:
                raise TooDeep()
        elif mark in "]}":
            depth -= 1


def loads(text: str | bytes, field: str = "", **kwargs: Any) -> Any:
    """``json.loads`` of a request's text, after :func:`check_depth`; its text checked at the door (issue 45.5).

    ``field``: the form field the text came in (none for a request's body).
    """
    check_depth(text)
    data = json.loads(text, **kwargs)
    text_door.check_json(data, field)  # a NUL or a lone surrogate anywhere in it: a 400 naming the field
    return data


class JSONProvider(DefaultJSONProvider):
    """Flask's JSON, except that request bodies go through :func:`loads`."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return loads(s, **kwargs)
