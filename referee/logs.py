"""No token in any log line: edit, view, group and table tokens are credentials, logs are not.

A night's tokens travel in URLs (``/e/<edit token>``, ``/v/<view token>``,
``/groups/<group token>``, ``/t/<table token>``, ``?view=<token>``) and
headers (``Authorization: Bearer <token>``), and gunicorn's access log, its
error log and the app's own log would write them out in clear.
:func:`redact` replaces each with ``[redacted]``; :class:`RedactingFilter`
applies it to every record of the loggers it is put on, and
:func:`guard` (called by ``gunicorn.conf.py`` in every worker, so every
gunicorn started in the checkout has it) puts it on gunicorn's access and
error logs and redacts the access log's request line, path, query and referer.

The links are not listed by hand (a list forgot ``/t/``, issue 45.1): they
are the app's routes with a token argument (``token`` or a name ending in
``_token``), learnt from the ``url_map`` of every app this process builds
(:func:`learn_routes`, called by ``create_app``), so a new token route is
redacted without anyone remembering to add it.
"""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import unquote_plus

from gunicorn.glogging import Logger
from werkzeug.routing import Map

#: Token-bearing pieces of text that are not a route: the query parameter, a bearer header.
_FIXED = (
    (re.compile(r"([?&;]view=)[^&\s\"']+"), r"\1[redacted]"),
    (re.compile(r"(Bearer\s+)[A-Za-z0-9_\-.=~+/]+", re.IGNORECASE), r"\1[redacted]"),
)
#: A route argument that is a credential: ``<token>``, ``<group_token>``, ``<table_token>``...
TOKEN_ARGUMENT = re.compile(r"(?:\w+_)?token")
#: An argument of a route rule: ``<name>`` or ``<converter:name>`` (``<int(max=9):name>``).
_ARGUMENT = re.compile(r"<(?:[^<>:]+:)?(\w+)>")
#: What the server would take as the token argument: a path segment.
_SEGMENT = r"[^/?#&\s\"']+"
#: The token routes' patterns (what comes before the token, then the token), by their text: learnt, never listed.
_ROUTES: dict[str, re.Pattern[str]] = {}
MARK = "[redacted]"
#: How many layers of percent-encoding are taken off before looking again (``%2570`` is ``%70`` is ``p``).
_LAYERS = 3


def redact(text: str) -> str:
    """``text`` with every token replaced by ``[redacted]``, also one written percent-encoded.

    A server decodes ``/e/%70OdP…``, ``?%76iew=…`` and ``next=%2Fe%2F…`` into
    working links, so the text is looked at again once decoded; when decoding
    uncovers a token, the line is logged decoded, with the token redacted.
    """
    clean = _redact_plain(text)
    decoded = clean
    for _layer in range(_LAYERS):
        if "%" not in decoded and "+" not in decoded:
            break
        decoded = unquote_plus(decoded)
    uncovered = _redact_plain(decoded)
    return uncovered if uncovered != decoded else clean


def _redact_plain(text: str) -> str:
    for pattern, repl in _FIXED:
        text = pattern.sub(repl, text)
    for route in list(_ROUTES.values()):
        text = route.sub(r"\1[redacted]", text)
    return text


def token_rules(url_map: Map) -> list[str]:
    """The rules of ``url_map`` that take a token (``/e/<token>``, ``/groups/<group_token>/season.pdf``...)."""
    return sorted({rule.rule for rule in url_map.iter_rules()
                   if any(TOKEN_ARGUMENT.fullmatch(name) for name in rule.arguments)})


def _route_pattern(rule: str) -> re.Pattern[str]:
    """``rule``'s text up to its first token argument (other arguments: any segment), then the token."""
    pattern, at = "", 0
    for arg in _ARGUMENT.finditer(rule):
        pattern += re.escape(rule[at:arg.start()])
        at = arg.end()
        if TOKEN_ARGUMENT.fullmatch(arg.group(1)):
            return re.compile(f"({pattern}){_SEGMENT}")
        pattern += _SEGMENT
    raise ValueError(f"{rule} takes no token")


def learn_routes(url_map: Map) -> None:
    """Redact, from now on in this process, the token of every route of ``url_map`` that takes one."""
    for rule in token_rules(url_map):
        pattern = _route_pattern(rule)
        _ROUTES.setdefault(pattern.pattern, pattern)  # ``/groups/<group_token>`` and its ``/season.pdf``: one


class RedactingFilter(logging.Filter):
    """Redacts a record's message (arguments filled in) before any handler writes it."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True


def install(logger: logging.Logger) -> None:
    """Put the filter on ``logger`` and its handlers (handler filters also see propagated records)."""
    if not any(isinstance(f, RedactingFilter) for f in logger.filters):
        logger.addFilter(RedactingFilter())
    for handler in logger.handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())


def guard(log: Logger) -> None:
    """Redact gunicorn's access and error logs: the filter on both, and the access log's request line, path,
    query and referer atoms.

    Called by ``gunicorn.conf.py`` in each worker once it has loaded the app
    (``post_worker_init``: the app's routes are learnt by then, and gunicorn's
    master never imports the app), and by :class:`GunicornLogger`. Once per log.
    """
    if getattr(log, "_referee_redacts", False):
        return
    log._referee_redacts = True
    install(log.error_log)
    install(log.access_log)
    plain = log.atoms

    def atoms(resp: Any, req: Any, environ: Any, request_time: Any) -> dict[str, Any]:
        found: dict[str, Any] = plain(resp, req, environ, request_time)
        for key in ("r", "U", "q", "f"):
            if isinstance(found.get(key), str):
                found[key] = redact(found[key])
        return found

    log.atoms = atoms


class GunicornLogger(Logger):  # type: ignore[misc]
    """gunicorn's logger with tokens redacted (``--logger-class``; ``gunicorn.conf.py`` does it without)."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        guard(self)
