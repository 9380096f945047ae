"""The QR mask chosen in numpy (referee/qr_mask.py) is segno's own choice, so the codes are segno's codes.

segno scores the eight masks module by module; ``qr_mask`` scores them as
arrays. Any difference in how a penalty is counted would show as a
different mask (or matrix) for some payload, so many payloads of every size
and all four error levels are compared with segno building the code itself.
"""

from __future__ import annotations

import random
import string

import numpy as np
import pytest
import segno

from referee import payment_codes, payment_qr, qr_mask

ALPHABET = string.ascii_letters + string.digits + " ;,.%-/åäöÅÄÖ€\n"


def payloads() -> list[str]:
    rng = random.Random("qr-mask")
    out = [payment_codes.swish_payload("0701234567", amount, "Fredagsknack 2026-11-25")
           for amount in (100, 1250, 21400, 99999900)]
    out += ["".join(rng.choice(ALPHABET) for _ in range(length))
            for length in (1, 7, 17, 30, 45, 64, 90, 120, 150, 180, 220, 260, 300, 331) for _ in range(3)]
    return out


@pytest.mark.parametrize("error", ["L", "M", "Q", "H"])
def test_the_mask_and_the_code_are_segnos(error: str) -> None:
    versions = set()
    for payload in payloads():
        theirs = segno.make_qr(payload, error=error, encoding="utf-8", boost_error=False)
        ours = qr_mask.make_qr(payload, error)
        assert (ours.mask, ours.version, ours.matrix) == (theirs.mask, theirs.version, theirs.matrix), payload
        versions.add(ours.version)
    assert len(versions) >= 8  # small and large codes, with and without alignment and version patterns


def test_payment_codes_use_it() -> None:
    payload = payment_codes.swish_payload("0701234567", 21400, "Fredagsknack 2026-11-25")
    code = payment_qr.qr_code(payload)
    assert code.matrix == segno.make_qr(payload, error="M", encoding="utf-8", boost_error=False).matrix


def test_penalties_count_each_rule() -> None:
    """Hand-counted symbols: one of each penalty, on a 21x21 all-dark or striped square."""
    n = 21
    dark = np.ones((1, n, n), dtype=np.uint8)
    # N1: 2n lines of one run of 21 (21 - 2 each); N2: 20x20 blocks; N4: 100 % dark -> 10 * 10.
    assert qr_mask.penalties(dark) == [2 * n * (n - 2) + 3 * 20 * 20 + 100]
    stripes = np.zeros((1, n, n), dtype=np.uint8)
    stripes[0, :, :] = [1, 0, 1, 1, 1, 0, 1] + [0] * 14  # each row: the finder-like pattern, then light
    scores = qr_mask.penalties(stripes)
    # Rows: the pattern at 0 (40 each) and runs of 14 light (12 each); columns: runs of 21 (19 each),
    # 2x2 blocks wherever two neighbouring columns are alike; dark 5/21 = 23.8 % -> 10 * 5.
    blocks = 3 * 20 * sum(1 for j in range(n - 1) if stripes[0, 0, j] == stripes[0, 0, j + 1])
    assert scores == [n * 40 + n * 12 + n * 19 + blocks + 50]
