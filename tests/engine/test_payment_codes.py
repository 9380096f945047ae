"""Tests of referee.payment_codes: Swish numbers, IBANs and the payment QR codes.

Expected values are written by hand from the published formats: the IBAN
examples are the registry / textbook ones and real-world accounts (each
checked digit by digit by the mod-97 reference below, written independently
of the module and of schwifty), the Swish string follows Swish's "QR code
encoding specification" 6.1 and the GiroCode follows EPC069-12. Every
payment QR code is rendered and decoded again with zbar, so the test reads
what a phone camera would read, and compares it field by field with the
scheme's specification.
"""

from __future__ import annotations

import ast
import io
from decimal import Decimal
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.payment_codes import (
    EPC_AMOUNT_MAX,
    SWISH_AMOUNT_MAX,
    bank_name,
    clean_holder,
    format_iban,
    format_swish,
    iban_length,
    normalize_bic,
    normalize_iban,
    normalize_swish,
    swish_link,
    swish_message,
    swish_payload,
)
from referee.payment_qr import epc_qr, qr_code, qr_png, qr_svg
from tests.components import missing

MODULE = Path(__file__).resolve().parents[2] / "referee" / "payment_codes.py"
#: The payment details (Swish numbers, IBANs, BICs, holders), which MODULE makes its codes from.
DETAILS = MODULE.with_name("payment_details.py")


def reference_mod97(iban: str) -> int:
    """ISO 7064 MOD 97-10 the textbook way: move 4 chars to the end, letters to 10..35."""
    moved = iban[4:] + iban[:4]
    digits = "".join(str(ord(c) - ord("A") + 10) if c.isalpha() else c for c in moved)
    return int(digits) % 97


# ------------------------------------------------------------------ purity


def imports_of(path: Path) -> set[str]:
    """Top-level packages a module imports; from ``referee`` itself, the modules by name."""
    imported: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module == "referee":
            imported |= {f"referee.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("referee."):
            imported.add(node.module)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    return imported


def test_module_is_pure() -> None:
    assert imports_of(MODULE) <= {"__future__", "re", "unicodedata", "decimal", "pathlib", "typing", "urllib",
                                  "schwifty", "phonenumbers", "referee.payment_details"}  # no segno: see below
    assert imports_of(DETAILS) <= {"__future__", "re", "unicodedata", "schwifty", "phonenumbers"}
    # the drawing is payment_qr's: the ledger checks and keeps details through payment_codes, and imports no segno
    assert imports_of(MODULE.with_name("payment_qr.py")) <= {"__future__", "decimal", "pathlib", "typing", "segno",
                                                             "referee.qr_mask", "referee", "referee.payment_codes"}
    assert imports_of(MODULE.with_name("qr_mask.py")) <= {"__future__", "copy", "functools", "typing", "numpy",
                                                          "segno"}


def test_no_hand_kept_registry_or_checksum() -> None:
    """The IBAN lengths, the MOD 97 check and the GiroCode lines come from the libraries."""
    text = "".join(path.read_text(encoding="utf-8") for path in (MODULE, DETAILS, MODULE.with_name("payment_qr.py")))
    assert "% 97" not in text and "int(ch, 36)" not in text
    assert '"DE": 22' not in text and "IBAN_LENGTHS" not in text
    assert '"BCD"' not in text and "make_epc_qr" in text


# ------------------------------------------------------------------ Swish numbers


@pytest.mark.parametrize(
    "text",
    [
        "070-123 45 67",
        "0701234567",
        "070 123 45 67",
        "070-1234567",
        "+46 70 123 45 67",
        "+46701234567",
        "+46 (0)70 123 45 67",
        "+46 070 123 45 67",
        "0046701234567",
        "0046 70 123 45 67",
        "46701234567",
        "  070.123.45.67 ",
        "070\u00a0123\u00a045\u00a067",
        "0046 (0)70 123 45 67",
        "+4670-1234567",
    ],
)
def test_private_swish_spellings_become_the_national_number(text: str) -> None:
    assert normalize_swish(text) == "0701234567"


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("123 456 78 90", "1234567890"),
        ("123-456 78 90", "1234567890"),
        ("1237856901", "1237856901"),
        ("900 80 04", "9008004"),
        ("9001223", "9001223"),
        ("076-987 65 43", "0769876543"),
        ("+46 72 123 45 67", "0721234567"),
        ("073 123 45 67", "0731234567"),
    ],
)
def test_business_and_charity_swish_numbers(text: str, canonical: str) -> None:
    assert normalize_swish(text) == canonical


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "08-123 456 78",  # Stockholm landline
        "070-123 45 6",  # one digit short
        "070-123 45 678",  # one digit too many
        "+47 912 34 567",  # Norwegian mobile
        "+46 8 123 456 78",  # Swedish landline, international
        "124 456 78 90",  # not a 123 business number
        "0701234567a",
        "070/123#4567",
        "1234567",
        "91 234 56",
        "071-123 45 67",  # 071 is not a mobile series (phonenumbers' metadata)
        "0701234567 ext 5",
    ],
)
def test_not_a_swish_number(text: str) -> None:
    with pytest.raises(ValueError, match=r"^A Swish number is a Swedish mobile number \(07x xxx xx xx\)"):
        normalize_swish(text)


