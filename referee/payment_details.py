"""Payment details as a leader types them: Swish numbers, IBANs, BICs and account holders, checked and written out.

A winner's details are checked when they are entered (the payment details
page, ``POST /api/nights/<id>/players/<name>/details``) and again when a
code is made from them (:mod:`referee.payment_codes`). What is kept up to
date elsewhere is taken from libraries that follow the registries:
``schwifty`` (SWIFT's IBAN registry: countries, lengths, BBAN structure, the
check digits; BICs; bank names) and ``phonenumbers`` (Google's
libphonenumber metadata: which Swedish numbers are mobile numbers, in every
written form). This module only says what is ours: which messages the
leader reads, which limits apply, which Swish numbers we take.

Validation raises :class:`DetailError` (a ``ValueError``) with one sentence a
leader can act on (they type the numbers on a phone at the table), kept as a
template with parameters so the web layer shows it in the leader's language;
a wrong *type* (a ``None`` number) is a programming error and raises
``TypeError``. Pure like the engine: no Flask, no database, no files.
"""

from __future__ import annotations

import re
import unicodedata

import phonenumbers
from schwifty import BIC, IBAN, exceptions, registry


def N_(template: str) -> str:
    """Marks a message template for ``make messages`` (this module cannot import the web layer)."""
    return template


class DetailError(ValueError):
    """A payment detail that cannot be used: the English sentence, and its template and parameters.

    ``template`` and ``params`` are what ``referee.engine.explain`` and
    ``BadInput`` translate, so the leader reads the sentence in sv, de or en.
    """

    def __init__(self, template: str, /, **params: object) -> None:
        self.template = template
        self.params = params
        super().__init__(template % params if params else template)


# ---------------------------------------------------------------- Swish numbers

SWISH_NUMBER_HELP = N_(
    "A Swish number is a Swedish mobile number (07x xxx xx xx), a Swish business number "
    "(123 xxx xx xx) or a Swish charity number (90x xx xx)."
)

#: Swish's own numbers, which are not telephone numbers (no phone library knows them):
#: businesses 123 + 7 digits, charities 90 + 5 digits (the numbers on Swish's signs).
_BUSINESS = re.compile(r"123\d{7}")
_CHARITY = re.compile(r"90\d{5}")
#: Characters people use when writing a phone number down; anything else (letters,
#: "#", "ext") is refused rather than read as a phone keypad would.
_PHONE_CHARS = re.compile(r"\+?[\d\s\-./()]+")


def normalize_swish(text: str) -> str:
    """The canonical Swish number for the payee field of a Swish QR code.

    Accepts the spellings people actually type: ``"070-123 45 67"``,
    ``"+46 70 123 45 67"``, ``"+46 (0)70 123 45 67"``, ``"0046701234567"``,
    ``"46701234567"``, ``"123 456 78 90"``, ``"900 80 04"``.

    Private numbers are whatever ``phonenumbers`` reads as a valid Swedish
    *mobile* number (its metadata knows which 07x series are mobile),
    stored as the 10-digit national number ``"0701234567"``: the Swish app
    accepts both that and ``46701234567``, and the national form is what the
    payee recognises on screen. Business numbers are stored as 10 digits
    starting ``123``, charity numbers as 7 digits starting ``90``. Only these
    can receive a Swish payment, so anything else (landlines, foreign
    mobiles, extensions) is rejected here rather than in the payer's app.
    """
    if not isinstance(text, str):
        raise TypeError("a Swish number must be given as text")
    raw = text.strip()
    if not raw or _PHONE_CHARS.fullmatch(raw) is None:
        raise DetailError(SWISH_NUMBER_HELP)
    digits = re.sub(r"\D", "", raw)
    if not raw.startswith("+") and (_BUSINESS.fullmatch(digits) or _CHARITY.fullmatch(digits)):
        return digits
    try:
        number = phonenumbers.parse(raw, "SE")
    except phonenumbers.NumberParseException:
        raise DetailError(SWISH_NUMBER_HELP) from None
    if (number.extension or not phonenumbers.is_valid_number(number)
            or phonenumbers.region_code_for_number(number) != "SE"
            or phonenumbers.number_type(number) != phonenumbers.PhoneNumberType.MOBILE):
        raise DetailError(SWISH_NUMBER_HELP)
    return f"0{number.national_number}"


def format_swish(number: str) -> str:
    """A Swish number the way Swedes write it: ``"070-123 45 67"``.

    Mobile numbers in ``phonenumbers``' Swedish national format; business
    numbers as ``"123 456 78 90"`` and charity numbers as ``"900 80 04"``,
    the groupings printed on Swish's own signs. Any spelling
    :func:`normalize_swish` accepts is accepted here too.
    """
    n = normalize_swish(number)
    if _BUSINESS.fullmatch(n):
        return f"{n[:3]} {n[3:6]} {n[6:8]} {n[8:]}"
    if _CHARITY.fullmatch(n):
        return f"{n[:3]} {n[3:5]} {n[5:]}"
    return phonenumbers.format_number(phonenumbers.parse(n, "SE"), phonenumbers.PhoneNumberFormat.NATIONAL)


