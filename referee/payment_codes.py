"""Payment details and the QR codes that let a loser pay with one scan.

At the end of the night the settlement says who pays whom; this module turns
a winner's payment details into something the payer's phone understands:

* a Swish "C" string (Sweden: the Swish app's prefilled-payment QR code), and
* an EPC069-12 "GiroCode" (SEPA credit transfer QR code, read by most
  European banking apps).

Pure like the engine: no Flask, no database, no files of its own (segno only
builds the QR matrix; :func:`qr_png` writes where its caller says). Amounts
are ``int`` minor units (öre, cent) and are written out digit by digit, never
through a float, so "12,50" is always exactly 1250 öre.

Validation raises ``ValueError`` with one sentence a leader can act on (they
type the numbers on a phone at the table); a wrong *type* (a float amount, a
``None`` number) is a programming error and raises ``TypeError``.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import PurePath
from typing import BinaryIO
from urllib.parse import quote

import segno

# ---------------------------------------------------------------- Swish numbers

SWISH_NUMBER_HELP = (
    "A Swish number is a Swedish mobile number (07x xxx xx xx), a Swish business number "
    "(123 xxx xx xx) or a Swish charity number (90x xx xx)."
)

#: Canonical forms: what the Swish app accepts in the payee field.
_PRIVATE = re.compile(r"07\d{8}")
_BUSINESS = re.compile(r"123\d{7}")
_CHARITY = re.compile(r"90\d{5}")
#: Characters people use when writing a phone number down.
_PHONE_CHARS = re.compile(r"\+?[\d\s\-./()]+")


def normalize_swish(text: str) -> str:
    """The canonical Swish number for the payee field of a Swish QR code.

    Accepts the spellings people actually type: ``"070-123 45 67"``,
    ``"+46 70 123 45 67"``, ``"+46 (0)70 123 45 67"``, ``"0046701234567"``,
    ``"46701234567"``, ``"123 456 78 90"``, ``"900 80 04"``.

    Canonical form: private numbers as the 10-digit national number
    ``"0701234567"`` (the Swish app accepts both that and ``46701234567``;
    the national form is what the payee recognises on screen), business
    numbers as 10 digits starting ``123``, charity numbers as 7 digits
    starting ``90``. Only these can receive a Swish payment, so anything else
    (landlines, foreign mobiles) is rejected here rather than in the payer's
    app.
    """
    if not isinstance(text, str):
        raise TypeError("a Swish number must be given as text")
    raw = text.strip().replace("(0)", "")
    if not raw or _PHONE_CHARS.fullmatch(raw) is None:
        raise ValueError(SWISH_NUMBER_HELP)
    digits = re.sub(r"\D", "", raw)
    national: str | None = None
    if raw.startswith("+"):
        national = digits[2:] if digits.startswith("46") else None
    elif digits.startswith("0046"):
        national = digits[4:]
    elif digits.startswith("46") and len(digits) in (11, 12):
        national = digits[2:]
    if national is not None:
        # "+46 070 ..." keeps the trunk zero by mistake; drop it once.
        digits = "0" + (national[1:] if national.startswith("0") else national)
    if _PRIVATE.fullmatch(digits) or _BUSINESS.fullmatch(digits) or _CHARITY.fullmatch(digits):
        return digits
    raise ValueError(SWISH_NUMBER_HELP)


def format_swish(number: str) -> str:
    """A Swish number the way Swedes write it: ``"070-123 45 67"``.

    Business numbers as ``"123 456 78 90"`` and charity numbers as
    ``"900 80 04"``, the groupings printed on Swish's own signs. Any spelling
    :func:`normalize_swish` accepts is accepted here too.
    """
    n = normalize_swish(number)
    if _PRIVATE.fullmatch(n):
        return f"{n[:3]}-{n[3:6]} {n[6:8]} {n[8:]}"
    if _BUSINESS.fullmatch(n):
        return f"{n[:3]} {n[3:6]} {n[6:8]} {n[8:]}"
    return f"{n[:3]} {n[3:5]} {n[5:]}"


# ------------------------------------------------------------------------ IBAN

#: Length of a whole IBAN per country (SWIFT IBAN Registry), covering every
#: SEPA country and the other registered ones. A country missing here fails
#: validation with "not a country that uses IBANs", which is what a payer's
#: bank would say too.
IBAN_LENGTHS: dict[str, int] = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22,
    "BH": 22, "BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24,
    "DE": 22, "DJ": 27, "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18,
    "FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27,
    "GT": 28, "HN": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
    "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20,
    "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20,
    "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24,
    "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24,
    "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25,
    "SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
    "YE": 30,
}  # fmt: skip

_ALNUM = re.compile(r"[A-Z0-9]+")


def _mod97(text: str) -> int:
    """ISO 7064 MOD 97-10 remainder of an alphanumeric string (A=10 ... Z=35)."""
    return int("".join(str(int(ch, 36)) for ch in text)) % 97


def normalize_iban(text: str) -> str:
    """The IBAN in its electronic form: no spaces, upper case, validated.

    Checks, in the order a person would want to hear about them: only letters
    and digits; a two-letter country code that uses IBANs; the length that
    country's IBANs have; two check digits; and the ISO 7064 MOD 97-10
    checksum (which catches every single mistyped character and almost every
    swap of two neighbours). Check digits 00, 01 and 99 never occur in a real
    IBAN (ISO 13616 uses 02..98), so they fail as a checksum error even though
    00/01/99 can make the remainder come out as 1.
    """
    if not isinstance(text, str):
        raise TypeError("an IBAN must be given as text")
    iban = "".join(text.split()).upper()
    if iban.startswith("IBAN"):
        iban = iban[4:]  # copied from a statement that prints "IBAN SE45 ..."
    if not iban:
        raise ValueError("The IBAN is empty.")
    if _ALNUM.fullmatch(iban) is None:
        bad = next(ch for ch in iban if not ("A" <= ch <= "Z" or "0" <= ch <= "9"))
        raise ValueError(f"An IBAN has only letters and digits, not {bad!r}.")
    country = iban[:2]
    if not (len(country) == 2 and country.isalpha()):
        raise ValueError("An IBAN starts with a two-letter country code, like SE or DE.")
    expected = IBAN_LENGTHS.get(country)
    if expected is None:
        raise ValueError(f"{country} is not a country code that uses IBANs.")
    if len(iban) != expected:
        raise ValueError(f"An IBAN from {country} has {expected} characters, this one has {len(iban)}.")
    if not iban[2:4].isdigit():
        raise ValueError("The third and fourth characters of an IBAN are check digits.")
    if not 2 <= int(iban[2:4]) <= 98 or _mod97(iban[4:] + iban[:4]) != 1:
        raise ValueError("The IBAN checksum does not match: a character is probably mistyped.")
    return iban


def format_iban(iban: str) -> str:
    """The IBAN in its paper form, groups of four: ``"SE45 5000 0000 ..."``.

    Validates first, so a display never shows an IBAN nobody can pay to.
    """
    n = normalize_iban(iban)
    return " ".join(n[i : i + 4] for i in range(0, len(n), 4))


HOLDER_MAX = 70


def _has_control(text: str) -> bool:
    """True if ``text`` holds control, format or line/paragraph-separator characters."""
    return any(unicodedata.category(ch)[0] == "C" or unicodedata.category(ch) in ("Zl", "Zp") for ch in text)


def clean_holder(text: str) -> str:
    """The account holder's name as banks want it: 1..70 characters, one line.

    NFC-normalised (a decomposed "Å" from some keyboards becomes one
    character, so the 70-character limit and the QR byte count mean what they
    say), trimmed, inner runs of spaces collapsed. Control characters are
    rejected rather than dropped: a newline would split a GiroCode line and
    the holder should see that their input was odd. 70 is the EPC limit for
    the beneficiary name and also what SEPA transfers carry.
    """
    if not isinstance(text, str):
        raise TypeError("an account holder name must be given as text")
    name = unicodedata.normalize("NFC", text).strip()
    if _has_control(name):
        raise ValueError("The account holder name must not contain line breaks or control characters.")
    name = re.sub(r"\s+", " ", name)
    if not name:
        raise ValueError("The account holder name is empty.")
    if len(name) > HOLDER_MAX:
        raise ValueError(f"The account holder name is longer than {HOLDER_MAX} characters.")
    return name


def _one_line(text: str) -> str:
    """``text`` NFC-normalised on one line: whitespace and control runs become one space.

    Used for texts the app composes itself (Swish message, remittance), where
    a stray newline should be smoothed over rather than refused.
    """
    if not isinstance(text, str):
        raise TypeError("a payment message must be given as text")
    nfc = unicodedata.normalize("NFC", text)
    spaced = "".join(" " if ch.isspace() or _has_control(ch) else ch for ch in nfc)
    return re.sub(r" +", " ", spaced).strip()


def _check_amount(amount_minor: int, low: int, high: int, what: str) -> None:
    if isinstance(amount_minor, bool) or not isinstance(amount_minor, int):
        raise TypeError("amounts are int minor units (öre, cent), never floats")
    if not low <= amount_minor <= high:
        raise ValueError(f"A {what} amount must be between {_plain(low, '.')} and {_plain(high, '.')}.")


def _plain(amount_minor: int, separator: str) -> str:
    """Minor units as ``"12<sep>50"``: always two decimals, no grouping."""
    whole, frac = divmod(amount_minor, 100)
    return f"{whole}{separator}{frac:02d}"


# ----------------------------------------------------------------------- Swish

SWISH_MESSAGE_MAX = 50
#: Largest Swish amount (999 999 999 999,99 kr, the Swish API limit), in öre.
SWISH_AMOUNT_MAX = 99_999_999_999_999
#: Lock mask: bit 0 payee, bit 1 amount, bit 2 message; a set bit = editable.
SWISH_EDITABLE_MESSAGE = 0b100


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
    return f"C{number};{_plain(amount_minor, ',')};{encoded};{SWISH_EDITABLE_MESSAGE}"


# ------------------------------------------------------------------- GiroCode

EPC_REMITTANCE_MAX = 140
EPC_MAX_BYTES = 331
#: 999 999 999,99 EUR, the EPC069-12 maximum, in cents.
EPC_AMOUNT_MAX = 99_999_999_999
_BIC = re.compile(r"[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}(?:[A-Z0-9]{3})?")


def normalize_bic(text: str) -> str:
    """A BIC (SWIFT code) without spaces, upper case: 8 or 11 characters.

    Bank code (4 letters), country (2 letters), location (2 letters or
    digits), optional branch (3 letters or digits).
    """
    if not isinstance(text, str):
        raise TypeError("a BIC must be given as text")
    bic = "".join(text.split()).upper()
    if _BIC.fullmatch(bic) is None:
        raise ValueError("A BIC has 8 or 11 letters and digits, like COBADEFFXXX.")
    return bic


def epc_payload(name: str, iban: str, amount_minor: int, remittance: str, bic: str = "") -> str:
    """The EPC069-12 "GiroCode" (SEPA Credit Transfer QR code) payload.

    Lines, separated by ``"\\n"``:

    1. ``BCD`` - service tag;
    2. ``002`` - version; 002 makes the BIC optional inside the EEA;
    3. ``1`` - character set UTF-8 (names like "Åsa Öberg" stay intact);
    4. ``SCT`` - identification: SEPA Credit Transfer;
    5. BIC of the beneficiary's bank - empty unless given (validated, 8/11 chars);
    6. beneficiary name - :func:`clean_holder`, at most 70 characters;
    7. beneficiary IBAN - :func:`normalize_iban`, electronic form;
    8. amount - ``EUR`` + euros with a dot and two decimals, ``EUR12.50``;
       0.01 to 999999999.99;
    9. purpose code - empty;
    10. structured creditor reference (RF) - empty, as line 11 is used;
    11. unstructured remittance - one line, at most 140 characters;
    12. beneficiary-to-originator information - omitted.

    The standard forbids separators after the last populated element, so
    trailing empty lines are dropped (with no remittance the payload ends
    at the amount). The whole payload must fit in 331 bytes of UTF-8.

    Only EUR is possible in a GiroCode; the IBAN's country is not restricted
    to SEPA here because the payer's bank knows the reach list better than a
    table frozen in this module.
    """
    holder = clean_holder(name)
    account = normalize_iban(iban)
    _check_amount(amount_minor, 1, EPC_AMOUNT_MAX, "GiroCode (EUR)")
    text = _one_line(remittance)
    if len(text) > EPC_REMITTANCE_MAX:
        raise ValueError(f"The payment reference is longer than {EPC_REMITTANCE_MAX} characters.")
    lines = ["BCD", "002", "1", "SCT", normalize_bic(bic) if bic.strip() else "", holder, account,
             "EUR" + _plain(amount_minor, "."), "", "", text]
    while lines[-1] == "":
        lines.pop()
    payload = "\n".join(lines)
    if len(payload.encode("utf-8")) > EPC_MAX_BYTES:
        raise ValueError(f"The GiroCode is longer than {EPC_MAX_BYTES} bytes: shorten the name or the reference.")
    return payload


# ------------------------------------------------------------------- QR codes

_LEVELS = ("L", "M", "Q", "H")


def qr_code(payload: str, *, error: str = "M") -> segno.QRCode:
    """The QR code for ``payload`` with exactly the error correction asked for.

    EPC069-12 prescribes level M; segno would otherwise "boost" the level when
    it fits in the same version, so boosting is off. Text is always encoded as
    UTF-8 bytes (without an ECI header, which several banking apps mishandle):
    segno's default would pick ISO 8859-1 for "Åsa Öberg", contradicting the
    GiroCode's declared character set 1.
    """
    level = error.upper()
    if level not in _LEVELS:
        raise ValueError("The QR error correction level is one of L, M, Q or H.")
    return segno.make_qr(payload, error=level, encoding="utf-8", boost_error=False)


def qr_svg(payload: str, *, error: str = "M", scale: int = 4, border: int = 4) -> str:
    """Inline SVG (no XML declaration) to put straight into HTML or a PDF template.

    The default border is the four-module quiet zone the QR standard asks
    for; scanners on phones struggle without it when the code sits on a
    busy page.
    """
    return qr_code(payload, error=error).svg_inline(scale=scale, border=border)


def qr_png(payload: str, out: str | PurePath | BinaryIO, *, error: str = "M", scale: int = 8,
           border: int = 4) -> None:
    """Write the QR code as PNG to a path or a binary buffer (tests, downloads)."""
    target: str | BinaryIO = str(out) if isinstance(out, PurePath) else out
    qr_code(payload, error=error).save(target, kind="png", scale=scale, border=border)