def test_swish_number_must_be_text() -> None:
    with pytest.raises(TypeError):
        normalize_swish(701234567)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("0701234567", "070-123 45 67"),
        ("+46 70 123 45 67", "070-123 45 67"),
        ("1234567890", "123 456 78 90"),
        ("9008004", "900 80 04"),
    ],
)
def test_format_swish(text: str, shown: str) -> None:
    assert format_swish(text) == shown


# ------------------------------------------------------------------ IBAN

VALID_IBANS = [
    ("DE89 3704 0044 0532 0130 00", "DE89370400440532013000"),
    ("AT61 1904 3002 3457 3201", "AT611904300234573201"),
    ("SE45 5000 0000 0583 9825 7466", "SE4550000000058398257466"),
    ("GB82 WEST 1234 5698 7654 32", "GB82WEST12345698765432"),
    ("gb82 west 1234 5698 7654 32", "GB82WEST12345698765432"),
    ("CH93 0076 2011 6238 5295 7", "CH9300762011623852957"),
    ("NO93 8601 1117 947", "NO9386011117947"),
    ("DK50 0040 0440 1162 43", "DK5000400440116243"),
    ("FI21 1234 5600 0007 85", "FI2112345600000785"),
    ("NL91 ABNA 0417 1643 00", "NL91ABNA0417164300"),
    ("BE68 5390 0754 7034", "BE68539007547034"),
    ("FR14 2004 1010 0505 0001 3M02 606", "FR1420041010050500013M02606"),
    ("IBAN DE89 3704 0044 0532 0130 00", "DE89370400440532013000"),
    (" DE89\t3704\u00a00044 0532 0130 00\n", "DE89370400440532013000"),
]


@pytest.mark.parametrize(("text", "electronic"), VALID_IBANS)
def test_valid_ibans(text: str, electronic: str) -> None:
    assert reference_mod97(electronic) == 1  # the example itself is right
    assert normalize_iban(text) == electronic


@pytest.mark.parametrize(
    ("text", "paper"),
    [
        ("DE89370400440532013000", "DE89 3704 0044 0532 0130 00"),
        ("AT611904300234573201", "AT61 1904 3002 3457 3201"),
        ("SE4550000000058398257466", "SE45 5000 0000 0583 9825 7466"),
        ("GB82WEST12345698765432", "GB82 WEST 1234 5698 7654 32"),
        ("NO9386011117947", "NO93 8601 1117 947"),
    ],
)
def test_format_iban_groups_of_four(text: str, paper: str) -> None:
    assert format_iban(text) == paper


@pytest.mark.parametrize(
    "text",
    [
        "DE89 3704 0044 0532 0130 01",  # last digit changed
        "DE88 3704 0044 0532 0130 00",  # check digit changed
        "AT61 1904 3002 3457 3202",
        "SE45 5000 0000 0583 9825 7467",
        "GB82 WEST 1234 5698 7654 33",
        "GB82 WEST 1234 5698 7645 32",  # neighbours swapped
        "GB82 WSET 1234 5698 7654 32",  # letters swapped
    ],
)
def test_checksum_errors(text: str) -> None:
    with pytest.raises(ValueError, match="checksum"):
        normalize_iban(text)


