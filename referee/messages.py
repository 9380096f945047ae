"""Engine messages in the user's language.

The engine raises :class:`~referee.engine.RuleViolation` and
:class:`~referee.engine.BadInput` with an English template and its
parameters; the template is the message ID of the catalogs in
``referee/translations`` (extracted with ``make messages``). Here, in the
web layer, it is translated for the request's language and filled in. A
template without a translation stays English, so nothing is ever lost.
"""

from __future__ import annotations

from flask import Flask, has_request_context
from flask_babel import gettext

from referee.engine import fill, with_rule


def explain(exc: BaseException) -> str:
    """The message of an engine exception in the user's language (English outside a request)."""
    template = getattr(exc, "template", None)
    if template is None:
        return str(getattr(exc, "message", exc))
    # A parameter can be another engine exception (a void refused because of a later round's rule).
    params = {k: explain(v) if isinstance(v, BaseException) else v
              for k, v in (getattr(exc, "params", {}) or {}).items()}
    text = gettext(template, **params) if has_request_context() else fill(template, params)
    rule = getattr(exc, "rule", None)
    return with_rule(text, rule) if rule else text


def register(app: Flask) -> None:
    """``{{ error|explain }}`` in templates."""
    app.add_template_filter(explain, "explain")
