"""QR codes for the printed sheets: small PNG images, not inline SVG.

Why PNG: WeasyPrint draws an inline SVG QR code by parsing and stroking its
path, hundreds of segments per code; the settlement sheet's 15 codes took a
quarter of its render time that way (see ``bench/pdf.py`` and docs/speed.md).
A PNG is embedded once as an image XObject and costs next
to nothing to place. Each module is one pixel and the sheet asks for
``image-rendering: pixelated`` (the PDF's ``/Interpolate false``), so viewers
and printers scale it up with sharp edges; tests render the sheet and decode
the codes with zbar.

The codes are built by :func:`referee.payment_qr.qr_code` (level M, UTF-8,
no boosting), as EPC069-12 and Swish ask. Building one means choosing among eight
masks (:mod:`referee.qr_mask`, about 0.8 ms a code); a sheet is printed again
and again during a night with the same payments, and the settlement page
shows the same codes, so built images are kept per payload and per code
(least recently used, bounded).
"""

from __future__ import annotations

import base64
import io
from functools import lru_cache

import segno
from markupsafe import Markup, escape

from referee.payment_qr import qr_code

#: Pixels per QR module in the PNG.
MODULE_PX = 1


def png_data_uri(code: str | segno.QRCode) -> str:
    """The QR code (or a payload's, built by :func:`qr_code` and kept) as a ``data:image/png`` URI.

    Payment codes come built (and kept) from :func:`referee.web.pay.payment_qr`;
    their images are kept too, by their modules.
    """
    return _payload_png(code) if isinstance(code, str) else _code_png(code)


@lru_cache(maxsize=512)
def _payload_png(payload: str) -> str:
    return _code_png(qr_code(payload))


def _code_png(code: segno.QRCode) -> str:
    """The code's image, kept by its modules (:func:`_modules_png`)."""
    return _modules_png(b"".join(code.matrix), len(code.matrix))


@lru_cache(maxsize=512)
def _modules_png(modules: bytes, width: int) -> str:
    """An 8-bit grey PNG with a four-module quiet zone, one pixel per module (``modules``: 1 is dark).

    WeasyPrint embeds such a PNG as it is, while a 1-bit one (segno's own
    PNG) is converted to RGB and encoded again on every render.
    """
    import numpy as np
    from PIL import Image

    dark = np.frombuffer(modules, dtype=np.uint8).reshape(width, width)
    grey = np.pad(np.where(dark == 1, 0, 255).astype(np.uint8), 4, constant_values=255)  # the quiet zone
    if MODULE_PX > 1:
        grey = grey.repeat(MODULE_PX, axis=0).repeat(MODULE_PX, axis=1)
    image = Image.fromarray(grey, mode="L")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def qr_img(code: str | segno.QRCode, alt: str) -> Markup:
    """An ``<img>`` of the QR code for a sheet; its size comes from the sheet's CSS."""
    return Markup('<img class="qr" src="{}" alt="{}">').format(png_data_uri(code), escape(alt))