def test_check_digits_outside_02_98_are_refused_even_when_mod97_passes() -> None:
    valid = "GB98WEST12345698760003"
    assert reference_mod97(valid) == 1
    assert normalize_iban(valid) == valid
    # 98 and 01 differ by 97: the remainder is still 1, but ISO 13616 never issues 01.
    same_remainder = "GB01WEST12345698760003"
    assert reference_mod97(same_remainder) == 1
    with pytest.raises(ValueError, match="checksum"):
        normalize_iban(same_remainder)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("DE89 3704 0044 0532 0130 0", "DE has 22 characters, this one has 21"),
        ("DE89 3704 0044 0532 0130 000", "DE has 22 characters, this one has 23"),
        ("SE45 5000 0000 0583 9825 746", "SE has 24 characters, this one has 23"),
        ("NO93 8601 1117 9470", "NO has 15 characters, this one has 16"),
        ("US12 3456 7890 1234 5678 90", "US is not a country code that uses IBANs"),
        ("XX89 3704 0044 0532 0130 00", "XX is not a country code that uses IBANs"),
        ("1289 3704 0044 0532 0130 00", "starts with a two-letter country code"),
        ("DEAB 3704 0044 0532 0130 00", "check digits"),
        ("DE89-3704-0044-0532-0130-00", "only letters and digits, not '-'"),
        ("DE89 3704 0044 0532 0130 0Ö", "only letters and digits, not 'Ö'"),
        ("", "empty"),
        ("   ", "empty"),
    ],
)
def test_iban_errors_name_the_problem(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        normalize_iban(text)


def test_iban_registry_covers_sepa_and_the_neighbours() -> None:
    sepa = {
        "AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT", "LV",
        "LT", "LU", "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE", "IS", "LI", "NO", "CH", "GB",
        "MC", "SM", "VA", "AD", "GI", "AL", "MD", "ME", "MK", "RS",
    }  # fmt: skip
    lengths = {c: iban_length(c) for c in sepa}
    assert all(n is not None and 15 <= n <= 34 for n in lengths.values()), lengths
    # Lengths straight from the IBAN registry for the countries the players come from.
    assert {c: iban_length(c) for c in ("SE", "NO", "DK", "FI", "DE", "AT", "CH", "GB", "NL", "BE", "FR", "LI")} == {
        "SE": 24, "NO": 15, "DK": 18, "FI": 18, "DE": 22, "AT": 20, "CH": 21, "GB": 22, "NL": 18, "BE": 16,
        "FR": 27, "LI": 21,
    }  # fmt: skip
    assert iban_length("US") is None and iban_length("XX") is None


#: Real-world IBANs: accounts that charities publish for donations and the published examples of
#: the banks' own countries, with the bank schwifty's bank registry names for them.
REAL_IBANS = [
    ("SE45 5000 0000 0583 9825 7466", "SE", "SEB"),  # SEB, the Swedish example of the IBAN registry
    ("SE35 5000 0000 0549 1000 0003", "SE", "SEB"),
    ("DE72 3702 0500 0009 7097 00", "DE", "SozialBank"),  # Ärzte ohne Grenzen e.V.
    ("DE89 3704 0044 0532 0130 00", "DE", "Commerzbank"),
    ("AT43 2011 1289 2684 7600", "AT", "Erste Bank der oesterreichischen Sparkassen AG"),  # Ärzte ohne Grenzen
    ("CH56 0483 5012 3456 7800 9", "CH", "UBS Switzerland AG - Zürich"),
    ("CH93 0076 2011 6238 5295 7", "CH", None),  # the registry's example; the bank code is not listed
    ("LI21 0881 0000 2324 013A A", "LI", "LGT Bank AG"),
]


@pytest.mark.parametrize(("text", "country", "bank"), REAL_IBANS)
def test_real_world_ibans_and_their_banks(text: str, country: str, bank: str | None) -> None:
    electronic = text.replace(" ", "")
    assert reference_mod97(electronic) == 1
    assert normalize_iban(text) == electronic
    assert format_iban(electronic) == text
    assert len(electronic) == iban_length(country)
    assert bank_name(text) == bank


def test_bank_name_of_an_invalid_iban_is_none() -> None:
    assert bank_name("DE72 3702 0500 0009 7097 01") is None
    assert bank_name("") is None


def test_account_part_in_the_wrong_form() -> None:
    # Right length and check digits, but a German BBAN is digits only.
    with pytest.raises(ValueError, match="does not have the form banks in DE use"):
        normalize_iban("DE05 3704 0044 0532 0130 0A")


# ------------------------------------------------------------------ holder names


@pytest.mark.parametrize(
    ("text", "clean"),
    [
        ("Åsa Öberg", "Åsa Öberg"),
        ("  Jürgen   Müller ", "Jürgen Müller"),
        ("A\u030asa", "Åsa"),  # decomposed Å from some keyboards -> one character
        ("x" * 70, "x" * 70),
    ],
)
def test_clean_holder(text: str, clean: str) -> None:
    assert clean_holder(text) == clean


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("x" * 71, "longer than 70"),
        ("Åsa\nÖberg", "control characters"),
        ("Åsa\tÖberg", "control characters"),
        ("Åsa\x00", "control characters"),
        ("Åsa\u2028Öberg", "control characters"),
    ],
)
def test_clean_holder_refuses(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        clean_holder(text)


# ------------------------------------------------------------------ Swish payload


def test_swish_payload_field_by_field() -> None:
    payload = swish_payload("070-123 45 67", 10000, "Kul 3 maj")
    assert payload == "C0701234567;100,00;Kul%203%20maj;4"
    fields = payload.split(";")
    assert len(fields) == 4
    assert fields[0] == "C0701234567"  # prefix C, then the payee
    assert fields[1] == "100,00"  # SEK, two decimals, decimal comma
    assert fields[2] == "Kul%203%20maj"  # URL-encoded message
    assert fields[3] == "4"  # 0b100: only the message (bit 2) editable


def test_swish_spec_example_shape() -> None:
    # Spec: company 1237856901, 100 SEK, OCR 12229445 -> C1237856901;100,00;12229445;0 (all locked).
    # Ours differs only in the lock mask: the message stays editable.
    assert swish_payload("123 785 69 01", 10000, "12229445") == "C1237856901;100,00;12229445;4"


@pytest.mark.parametrize(
    ("minor", "text"),
    [(1, "0,01"), (10, "0,10"), (99, "0,99"), (1250, "12,50"), (123456, "1234,56"),
     (100_000_000, "1000000,00"), (SWISH_AMOUNT_MAX, "999999999999,99")],
)  # fmt: skip
def test_swish_amounts(minor: int, text: str) -> None:
    assert swish_payload("0701234567", minor, "").split(";")[1] == text


def test_swish_message_is_url_encoded_so_semicolons_cannot_split_fields() -> None:
    payload = swish_payload("0701234567", 500, "Kul; Åsa → Bo 50%")
    assert payload == "C0701234567;5,00;Kul%3B%20%C3%85sa%20%E2%86%92%20Bo%2050%25;4"
    assert unquote(payload.split(";")[2]) == "Kul; Åsa → Bo 50%"


def test_swish_empty_message_is_an_empty_field() -> None:
    assert swish_payload("0701234567", 500, "") == "C0701234567;5,00;;4"


def test_swish_message_truncated_at_a_word() -> None:
    text = "Kulkväll hos Åsa fredag 3 maj, din andel av potten efter tre omgångar"
    shown = swish_message(text)
    assert shown == "Kulkväll hos Åsa fredag 3 maj, din andel av potten"
    assert len(shown) == 50
    text2 = "Kulkväll hos Åsa fredag 3 maj, din andel av potten, tack"
    assert swish_message(text2) == "Kulkväll hos Åsa fredag 3 maj, din andel av"
    assert unquote(swish_payload("0701234567", 100, text2).split(";")[2]) == swish_message(text2)


def test_swish_message_one_long_word_is_cut_hard() -> None:
    assert swish_message("x" * 80) == "x" * 50
    assert swish_message("ab " + "x" * 80) == "ab " + "x" * 47


def test_swish_message_is_one_line() -> None:
    assert swish_message("  Kul\n3\tmaj\r\n ") == "Kul 3 maj"


@pytest.mark.parametrize("minor", [0, -100, SWISH_AMOUNT_MAX + 1])
def test_swish_amount_out_of_range(minor: int) -> None:
    with pytest.raises(ValueError, match=r"^A Swish amount must be between 0\.01 and 999999999999\.99\.$"):
        swish_payload("0701234567", minor, "")


@pytest.mark.parametrize("amount", [12.5, "1250", True, None])
def test_swish_amount_must_be_int_minor_units(amount: object) -> None:
    with pytest.raises(TypeError):
        swish_payload("0701234567", amount, "")  # type: ignore[arg-type]


def test_swish_payload_rejects_bad_payee() -> None:
    with pytest.raises(ValueError, match="Swish number"):
        swish_payload("08-123 456 78", 100, "")


@given(st.integers(min_value=1, max_value=SWISH_AMOUNT_MAX))
def test_swish_amount_round_trips(minor: int) -> None:
    amount = swish_payload("0701234567", minor, "x").split(";")[1]
    whole, frac = amount.split(",")
    assert len(frac) == 2 and whole.isdigit() and (whole == "0" or not whole.startswith("0"))
    assert int(whole) * 100 + int(frac) == minor


# ------------------------------------------------------------------ Swish link


def test_swish_link_carries_the_transfer_field_by_field() -> None:
    link = swish_link("+46 70 123 45 67", 1250, "Kul 3 maj; Åsa → Bo")
    parts = urlsplit(link)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "app.swish.nu", "/1/p/sw/")
    query = parse_qs(parts.query, strict_parsing=True, keep_blank_values=True)
    assert query == {"sw": ["0701234567"], "amt": ["12.50"], "cur": ["SEK"], "msg": ["Kul 3 maj; Åsa → Bo"],
                     "edit": ["msg"]}
    assert " " not in link and "+" not in parts.query  # spaces as %20, never as "+"


