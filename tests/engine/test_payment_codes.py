"""Tests of referee.payment_codes: Swish numbers, IBANs and the payment QR codes.

Expected values are written by hand from the published formats: the IBAN
examples are the registry / textbook ones (each checked digit by digit by
the mod-97 reference below, written independently of the module), the Swish
string follows Swish's "QR code encoding specification" 6.1 and the GiroCode
follows EPC069-12. QR codes are rendered and decoded again with zbar, so the
test reads what a phone camera would read.
"""

from __future__ import annotations

import ast
import io
from pathlib import Path
from urllib.parse import unquote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.payment_codes import (
    EPC_AMOUNT_MAX,
    IBAN_LENGTHS,
    SWISH_AMOUNT_MAX,
    clean_holder,
    epc_payload,
    format_iban,
    format_swish,
    normalize_bic,
    normalize_iban,
    normalize_swish,
    qr_code,
    qr_png,
    qr_svg,
    swish_message,
    swish_payload,
)
from tests.components import missing

MODULE = Path(__file__).resolve().parents[2] / "referee" / "payment_codes.py"


def reference_mod97(iban: str) -> int:
    """ISO 7064 MOD 97-10 the textbook way: move 4 chars to the end, letters to 10..35."""
    moved = iban[4:] + iban[:4]
    digits = "".join(str(ord(c) - ord("A") + 10) if c.isalpha() else c for c in moved)
    return int(digits) % 97


# ------------------------------------------------------------------ purity


def test_module_is_pure() -> None:
    tree = ast.parse(MODULE.read_text(encoding="utf-8"))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported <= {"__future__", "re", "unicodedata", "pathlib", "typing", "urllib", "segno"}


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


def test_iban_table_covers_sepa_and_the_neighbours() -> None:
    sepa = {
        "AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT", "LV",
        "LT", "LU", "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE", "IS", "LI", "NO", "CH", "GB",
        "MC", "SM", "VA", "AD", "GI", "AL", "MD", "ME", "MK", "RS",
    }  # fmt: skip
    assert sepa <= IBAN_LENGTHS.keys()
    # Lengths straight from the IBAN registry for the countries the players come from.
    assert {c: IBAN_LENGTHS[c] for c in ("SE", "NO", "DK", "FI", "DE", "AT", "CH", "GB", "NL", "BE", "FR")} == {
        "SE": 24, "NO": 15, "DK": 18, "FI": 18, "DE": 22, "AT": 20, "CH": 21, "GB": 22, "NL": 18, "BE": 16,
        "FR": 27,
    }  # fmt: skip
    assert all(15 <= n <= 34 for n in IBAN_LENGTHS.values())


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


# ------------------------------------------------------------------ GiroCode


def test_epc_payload_line_by_line() -> None:
    payload = epc_payload("Jürgen Müller", "DE89 3704 0044 0532 0130 00", 1250, "Kul 3 maj")
    assert payload == (
        "BCD\n002\n1\nSCT\n\nJürgen Müller\nDE89370400440532013000\nEUR12.50\n\n\nKul 3 maj"
    )
    lines = payload.split("\n")
    assert len(lines) == 11  # line 12 (beneficiary to originator) omitted
    assert lines[0] == "BCD"  # service tag
    assert lines[1] == "002"  # version
    assert lines[2] == "1"  # character set: UTF-8
    assert lines[3] == "SCT"  # identification
    assert lines[4] == ""  # BIC optional in version 002
    assert lines[5] == "Jürgen Müller"  # beneficiary name
    assert lines[6] == "DE89370400440532013000"  # IBAN, electronic form
    assert lines[7] == "EUR12.50"  # amount
    assert lines[8] == ""  # purpose
    assert lines[9] == ""  # structured (RF) reference
    assert lines[10] == "Kul 3 maj"  # unstructured remittance
    assert not payload.endswith("\n")


def test_epc_payload_without_remittance_ends_at_the_amount() -> None:
    payload = epc_payload("Åsa Öberg", "SE45 5000 0000 0583 9825 7466", 1, "")
    assert payload == "BCD\n002\n1\nSCT\n\nÅsa Öberg\nSE4550000000058398257466\nEUR0.01"


def test_epc_payload_with_bic() -> None:
    payload = epc_payload("Jürgen Müller", "DE89370400440532013000", 500, "x", bic="coba de ff xxx")
    assert payload.split("\n")[4] == "COBADEFFXXX"
    assert epc_payload("J", "DE89370400440532013000", 500, "x", bic="COBADEFF").split("\n")[4] == "COBADEFF"


@pytest.mark.parametrize("bic", ["COBA", "COBADEFFX", "COBADEFFXX", "1OBADEFF", "COBA1EFF", "COBADEFF-XX"])
def test_bad_bic(bic: str) -> None:
    assert normalize_bic("COBADEFFXXX") == "COBADEFFXXX"
    with pytest.raises(ValueError, match="BIC has 8 or 11"):
        epc_payload("J", "DE89370400440532013000", 500, "x", bic=bic)


@pytest.mark.parametrize(
    ("minor", "text"),
    [(1, "EUR0.01"), (50, "EUR0.50"), (100, "EUR1.00"), (1250, "EUR12.50"), (123456, "EUR1234.56"),
     (EPC_AMOUNT_MAX, "EUR999999999.99")],
)  # fmt: skip
def test_epc_amounts(minor: int, text: str) -> None:
    assert epc_payload("J", "DE89370400440532013000", minor, "").split("\n")[7] == text


