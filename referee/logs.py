"""No token in any log line: edit and view tokens are credentials, logs are not.

A night's tokens travel in URLs (``/e/<edit token>``, ``/v/<view token>``,
``/groups/<group token>``, ``?view=<token>``) and headers (``Authorization: Bearer <token>``), and
gunicorn's access log, its error log and the app's own log would write them
out in clear. :func:`redact` replaces each with ``[redacted]``;
:class:`RedactingFilter` applies it to every record of the loggers it is put
on, and :class:`GunicornLogger` (``--logger-class referee.logs.GunicornLogger``,
as ``make run`` starts it) puts it on gunicorn's access and error logs and
redacts the access log's request line, path, query and referer.
"""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import unquote_plus

from gunicorn.glogging import Logger

#: Token-bearing pieces of text: the links, the query parameter, a bearer header.
_PATTERNS = (
    (re.compile(r"(/[ev]/)[A-Za-z0-9_\-]+"), r"\1[redacted]"),
    (re.compile(r"(/groups/)[A-Za-z0-9_\-]+"), r"\1[redacted]"),  # the group link (issue 14)
    (re.compile(r"([?&;]view=)[^&\s\"']+"), r"\1[redacted]"),
    (re.compile(r"(Bearer\s+)[A-Za-z0-9_\-.=~+/]+", re.IGNORECASE), r"\1[redacted]"),
)
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
    for pattern, repl in _PATTERNS:
        text = pattern.sub(repl, text)
    return text


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


class GunicornLogger(Logger):  # type: ignore[misc]
    """gunicorn's logger with tokens redacted from the access and the error log."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        install(self.error_log)
        install(self.access_log)

    def atoms(self, resp: Any, req: Any, environ: Any, request_time: Any) -> dict[str, Any]:
        atoms: dict[str, Any] = super().atoms(resp, req, environ, request_time)
        for key in ("r", "U", "q", "f"):
            if isinstance(atoms.get(key), str):
                atoms[key] = redact(atoms[key])
        return atoms