def test_swish_link_and_qr_code_say_the_same() -> None:
    payee, minor, message = "123 785 69 01", 10000, "x" * 60
    fields = swish_payload(payee, minor, message).split(";")
    query = parse_qs(urlsplit(swish_link(payee, minor, message)).query)
    assert fields[0] == "C" + query["sw"][0]
    assert fields[1].replace(",", ".") == query["amt"][0]
    assert unquote(fields[2]) == query["msg"][0] == "x" * 50


def test_swish_link_refuses_what_the_qr_code_refuses() -> None:
    with pytest.raises(ValueError, match="Swish number"):
        swish_link("08-123 456 78", 100, "")
    with pytest.raises(ValueError, match="Swish amount"):
        swish_link("0701234567", 0, "")
    with pytest.raises(TypeError):
        swish_link("0701234567", 1.5, "")  # type: ignore[arg-type]


# ------------------------------------------------------------------ decoding QR codes

#: zbar's ZBAR_CFG_BINARY (zbar.h, 0.23+): hand back the QR bytes instead of guessing a charset.
ZBAR_CFG_BINARY = 4


def zbar_read(image: object) -> list[bytes]:
    """The raw bytes of every QR code zbar finds in ``image``.

    Binary mode, because zbar's charset guessing tries Big5 and Shift-JIS
    before UTF-8 and turns "Jürgen" into "J羹rgen" (mchehab/zbar issue #212);
    phones' scanners read the UTF-8 the GiroCode declares. So the test checks
    what matters: the code holds exactly the payload's UTF-8 bytes.
    """
    try:
        from pyzbar import pyzbar
        from pyzbar.wrapper import (
            ZBarSymbol,
            zbar_image_scanner_set_config,
            zbar_image_set_data,
            zbar_image_set_format,
            zbar_image_set_size,
            zbar_scan_image,
        )
    except ImportError:  # pragma: no cover - depends on the machine
        missing("pyzbar + libzbar0")
        raise
    from ctypes import c_void_p, cast

    pixels, width, height = pyzbar._pixel_data(image)
    with pyzbar._image_scanner() as scanner:
        assert zbar_image_scanner_set_config(scanner, ZBarSymbol.QRCODE, ZBAR_CFG_BINARY, 1) == 0
        with pyzbar._image() as img:
            zbar_image_set_format(img, pyzbar._FOURCC["L800"])
            zbar_image_set_size(img, width, height)
            zbar_image_set_data(img, cast(pixels, c_void_p), len(pixels), None)
            assert zbar_scan_image(scanner, img) >= 0
            return [symbol.data for symbol in pyzbar._decode_symbols(pyzbar._symbols_for_image(img))]


