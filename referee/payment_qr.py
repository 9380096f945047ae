"""The payment QR codes: a Swish "C" string or an EPC069-12 "GiroCode" drawn as a QR code (segno).

Why a module of its own: :mod:`referee.payment_codes` checks a payee's
details and writes the payloads, and the ledger uses it to keep them; the
drawing (segno, with the mask chosen by :mod:`referee.qr_mask`) is for the
pages and sheets only (``referee/web/pay.py``, ``referee/reports/codes.py``,
``referee/lan.py``), so the ledger imports no segno (issue 48.1,
``tests/test_layers.py``). Pure like :mod:`referee.payment_codes`: no Flask,
no database.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import PurePath
from typing import BinaryIO

import segno
import segno.helpers

from referee import qr_mask
from referee.payment_codes import (
    EPC_AMOUNT_MAX,
    EPC_MAX_BYTES,
    EPC_REMITTANCE_MAX,
    _check_amount,
    _one_line,
    clean_holder,
    normalize_bic,
    normalize_iban,
)


def epc_qr(name: str, iban: str, amount_minor: int, remittance: str, bic: str = "") -> segno.QRCode:
    """The EPC069-12 "GiroCode" (SEPA Credit Transfer QR code), made by ``segno.helpers.make_epc_qr``.

    What is ours is what goes in and what the leader is told when it does
    not fit; segno writes the lines (BCD, version 002, character set, SCT,
    BIC, name, IBAN, EUR amount, purpose, reference, text), keeps to level M
    and to QR version 13. We ask for character set 1, UTF-8, so names like
    "Åsa Öberg" are read the same by every app (segno would otherwise pick
    ISO 8859-1 when it can). Checked here first, with messages a person can
    act on: the holder (:func:`clean_holder`, at most 70 characters), the
    IBAN (:func:`normalize_iban`), the BIC if given (:func:`normalize_bic`;
    optional inside the EEA with version 002), the amount (0.01 to
    999999999.99 EUR, from int cents, exact) and the remittance text (one
    line, 1 to 140 characters: the app always names the night). The whole
    payload must fit in 331 bytes.

    Only EUR is possible in a GiroCode. Which IBANs get one at all (SEPA
    only, with the BIC outside the EEA) is :func:`girocode_bic`'s to say.
    """
    holder = clean_holder(name)
    account = normalize_iban(iban)
    _check_amount(amount_minor, 1, EPC_AMOUNT_MAX, "GiroCode (EUR)")
    text = _one_line(remittance)
    if not text:
        raise ValueError("A GiroCode needs a payment reference.")
    if len(text) > EPC_REMITTANCE_MAX:
        raise ValueError(f"The payment reference is longer than {EPC_REMITTANCE_MAX} characters.")
    code = normalize_bic(bic) if bic.strip() else None
    try:
        return segno.helpers.make_epc_qr(holder, account, Decimal(amount_minor).scaleb(-2), text=text, bic=code,
                                         encoding="utf-8")
    except ValueError:
        # Everything else segno checks was checked above; what is left is the size.
        raise ValueError(f"The GiroCode is longer than {EPC_MAX_BYTES} bytes: "
                         "shorten the name or the reference.") from None


# ------------------------------------------------------------------- QR codes

_LEVELS = ("L", "M", "Q", "H")


def qr_code(payload: str, *, error: str = "M") -> segno.QRCode:
    """The QR code for ``payload`` with exactly the error correction asked for.

    segno would otherwise "boost" the level when it fits in the same version,
    so boosting is off. Text is always encoded as UTF-8 bytes (without an ECI
    header, which several apps mishandle).
    """
    level = error.upper()
    if level not in _LEVELS:
        raise ValueError("The QR error correction level is one of L, M, Q or H.")
    return qr_mask.make_qr(payload, level)  # segno's code, with its mask chosen in numpy (see the module)


def _as_code(code: str | segno.QRCode, error: str) -> segno.QRCode:
    return code if isinstance(code, segno.QRCode) else qr_code(code, error=error)


def qr_svg(code: str | segno.QRCode, *, error: str = "M", scale: int = 4, border: int = 4) -> str:
    """Inline SVG (no XML declaration) of a QR code or a payload, for HTML or a PDF template.

    The default border is the four-module quiet zone the QR standard asks
    for; scanners on phones struggle without it when the code sits on a
    busy page. No width and height but a ``viewBox``: CSS sizes the code and
    it scales whole, quiet zone included (with a fixed size and no viewBox,
    a code shrunk by CSS was cropped and did not scan; issue 26).
    """
    return str(_as_code(code, error).svg_inline(scale=scale, border=border, dark="#000", light="#fff",
                                                omitsize=True))


def qr_png(code: str | segno.QRCode, out: str | PurePath | BinaryIO, *, error: str = "M", scale: int = 8,
           border: int = 4) -> None:
    """Write a QR code (or a payload's) as PNG to a path or a binary buffer (tests, downloads)."""
    target: str | BinaryIO = str(out) if isinstance(out, PurePath) else out
    _as_code(code, error).save(target, kind="png", scale=scale, border=border)
