"""The pictures and buttons of one transfer: the payment QR code and the Pay (or copy) button.

Why in the web layer: they are what a page shows and a sheet prints (a
segno QR code, a Swish link, an IBAN in groups of four), made of the
ledger's plain values (the payee's details and the payment's message,
:mod:`referee.ledger.paying`); the ledger writes and keeps those and draws
nothing (issue 48.1). Pages and sheets both import this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import segno

from referee import payment_codes
from referee.ledger.paying import payment_message
from referee.models import Night, Player
from referee.payment_qr import epc_qr, qr_code


def payment_qr(night: Night, payee: Player | None, amount: int) -> tuple[str, segno.QRCode] | None:
    """The payment QR code of one transfer: ``(kind, code)`` or None.

    SEK to a payee with a Swish number: Swish's prefilled "C" string; EUR to
    a payee with an IBAN in the SEPA scheme: the EPC "GiroCode" (with the
    BIC outside the EEA, :func:`payment_codes.girocode_bic`). Other
    currencies and other IBANs have no payment QR (:func:`pay_action` says why).
    """
    if payee is None or amount <= 0:
        return None
    return _payment_code(night.currency, payee.swish or "", payee.iban or "", payee.account_holder or payee.name,
                         amount, payment_message(night))


@lru_cache(maxsize=512)
def _payment_code(currency: str, swish: str, iban: str, holder: str, amount: int,
                  message: str) -> tuple[str, segno.QRCode] | None:
    """:func:`payment_qr` by value, kept: building a code scores all eight masks (about 0.8 ms with
    :mod:`referee.qr_mask`; a GiroCode, masked by segno, about 3 ms), and a night prints and shows the same
    transfers again and again. The codes are never changed."""
    try:
        if currency == "SEK" and swish:
            return "swish", qr_code(payment_codes.swish_payload(swish, amount, message))
        if currency == "EUR" and iban:
            return "epc", epc_qr(holder, iban, amount, message[:payment_codes.EPC_REMITTANCE_MAX],
                                               bic=payment_codes.girocode_bic(iban))
    except ValueError:
        return None  # details that no longer pass (or a GiroCode over 331 bytes): no code, never a 500
    return None


@dataclass(frozen=True)
class PayAction:
    """How a payer pays one transfer from their own phone (they cannot scan their own screen).

    ``kind`` "swish": ``link`` opens the Swish app with the transfer filled
    in. ``kind`` "bank": no scheme opens an arbitrary banking app with a
    transfer, so the page offers the IBAN, holder, bank and amount to copy.
    """

    kind: str
    link: str = ""
    number: str = ""          # Swish number as written ("070-123 45 67")
    iban: str = ""            # paper form, groups of four
    iban_compact: str = ""    # what is copied: what banking apps' IBAN fields take
    bic: str = ""             # the BIC the GiroCode carries (outside the EEA), printed beside it
    holder: str = ""
    bank: str = ""
    message: str = ""
    no_code: str = ""         # why there is no GiroCode (a message template, translated by the page) ...
    no_code_params: tuple[tuple[str, object], ...] = ()  # ... and its parameters


def pay_action(night: Night, payee: Player | None, amount: int) -> PayAction | None:
    """The Pay button (Swish, SEK) or the copy buttons (IBAN) of one transfer, or None.

    A Swish link for SEK to a payee with a Swish number; otherwise, for a
    payee with an IBAN, the IBAN to copy (EUR as the GiroCode; in SEK for a
    Swedish bank transfer, where Swish is not set).
    """
    if payee is None or amount <= 0:
        return None
    message = payment_message(night)
    if night.currency == "SEK" and payee.swish:
        return PayAction("swish", link=payment_codes.swish_link(payee.swish, amount, message),
                         number=payment_codes.format_swish(payee.swish),
                         message=payment_codes.swish_message(message))
    if payee.iban:
        why = payment_codes.girocode_refusal(night.currency, payee.iban)
        return PayAction("bank", iban=payment_codes.format_iban(payee.iban),
                         iban_compact=payment_codes.normalize_iban(payee.iban),
                         bic=payment_codes.girocode_bic(payee.iban) if why is None else "",
                         holder=payee.account_holder or payee.name, bank=payment_codes.bank_name(payee.iban) or "",
                         message=message, no_code=why.template if why else "",
                         no_code_params=tuple(why.params.items()) if why else ())
    return None