def decode_png(code: object, tmp_path: Path | None = None) -> list[str]:
    """Render ``code`` (payload or QR code) to PNG with :func:`qr_png`, read it back with zbar, as UTF-8."""
    from PIL import Image

    if tmp_path is None:
        buffer = io.BytesIO()
        qr_png(code, buffer)  # type: ignore[arg-type]
        buffer.seek(0)
        image = Image.open(buffer)
    else:
        path = tmp_path / "code.png"
        qr_png(code, path)  # type: ignore[arg-type]
        image = Image.open(path)
    return [data.decode("utf-8") for data in zbar_read(image)]


def decode_one(code: object) -> str:
    found = decode_png(code)
    assert len(found) == 1, found
    return found[0]


#: EPC069-12 amount: "EUR" then 0.01..999999999.99 with a decimal point and at most two decimals.
EPC_AMOUNT = r"EUR(0|[1-9]\d{0,8})(\.\d{1,2})?"


def check_girocode(payload: str, *, name: str, iban: str, minor: int, text: str, bic: str = "") -> None:
    """The decoded GiroCode, line by line, against EPC069-12 (version 002, SCT, unstructured remittance)."""
    import re

    assert len(payload.encode("utf-8")) <= 331
    assert not payload.endswith("\n")  # no separator after the last populated element
    lines = payload.split("\n")
    assert len(lines) == 11  # line 12 (beneficiary to originator information) omitted
    assert lines[0] == "BCD"  # service tag
    assert lines[1] == "002"  # version: BIC optional inside the EEA
    assert lines[2] == "1"  # character set 1: UTF-8
    assert lines[3] == "SCT"  # identification: SEPA Credit Transfer
    assert lines[4] == bic  # BIC of the beneficiary's bank, or empty
    assert lines[5] == name and 0 < len(name) <= 70  # beneficiary name
    assert lines[6] == iban  # IBAN, electronic form
    match = re.fullmatch(EPC_AMOUNT, lines[7])
    assert match is not None, lines[7]
    assert Decimal(lines[7][3:]) == Decimal(minor).scaleb(-2)  # the amount, exactly
    assert lines[8] == ""  # purpose code
    assert lines[9] == ""  # structured creditor reference (RF): empty, as line 11 is used
    assert lines[10] == text and 0 < len(text) <= 140  # unstructured remittance