@pytest.mark.parametrize("minor", [0, -1, EPC_AMOUNT_MAX + 1])
def test_epc_amount_out_of_range(minor: int) -> None:
    with pytest.raises(ValueError, match=r"amount must be between 0\.01 and 999999999\.99"):
        epc_payload("J", "DE89370400440532013000", minor, "")


def test_epc_amount_must_be_int() -> None:
    with pytest.raises(TypeError):
        epc_payload("J", "DE89370400440532013000", 12.5, "")  # type: ignore[arg-type]


def test_epc_validates_name_iban_and_remittance() -> None:
    with pytest.raises(ValueError, match="checksum"):
        epc_payload("J", "DE89370400440532013001", 100, "")
    with pytest.raises(ValueError, match="empty"):
        epc_payload(" ", "DE89370400440532013000", 100, "")
    with pytest.raises(ValueError, match="longer than 70"):
        epc_payload("x" * 71, "DE89370400440532013000", 100, "")
    with pytest.raises(ValueError, match="longer than 140"):
        epc_payload("J", "DE89370400440532013000", 100, "r" * 141)
    assert epc_payload("J", "DE89370400440532013000", 100, "r" * 140).split("\n")[10] == "r" * 140


def test_epc_remittance_newlines_cannot_add_lines() -> None:
    payload = epc_payload("J", "DE89370400440532013000", 100, "Kul\n3 maj\r\nEUR1")
    assert payload.split("\n")[10:] == ["Kul 3 maj EUR1"]


def test_epc_payload_at_most_331_bytes() -> None:
    # 70 + 140 characters fit in ASCII ...
    longest_ascii = epc_payload("N" * 70, "MT84 MALT 0110 0001 2345 MTLC AST0 01S", EPC_AMOUNT_MAX, "R" * 140)
    assert len(longest_ascii.encode()) == 3 + 1 + 3 + 1 + 1 + 1 + 3 + 1 + 0 + 1 + 70 + 1 + 31 + 1 + 15 + 1 + 1 + 1 + 140
    assert len(longest_ascii.encode()) <= 331
    # ... but not as three-byte characters.
    with pytest.raises(ValueError, match="331 bytes"):
        epc_payload("€" * 70, "DE89370400440532013000", 100, "€" * 40)


@given(st.integers(min_value=1, max_value=EPC_AMOUNT_MAX))
def test_epc_amount_round_trips(minor: int) -> None:
    line = epc_payload("Åsa Öberg", "SE4550000000058398257466", minor, "x").split("\n")[7]
    assert line.startswith("EUR")
    whole, frac = line[3:].split(".")
    assert len(frac) == 2 and whole.isdigit() and (whole == "0" or not whole.startswith("0"))
    assert int(whole) * 100 + int(frac) == minor


# ------------------------------------------------------------------ QR codes


def test_qr_svg_is_inline_svg() -> None:
    svg = qr_svg(swish_payload("0701234567", 100, "Kul"))
    assert svg.startswith("<svg")
    assert "<?xml" not in svg
    assert svg.rstrip().endswith("</svg>")


def test_girocode_uses_error_level_m_exactly() -> None:
    payload = epc_payload("Jürgen Müller", "DE89370400440532013000", 1250, "Kul 3 maj")
    assert qr_code(payload).error == "M"  # not boosted to Q or H
    assert qr_code(payload, error="h").error == "H"
    with pytest.raises(ValueError, match="L, M, Q or H"):
        qr_svg(payload, error="X")


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


def decode_png(payload: str, tmp_path: Path | None = None) -> list[str]:
    """Render ``payload`` to PNG with :func:`qr_png`, read it back with zbar, as UTF-8."""
    from PIL import Image

    if tmp_path is None:
        buffer = io.BytesIO()
        qr_png(payload, buffer)
        buffer.seek(0)
        image = Image.open(buffer)
    else:
        path = tmp_path / "code.png"
        qr_png(payload, path)
        image = Image.open(path)
    return [data.decode("utf-8") for data in zbar_read(image)]


@pytest.mark.parametrize(
    "payload",
    [
        epc_payload("Åsa Öberg", "SE45 5000 0000 0583 9825 7466", 1250, "Kul 3 maj"),
        epc_payload("Jürgen Müller", "DE89 3704 0044 0532 0130 00", 99_999_999_999, "Schwimmen: Jürgen → Åsa"),
        epc_payload("Åsa Öberg", "AT61 1904 3002 3457 3201", 1, ""),
        epc_payload("N" * 70, "GB82WEST12345698765432", 4711, "R" * 140, bic="NWBKGB2L"),
        swish_payload("070-123 45 67", 12345, "Kul; Åsa → Bo"),
        swish_payload("123 785 69 01", 10000, "12229445"),
    ],
    ids=["epc-asa", "epc-jurgen", "epc-minimal", "epc-longest", "swish-private", "swish-business"],
)
def test_qr_round_trip(payload: str) -> None:
    assert decode_png(payload) == [payload]


def test_qr_png_to_a_path(tmp_path: Path) -> None:
    payload = epc_payload("Jürgen Müller", "DE89370400440532013000", 1250, "x")
    assert decode_png(payload, tmp_path) == [payload]
