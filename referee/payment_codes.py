"""Payment details and the payloads and links that let a loser pay with one tap.

At the end of the night the settlement says who pays whom; this module turns
a winner's payment details into something the payer's phone understands:

* a Swish "C" string (Sweden: the Swish app's prefilled-payment QR code) and
  the Swish payment link that opens the app on the payer's own phone, and
* an EPC069-12 "GiroCode" (SEPA credit transfer QR code, read by most
  European banking apps).

What is kept up to date elsewhere is taken from libraries that follow the
registries: ``schwifty`` (SWIFT's IBAN registry: countries, lengths, BBAN
structure, the check digits; BICs; bank names), ``phonenumbers`` (Google's
libphonenumber metadata: which Swedish numbers are mobile numbers, in every
written form). This module only says what is ours: which fields, which
messages the leader reads, which limits apply, which Swish numbers we take.
The QR codes drawn of them (segno) are :mod:`referee.payment_qr`'s, so that
the ledger, which checks and keeps a payee's details through this module,
imports no drawing (issue 48.1).

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


def _iban(text: str) -> IBAN:
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
    """The IBAN in its electronic form: no spaces, upper case, validated (see :func:`_iban`)."""
    return str(_iban(text).compact)


def format_iban(iban: str) -> str:
    """The IBAN in its paper form, groups of four: ``"SE45 5000 0000 ..."``.

    Validates first, so a display never shows an IBAN nobody can pay to.
    """
    return str(_iban(iban).formatted)


def bank_name(iban: str) -> str | None:
    """The name of the bank an IBAN belongs to, where schwifty's bank registry knows it.

    Shown next to the IBAN so the payer sees "SEB" or "Commerzbank" and can
    tell at a glance whether the account is the one they expect. None for an
    invalid IBAN or a bank code the registry does not list.
    """
    try:
        name = _iban(iban).bank_name
    except ValueError:
        return None
    return str(name) if name else None


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
        raise DetailError(N_("The account holder name must not contain line breaks or control characters."))
    name = re.sub(r"\s+", " ", name)
    if not name:
        raise DetailError(N_("The account holder name is empty."))
    if len(name) > HOLDER_MAX:
        raise DetailError(N_("The account holder name is longer than %(max)s characters."), max=HOLDER_MAX)
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
    account = _iban(iban)
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