def check_swish(payload: str, *, payee: str, minor: int, message: str) -> None:
    """The decoded Swish code against Swish's QR code encoding specification 6.1."""
    assert payload.startswith("C")  # capital C prefix
    fields = payload[1:].split(";")
    assert len(fields) == 4  # payee; amount; message; lock mask
    assert fields[0] == payee
    whole, frac = fields[1].split(",")  # SEK, decimal comma, two decimals
    assert len(frac) == 2 and int(whole) * 100 + int(frac) == minor
    assert unquote(fields[2]) == message and ";" not in fields[2]  # URL-encoded
    assert fields[3] == "4"  # lock mask: only the message (bit 2) editable


# ------------------------------------------------------------------ GiroCode


def test_girocode_field_by_field() -> None:
    payload = decode_one(epc_qr("Jürgen Müller", "DE89 3704 0044 0532 0130 00", 1250, "Kul 3 maj"))
    check_girocode(payload, name="Jürgen Müller", iban="DE89370400440532013000", minor=1250, text="Kul 3 maj")
    assert payload.startswith("BCD\n002\n1\nSCT\n\nJürgen Müller\nDE89370400440532013000\nEUR12.5")


def test_girocode_needs_a_remittance() -> None:
    # The app always names the night; segno's writer (and so ours) wants a text or a reference.
    with pytest.raises(ValueError, match="needs a payment reference"):
        epc_qr("Åsa Öberg", "SE45 5000 0000 0583 9825 7466", 1, "")


