"""The page templates' money filters and the QR codes of links and payment codes.

Kept apart from the routes: every page, sheet and table display formats money and draws codes the same way.
"""

from __future__ import annotations

import functools
import re
from decimal import Decimal

import segno
from markupsafe import Markup

from referee import ledger, payment_qr
from referee.pages import bp, entry_words
from referee.web import amounts, titles

# An amount's text on every page (the one place is referee/web/amounts.py): with its currency, and as a form
# field shows it and takes it back ("12,50" in Swedish: the forms read a comma).
money_filter = amounts.money
bp.add_app_template_filter(amounts.money, "money")
bp.add_app_template_filter(amounts.plain, "plain_money")
bp.add_app_template_filter(amounts.example, "amount_example")
# A match as the table names it, "Kul 2", not by its id (referee/web/titles.py).
bp.add_app_template_global(titles.match_title, "match_title")
bp.add_app_template_global(titles.match_number, "match_no")
# An entry of a log as the table counts and names it: "3" (none for a close or a dot), "Void deal 3".
bp.add_app_template_global(titles.entry_number, "entry_no")
bp.add_app_template_global(entry_words.void_title, "void_title")
bp.add_app_template_global(entry_words.label, "entry_label")


@bp.app_template_filter("spoken_money")
def spoken_money_filter(minor: int, currency: str) -> str:
    """An amount as a sentence says it: "12 kr", not "12,00 kr", when it is whole (the live page's announcement,
    issue 50.2: a screen reader reads "12 comma 00"); an amount with a fraction as :func:`amounts.money`."""
    from babel import Locale
    from flask_babel import format_currency, get_locale

    unit = 10 ** ledger.currency_money(currency).digits
    if minor % unit:
        return amounts.money(minor, currency)
    locale = get_locale() or Locale.parse("en")
    pattern = re.sub(r"\.0+", "", locale.currency_formats["standard"].pattern)
    return amounts.spaced_code(str(format_currency(Decimal(minor // unit), currency, format=pattern,
                                                   currency_digits=False)))


def qr_svg(data: str | segno.QRCode, scale: int = 4) -> Markup:
    """An inline SVG QR code of a link or a made payment code (no external image, CSP-friendly)."""
    if isinstance(data, segno.QRCode):
        return Markup(payment_qr.qr_svg(data, scale=scale))
    return _link_svg(data, scale)


@functools.lru_cache(maxsize=256)
def _link_svg(link: str, scale: int) -> Markup:
    """A link's code, made once per process: the hall display shows the same link on every fetch (15 ms each)."""
    return Markup(segno.make(link, error="m").svg_inline(scale=scale, dark="#000", light="#fff", omitsize=True))