# ------------------------------------------------------------------------ IBAN


def iban_length(country: str) -> int | None:
    """How many characters an IBAN of ``country`` has (SWIFT IBAN registry), or None."""
    try:
        return registry.get_iban_spec(country.upper()).iban_length
    except exceptions.InvalidCountryCode:
        return None


def iban_of(text: str) -> IBAN:
    """The validated ``schwifty.IBAN`` for what a person typed or pasted.

    The order of the messages is the order a person would want to hear them
    in: only letters and digits; a two-letter country code that uses IBANs;
    the length that country's IBANs have; two check digits; the account part
    in the form that country's banks use; the ISO 7064 MOD 97-10 checksum
    (schwifty computes the check digits from the rest and compares, so 00,
    01 and 99, which ISO 13616 never issues, fail too).
    """
    if not isinstance(text, str):
        raise TypeError("an IBAN must be given as text")
    iban = "".join(text.split()).upper()
    if iban.startswith("IBAN"):
        iban = iban[4:]  # copied from a statement that prints "IBAN SE45 ..."
    if not iban:
        raise DetailError(N_("The IBAN is empty."))
    bad = next((ch for ch in iban if not ("A" <= ch <= "Z" or "0" <= ch <= "9")), None)
    if bad is not None:
        raise DetailError(N_("An IBAN has only letters and digits, not %(char)s."), char=repr(bad))
    country = iban[:2]
    if not (len(country) == 2 and country.isalpha()):
        raise DetailError(N_("An IBAN starts with a two-letter country code, like SE or DE."))
    expected = iban_length(country)
    if expected is None:
        raise DetailError(N_("%(country)s is not a country code that uses IBANs."), country=country)
    if len(iban) != expected:
        raise DetailError(N_("An IBAN from %(country)s has %(expected)s characters, this one has %(length)s."),
                          country=country, expected=expected, length=len(iban))
    if not iban[2:4].isdigit():
        raise DetailError(N_("The third and fourth characters of an IBAN are check digits."))
    try:
        return IBAN(iban)
    except exceptions.InvalidChecksumDigits:
        raise DetailError(N_("The IBAN checksum does not match: a character is probably mistyped.")) from None
    except exceptions.SchwiftyException:
        raise DetailError(N_("The account number in this IBAN does not have the form banks in %(country)s use."),
                          country=country) from None


def normalize_iban(text: str) -> str:
    """The IBAN in its electronic form: no spaces, upper case, validated (see :func:`iban_of`)."""
    return str(iban_of(text).compact)


def format_iban(iban: str) -> str:
    """The IBAN in its paper form, groups of four: ``"SE45 5000 0000 ..."``.

    Validates first, so a display never shows an IBAN nobody can pay to.
    """
    return str(iban_of(iban).formatted)


def bank_name(iban: str) -> str | None:
    """The name of the bank an IBAN belongs to, where schwifty's bank registry knows it.

    Shown next to the IBAN so the payer sees "SEB" or "Commerzbank" and can
    tell at a glance whether the account is the one they expect. None for an
    invalid IBAN or a bank code the registry does not list.
    """
    try:
        name = iban_of(iban).bank_name
    except ValueError:
        return None
    return str(name) if name else None


HOLDER_MAX = 70


def has_control(text: str) -> bool:
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
    if has_control(name):
        raise DetailError(N_("The account holder name must not contain line breaks or control characters."))
    name = re.sub(r"\s+", " ", name)
    if not name:
        raise DetailError(N_("The account holder name is empty."))
    if len(name) > HOLDER_MAX:
        raise DetailError(N_("The account holder name is longer than %(max)s characters."), max=HOLDER_MAX)
    return name


def normalize_bic(text: str) -> str:
    """A BIC (SWIFT code) without spaces, upper case: 8 or 11 characters, validated by schwifty.

    Bank code (4 letters), country (a real ISO country code), location (2
    letters or digits), optional branch (3 letters or digits).
    """
    if not isinstance(text, str):
        raise TypeError("a BIC must be given as text")
    try:
        return str(BIC("".join(text.split()).upper(), enforce_swift_compliance=True).compact)
    except exceptions.SchwiftyException:
        raise DetailError(N_("A BIC has 8 or 11 letters and digits, like COBADEFFXXX.")) from None


__all__ = [
    "HOLDER_MAX", "N_", "SWISH_NUMBER_HELP", "DetailError", "bank_name", "clean_holder", "format_iban", "format_swish",
    "has_control", "iban_length", "iban_of", "normalize_bic", "normalize_iban", "normalize_swish",
]
