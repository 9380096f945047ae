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
from referee.pages import bp


@bp.app_template_filter("money")
def money_filter(minor: int, currency: str) -> str:
    from flask_babel import format_currency

    digits = ledger.currency_money(currency).digits
    text = str(format_currency(Decimal(minor).scaleb(-digits), currency))
    return _spaced_code(text)


def _spaced_code(text: str) -> str:
    """"SEK12.00" (a code glued to the digits) reads badly on a phone: "SEK 12.00"."""
    return re.sub(r"^(-?)([A-Z]{3})(?=[\d-])", "\\1\\2\u00a0", text)


@bp.app_template_filter("spoken_money")
def spoken_money_filter(minor: int, currency: str) -> str:
    """An amount as a sentence says it: "12 kr", not "12,00 kr", when it is whole (the live page's announcement,
    issue 50.2: a screen reader reads "12 comma 00"); an amount with a fraction as :func:`money_filter`."""
    from babel import Locale
    from flask_babel import format_currency, get_locale

    unit = 10 ** ledger.currency_money(currency).digits
    if minor % unit:
        return money_filter(minor, currency)
    locale = get_locale() or Locale.parse("en")
    pattern = re.sub(r"\.0+", "", locale.currency_formats["standard"].pattern)
    return _spaced_code(str(format_currency(Decimal(minor // unit), currency, format=pattern,
                                            currency_digits=False)))


@bp.app_template_filter("plain_money")
def plain_money_filter(minor: int, currency: str) -> str:
    """An amount as a banking app's amount field takes it: "12,50" (sv, de) or "12.50" (en), no symbol."""
    from flask_babel import format_decimal

    digits = ledger.currency_money(currency).digits
    pattern = "0." + "0" * digits if digits else "0"
    return str(format_decimal(Decimal(minor).scaleb(-digits), format=pattern))


def qr_svg(data: str | segno.QRCode, scale: int = 4) -> Markup:
    """An inline SVG QR code of a link or a made payment code (no external image, CSP-friendly)."""
    if isinstance(data, segno.QRCode):
        return Markup(payment_qr.qr_svg(data, scale=scale))
    return _link_svg(data, scale)


@functools.lru_cache(maxsize=256)
def _link_svg(link: str, scale: int) -> Markup:
    """A link's code, made once per process: the hall display shows the same link on every fetch (15 ms each)."""
    return Markup(segno.make(link, error="m").svg_inline(scale=scale, dark="#000", light="#fff", omitsize=True))
