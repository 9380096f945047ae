"""Money as a reader sees it: the one place an amount becomes text for a page, a form field or a sheet.

Why one module: the engine's amounts are ``int`` minor units and its JSON
states carry the API's decimal strings (``"12.50"``, :class:`referee.engine.
money.Money`); a page or sheet that printed either as it came showed "6.00"
on a Swedish page, where "6,00 kr" is right (issue 42.6). Every filter of
the pages and the sheets (``|money``, ``|plain_money``, ``|num``, ``|tick``)
calls these functions, in the request's locale (Flask-Babel), so no amount
reaches a reader in another language's form.

- :func:`money`: with the currency, "12,50 kr", "12,50 €", "SEK 12.50";
- :func:`plain`: as a form field takes it back and a banking app's amount
  field wants it: "12,50" (sv, de), "12.50" (en), no symbol, no grouping
  (the forms read a comma as the decimal mark, ``Money.parse``);
- :func:`num`: an API amount string of an engine state ("15.00", "-3.50")
  as :func:`plain` would write it; anything else (a name, "") unchanged;
- :func:`tick`: a short amount for a chart's axis (whole units bare);
- :func:`example`: a form field's example before a currency is chosen ("20,00").
"""

from __future__ import annotations

import re
from decimal import Decimal

from flask_babel import format_currency, format_decimal

from referee import ledger

_API_AMOUNT = re.compile(r"-?\d+(\.\d+)?")


def _decimal(minor: int, currency: str) -> tuple[Decimal, int]:
    digits = ledger.currency_money(currency).digits
    return Decimal(minor).scaleb(-digits), digits


def money(minor: int, currency: str) -> str:
    """An amount with its currency in the reader's locale."""
    amount, _digits = _decimal(minor, currency)
    return spaced_code(str(format_currency(amount, currency)))


def spaced_code(text: str) -> str:
    """"SEK12.00" (a code glued to the digits) reads badly on a phone: "SEK 12.00"."""
    return re.sub(r"^(-?)([A-Z]{3})(?=[\d-])", "\\1\\2\u00a0", text)


def _pattern(digits: int) -> str:
    return "0." + "0" * digits if digits else "0"


def plain(minor: int, currency: str) -> str:
    """An amount as a form field shows it and takes it back: "12,50" (sv, de) or "12.50" (en), no symbol."""
    amount, digits = _decimal(minor, currency)
    return str(format_decimal(amount, format=_pattern(digits)))


def num(value: object) -> str:
    """An amount of the engine's state ("15.00", "-3.50") as :func:`plain` writes it ("15,00" in Swedish);
    anything else (a name, an empty cell) as it is."""
    text = str(value)
    if not _API_AMOUNT.fullmatch(text):
        return text
    return str(format_decimal(Decimal(text), format=_pattern(len(text.partition(".")[2]))))


def tick(minor: int, currency: str) -> str:
    """A short amount for an axis: whole units without decimals, else the currency's digits."""
    amount, digits = _decimal(minor, currency)
    pattern = "#,##0" if amount == amount.to_integral_value() else "#,##0." + "0" * digits
    return str(format_decimal(amount, format=pattern))


def example(units: int) -> str:
    """An example amount of ``units`` whole units for a form field with no currency yet: "20,00" (sv, de)."""
    return str(format_decimal(Decimal(units), format=_pattern(2)))
