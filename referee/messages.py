"""Engine messages in the user's language.

The engine raises :class:`~referee.engine.RuleViolation` and
:class:`~referee.engine.BadInput` with an English template and its
parameters; the template is the message ID of the catalogs in
``referee/translations`` (extracted with ``make messages``). Here, in the
web layer, it is translated for the request's language and filled in
(:func:`referee.engine.explain`, which the in-browser engine uses too). A
template without a translation stays English, so nothing is ever lost.

The templates' ``_()`` take the request's catalog from here too, looked up
once per request (:func:`_catalog`).
"""

from __future__ import annotations

from babel.support import NullTranslations
from flask import Flask, g, has_request_context
from flask_babel import get_translations, gettext, refresh

from referee import engine
from referee.engine import cards


def explain(exc: BaseException) -> str:
    """The message of an engine exception in the user's language (English outside a request)."""
    return engine.explain(exc, gettext if has_request_context() else str)


def card_name(code: object) -> str:
    """A card's code said in words in the request's language ("spader tio"); text that is no card as it is."""
    try:
        return cards.card_name(str(code), _catalog().ugettext)
    except engine.BadInput:
        return str(code)


def card_names() -> dict[str, str]:
    """Every card's code → its name in the request's language, for a page's script to name the cards it draws."""
    return {card.code: cards.card_name(card, _catalog().ugettext) for card in cards.full_deck(jokers=2)}


def _catalog() -> NullTranslations:
    """The request's catalog, kept in ``g`` for the rest of the request.

    Why: Flask-Babel finds the catalog anew at every ``_()`` of a template
    (three look-ups of its context and the locale); a match page says about
    fifty, and a guest's page render was about 6 % faster with the catalog
    kept. The locale changes within a request only through
    :func:`relocale` (a sheet in its night's language), which drops it too;
    the app calls neither ``flask_babel.refresh`` nor ``force_locale`` itself.
    """
    kept: NullTranslations | None = g.get("referee_catalog") if g else None  # no app context: none kept
    if kept is None:
        kept = get_translations()
        if g:
            g.referee_catalog = kept
    return kept


def relocale() -> None:
    """Work the request's language out again (a sheet learnt its night's): Flask-Babel's and the kept catalog."""
    refresh()
    g.pop("referee_catalog", None)


def register(app: Flask) -> None:
    """``{{ error|explain }}``, ``{{ code|card_name }}`` and ``{{ rank|rank_name }}`` in templates (a card said in
    words, for accessible names), and the templates' ``_()`` on the request's kept catalog."""
    app.add_template_filter(explain, "explain")
    app.add_template_filter(card_name, "card_name")
    app.add_template_global(card_names, "card_names")
    app.add_template_filter(lambda rank: cards.rank_name(rank, _catalog().ugettext), "rank_name")
    app.jinja_env.install_gettext_callables(  # type: ignore[attr-defined]  # added by the i18n extension
        gettext=lambda s: _catalog().ugettext(s),
        ngettext=lambda s, p, n: _catalog().ungettext(s, p, n),
        pgettext=lambda c, s: _catalog().upgettext(c, s),
        npgettext=lambda c, s, p, n: _catalog().unpgettext(c, s, p, n),
        newstyle=True)
