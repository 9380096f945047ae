"""Engine messages in the user's language.

The engine raises :class:`~referee.engine.RuleViolation` and
:class:`~referee.engine.BadInput` with an English template and its
parameters; the template is the message ID of the catalogs in
``referee/translations`` (extracted with ``make messages``). Here, in the
web layer, it is translated for the request's language and filled in
(:func:`referee.engine.explain`, which the in-browser engine uses too). A
template without a translation stays English, so nothing is ever lost.
"""

from __future__ import annotations

from flask import Flask, has_request_context
from flask_babel import gettext

from referee import engine


def explain(exc: BaseException) -> str:
    """The message of an engine exception in the user's language (English outside a request)."""
    return engine.explain(exc, gettext if has_request_context() else str)


def register(app: Flask) -> None:
    """``{{ error|explain }}`` in templates."""
    app.add_template_filter(explain, "explain")