def test_girocode_with_bic() -> None:
    payload = decode_one(epc_qr("Jürgen Müller", "DE89370400440532013000", 500, "x", bic="coba de ff xxx"))
    check_girocode(payload, name="Jürgen Müller", iban="DE89370400440532013000", minor=500, text="x",
                   bic="COBADEFFXXX")
    short = decode_one(epc_qr("J", "DE89370400440532013000", 500, "x", bic="COBADEFF"))
    assert short.split("\n")[4] == "COBADEFF"


@pytest.mark.parametrize(("bic", "bank"), [("ESSESESS", ["SEB"]), ("GIBAATWWXXX", ["Erste Bank der oesterreichischen "
                                                                                   "Sparkassen AG"])])
def test_real_world_bic(bic: str, bank: list[str]) -> None:
    from schwifty import BIC

    assert normalize_bic(bic.lower()) == bic
    assert BIC(bic).bank_names == bank  # the library knows the bank behind the code
    payload = decode_one(epc_qr("Åsa Öberg", "SE45 5000 0000 0583 9825 7466", 4711, "Kul", bic=bic))
    check_girocode(payload, name="Åsa Öberg", iban="SE4550000000058398257466", minor=4711, text="Kul", bic=bic)


@pytest.mark.parametrize("bic", ["COBA", "COBADEFFX", "COBADEFFXX", "1OBADEFF", "COBA1EFF", "COBADEFF-XX",
                                 "COBAXXFF"])
def test_bad_bic(bic: str) -> None:
    assert normalize_bic("COBADEFFXXX") == "COBADEFFXXX"
    with pytest.raises(ValueError, match="BIC has 8 or 11"):
        epc_qr("J", "DE89370400440532013000", 500, "x", bic=bic)


@pytest.mark.parametrize("minor", [1, 50, 100, 1250, 123456, EPC_AMOUNT_MAX])
def test_epc_amounts(minor: int) -> None:
    payload = decode_one(epc_qr("J", "DE89370400440532013000", minor, "x"))
    check_girocode(payload, name="J", iban="DE89370400440532013000", minor=minor, text="x")


@pytest.mark.parametrize("minor", [0, -1, EPC_AMOUNT_MAX + 1])
def test_epc_amount_out_of_range(minor: int) -> None:
    with pytest.raises(ValueError, match=r"amount must be between 0\.01 and 999999999\.99"):
        epc_qr("J", "DE89370400440532013000", minor, "x")


def test_epc_amount_must_be_int() -> None:
    with pytest.raises(TypeError):
        epc_qr("J", "DE89370400440532013000", 12.5, "x")  # type: ignore[arg-type]


def test_epc_validates_name_iban_and_remittance() -> None:
    with pytest.raises(ValueError, match="checksum"):
        epc_qr("J", "DE89370400440532013001", 100, "x")
    with pytest.raises(ValueError, match="empty"):
        epc_qr(" ", "DE89370400440532013000", 100, "x")
    with pytest.raises(ValueError, match="longer than 70"):
        epc_qr("x" * 71, "DE89370400440532013000", 100, "x")
    with pytest.raises(ValueError, match="longer than 140"):
        epc_qr("J", "DE89370400440532013000", 100, "r" * 141)
    assert decode_one(epc_qr("J", "DE89370400440532013000", 100, "r" * 140)).split("\n")[10] == "r" * 140


def test_epc_remittance_newlines_cannot_add_lines() -> None:
    payload = decode_one(epc_qr("J", "DE89370400440532013000", 100, "Kul\n3 maj\r\nEUR1"))
    check_girocode(payload, name="J", iban="DE89370400440532013000", minor=100, text="Kul 3 maj EUR1")


