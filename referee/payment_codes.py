"""Payment details and the QR codes and links that let a loser pay with one tap.

At the end of the night the settlement says who pays whom; this module turns
a winner's payment details into something the payer's phone understands:

* a Swish "C" string (Sweden: the Swish app's prefilled-payment QR code) and
  the Swish payment link that opens the app on the payer's own phone, and
* an EPC069-12 "GiroCode" (SEPA credit transfer QR code, read by most
  European banking apps).

The details themselves (Swish numbers, IBANs, BICs, the account holder) are
checked and written out by :mod:`referee.payment_details` (re-exported here,
so ``payment_codes`` stays the one door for its callers); this module makes
the codes' payloads from them, and :mod:`referee.payment_qr` draws them (segno),
so that the ledger, which checks and keeps a payee's details through this
module, imports no drawing (issue 48.1). What is kept up to date elsewhere is
taken from libraries: ``segno.helpers.make_epc_qr`` writes the GiroCode,
``schwifty`` says which IBANs are in SEPA and which BIC a bank has. This module only says
what is ours: which fields, which messages the leader reads, which limits
apply.

Pure like the engine: no Flask, no database, no files of its own. Amounts are
``int`` minor units (öre, cent) and are written out digit by digit (or as an
exact ``Decimal``), never through a float, so "12,50" is always exactly 1250
öre.

Validation raises :class:`DetailError` (a ``ValueError``) with one sentence a
leader can act on (they type the numbers on a phone at the table), kept as a
template with parameters so the web layer shows it in the leader's language;
a wrong *type* (a float amount, a ``None`` number) is a programming error and
raises ``TypeError``.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import quote, urlencode

from schwifty import exceptions

from referee.payment_details import (
    HOLDER_MAX,
    N_,
    SWISH_NUMBER_HELP,
    DetailError,
    bank_name,
    clean_holder,
    format_iban,
    format_swish,
    has_control,
    iban_length,
    iban_of,
    normalize_bic,
    normalize_iban,
    normalize_swish,
)


def _one_line(text: str) -> str:
    """``text`` NFC-normalised on one line: whitespace and control runs become one space.

    Used for texts the app composes itself (Swish message, remittance), where
    a stray newline should be smoothed over rather than refused.
    """
    if not isinstance(text, str):
        raise TypeError("a payment message must be given as text")
    nfc = unicodedata.normalize("NFC", text)
    spaced = "".join(" " if ch.isspace() or has_control(ch) else ch for ch in nfc)
    return re.sub(r" +", " ", spaced).strip()


def _check_amount(amount_minor: int, low: int, high: int, what: str) -> None:
    if isinstance(amount_minor, bool) or not isinstance(amount_minor, int):
        raise TypeError("amounts are int minor units (öre, cent), never floats")
    if not low <= amount_minor <= high:
        raise ValueError(f"A {what} amount must be between {plain_amount(low)} and {plain_amount(high)}.")


def plain_amount(amount_minor: int, separator: str = ".") -> str:
    """Minor units as ``"12<sep>50"``: always two decimals, no grouping, no float."""
    whole, frac = divmod(amount_minor, 100)
    return f"{whole}{separator}{frac:02d}"


# ----------------------------------------------------------------------- Swish

SWISH_MESSAGE_MAX = 50
#: Largest Swish amount (999 999 999 999,99 kr, the Swish API limit), in öre.
SWISH_AMOUNT_MAX = 99_999_999_999_999
#: Lock mask: bit 0 payee, bit 1 amount, bit 2 message; a set bit = editable.
SWISH_EDITABLE_MESSAGE = 0b100
#: The Swish payment link; on a phone with Swish it opens the app with the payment filled in.
SWISH_LINK = "https://app.swish.nu/1/p/sw/"


def swish_message(text: str) -> str:
    """The message as it will appear in the Swish app: one line, at most 50 characters.

    Longer texts are cut at the last space in the final half of the limit so
    no word is chopped (a single long word is cut hard). The message is
    editable by the payer, so a cut is never a dead end.
    """
    msg = _one_line(text)
    if len(msg) <= SWISH_MESSAGE_MAX:
        return msg
    cut = msg[: SWISH_MESSAGE_MAX + 1]
    space = cut.rfind(" ")
    if space >= SWISH_MESSAGE_MAX // 2:
        return cut[:space].rstrip()
    return msg[:SWISH_MESSAGE_MAX].rstrip()


def swish_payload(payee: str, amount_minor: int, message: str) -> str:
    """The Swish prefilled-payment QR string ``C<payee>;<amount>;<message>;<lock mask>``.

    Per Swish's "QR code encoding specification" (QR-code API manual, 6.1):

    * ``C`` - required prefix (capital letter);
    * payee - the Swish number, canonical per :func:`normalize_swish`;
    * amount - SEK with two decimals and a decimal comma: 1250 öre -> ``12,50``;
    * message - URL-encoded (UTF-8 percent-encoding, space as ``%20``), so a
      ``;`` in the text can never be read as a field separator; at most 50
      characters before encoding (see :func:`swish_message`);
    * lock mask - decimal value of a bitmask, payee bit 0, amount bit 1,
      message bit 2, set = editable. The settlement fixes who is paid and how
      much, so only the message stays editable: ``4``.

    Example from the specification (everything locked, mask 0):
    ``C1237856901;100,00;12229445;0``.
    """
    number = normalize_swish(payee)
    _check_amount(amount_minor, 1, SWISH_AMOUNT_MAX, "Swish")
    encoded = quote(swish_message(message), safe="")
    return f"C{number};{plain_amount(amount_minor, ',')};{encoded};{SWISH_EDITABLE_MESSAGE}"


def swish_link(payee: str, amount_minor: int, message: str) -> str:
    """The Swish payment link for a payer on their own phone (they cannot scan their own screen).

    ``https://app.swish.nu/1/p/sw/?sw=<payee>&amt=<12.50>&cur=SEK&msg=<message>&edit=msg``:
    the link Swish's own QR generator encodes. On a phone with Swish it opens
    the app with payee, amount and message filled in (an app link of
    ``app.swish.nu``); without it, Swish's web page. The fields mean what
    they mean in :func:`swish_payload`: same payee, same amount (with a
    decimal point here, as in a URL), same message; ``edit=msg`` leaves only
    the message editable, like lock mask 4. Swish's generator adds
    ``src=qr`` for a printed code; a tapped link has no such source, so it
    is left out. docs/using.md says what Swish documents and what it does not.
    """
    number = normalize_swish(payee)
    _check_amount(amount_minor, 1, SWISH_AMOUNT_MAX, "Swish")
    query = {"sw": number, "amt": plain_amount(amount_minor), "cur": "SEK", "msg": swish_message(message),
             "edit": "msg"}
    return SWISH_LINK + "?" + urlencode(query, quote_via=quote, safe="")


# ------------------------------------------------------------------- GiroCode

EPC_REMITTANCE_MAX = 140
EPC_MAX_BYTES = 331
#: 999 999 999,99 EUR, the EPC069-12 maximum, in cents.
EPC_AMOUNT_MAX = 99_999_999_999


#: The European Economic Area: the EU's 27 members, Iceland, Liechtenstein and Norway. EPC069-12
#: (version 002) lets a GiroCode leave out the BIC only when the beneficiary's bank is in the EEA.
EEA = frozenset({"AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU", "IE",
                 "IT", "LT", "LU", "LV", "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK", "IS", "LI", "NO"})


def girocode_bic(iban: str) -> str:
    """The BIC a GiroCode to ``iban`` carries ("" inside the EEA); :class:`DetailError` when there can be none.

    A GiroCode is a SEPA credit transfer, so the IBAN's country must be in
    the SEPA scheme (schwifty's registry knows which: not Brazil, Turkey,
    Saudi Arabia, the Emirates or Kazakhstan, whose IBANs are valid all the
    same). Outside the EEA (Switzerland, the United Kingdom, Monaco, ...)
    EPC069-12 asks for the BIC: the one schwifty's bank registry gives for the
    IBAN's bank code; a bank it does not list gets no code. The message says
    why, for the page to show next to the IBAN to copy.
    """
    account = iban_of(iban)
    country = str(account.country_code)
    if not account.in_sepa_zone:
        raise DetailError(N_("No GiroCode: %(country)s is not in the SEPA scheme, and a GiroCode is a SEPA "
                             "transfer. Pay to the IBAN from your bank."), country=country)
    if country in EEA:
        return ""
    try:
        bic = account.bic
    except exceptions.SchwiftyException:
        bic = None
    if bic is None:
        raise DetailError(N_("No GiroCode: outside the EEA (here %(country)s) a GiroCode needs the bank's BIC, "
                             "and this IBAN's bank is not in the bank registry. Pay to the IBAN from your bank."),
                          country=country)
    return str(bic.compact)


def girocode_refusal(currency: str, iban: str) -> DetailError | None:
    """Why a transfer in ``currency`` to ``iban`` has no GiroCode, or None when it has one."""
    if currency != "EUR":
        return DetailError(N_("No GiroCode: a GiroCode pays euros only, and this night is in %(currency)s."),
                           currency=currency)
    try:
        girocode_bic(iban)
    except DetailError as exc:
        return exc
    return None


__all__ = [
    "EEA", "EPC_AMOUNT_MAX", "EPC_MAX_BYTES", "EPC_REMITTANCE_MAX", "HOLDER_MAX", "SWISH_AMOUNT_MAX",
    "SWISH_EDITABLE_MESSAGE", "SWISH_LINK", "SWISH_MESSAGE_MAX", "SWISH_NUMBER_HELP", "DetailError", "bank_name",
    "clean_holder", "format_iban", "format_swish", "girocode_bic", "girocode_refusal", "iban_length",
    "normalize_bic", "normalize_iban", "normalize_swish", "plain_amount", "swish_link", "swish_message",
    "swish_payload",
]