def test_epc_payload_at_most_331_bytes() -> None:
    # 70 + 140 characters fit in ASCII ...
    longest = decode_one(epc_qr("N" * 70, "MT84 MALT 0110 0001 2345 MTLC AST0 01S", EPC_AMOUNT_MAX, "R" * 140))
    check_girocode(longest, name="N" * 70, iban="MT84MALT011000012345MTLCAST001S", minor=EPC_AMOUNT_MAX,
                   text="R" * 140)
    # ... but not as three-byte characters.
    with pytest.raises(ValueError, match="331 bytes"):
        epc_qr("€" * 70, "DE89370400440532013000", 100, "€" * 40)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=1, max_value=EPC_AMOUNT_MAX))
def test_epc_amount_round_trips(minor: int) -> None:
    payload = decode_one(epc_qr("Åsa Öberg", "SE4550000000058398257466", minor, "x"))
    check_girocode(payload, name="Åsa Öberg", iban="SE4550000000058398257466", minor=minor, text="x")


@pytest.mark.parametrize(("text", "_country", "_bank"), REAL_IBANS)
def test_girocode_for_real_world_ibans(text: str, _country: str, _bank: str | None) -> None:
    payload = decode_one(epc_qr("Åsa Öberg", text, 1250, "Kul 3 maj"))
    check_girocode(payload, name="Åsa Öberg", iban=text.replace(" ", ""), minor=1250, text="Kul 3 maj")


# ------------------------------------------------------------------ QR codes


def test_qr_svg_is_inline_svg() -> None:
    for code in (swish_payload("0701234567", 100, "Kul"), epc_qr("J", "DE89370400440532013000", 100, "x")):
        svg = qr_svg(code)
        assert svg.startswith("<svg")
        assert "<?xml" not in svg
        assert svg.rstrip().endswith("</svg>")


def test_girocode_uses_error_level_m_exactly() -> None:
    assert epc_qr("Jürgen Müller", "DE89370400440532013000", 1250, "Kul 3 maj").error == "M"  # not boosted
    payload = swish_payload("0701234567", 100, "Kul")
    assert qr_code(payload).error == "M"
    assert qr_code(payload, error="h").error == "H"
    with pytest.raises(ValueError, match="L, M, Q or H"):
        qr_svg(payload, error="X")


@pytest.mark.parametrize(
    ("payee", "minor", "message", "number", "shown"),
    [
        ("070-123 45 67", 12345, "Kul; Åsa → Bo", "0701234567", "Kul; Åsa → Bo"),
        ("123 785 69 01", 10000, "12229445", "1237856901", "12229445"),
        ("+46 (0)76-987 65 43", 1, "", "0769876543", ""),
        ("900 80 04", SWISH_AMOUNT_MAX, "x" * 60, "9008004", "x" * 50),
    ],
    ids=["swish-private", "swish-business", "swish-minimal", "swish-charity-longest"],
)
def test_swish_qr_decoded_field_by_field(payee: str, minor: int, message: str, number: str, shown: str) -> None:
    payload = decode_one(swish_payload(payee, minor, message))
    check_swish(payload, payee=number, minor=minor, message=shown)


@pytest.mark.parametrize(
    ("name", "iban", "minor", "text", "bic"),
    [
        ("Åsa Öberg", "SE45 5000 0000 0583 9825 7466", 1250, "Kul 3 maj", ""),
        ("Jürgen Müller", "DE89 3704 0044 0532 0130 00", 99_999_999_999, "Schwimmen: Jürgen → Åsa", ""),
        ("Åsa Öberg", "AT61 1904 3002 3457 3201", 1, "x", ""),
        ("N" * 70, "GB82WEST12345698765432", 4711, "R" * 140, "NWBKGB2L"),
    ],
    ids=["epc-asa", "epc-jurgen", "epc-minimal", "epc-longest"],
)
def test_girocode_decoded_field_by_field(name: str, iban: str, minor: int, text: str, bic: str) -> None:
    payload = decode_one(epc_qr(name, iban, minor, text, bic=bic))
    check_girocode(payload, name=name, iban=iban.replace(" ", ""), minor=minor, text=text, bic=bic)


def test_qr_png_to_a_path(tmp_path: Path) -> None:
    code = epc_qr("Jürgen Müller", "DE89370400440532013000", 1250, "x")
    [payload] = decode_png(code, tmp_path)
    check_girocode(payload, name="Jürgen Müller", iban="DE89370400440532013000", minor=1250, text="x")
