"""Reading PDFs back in tests: text with pypdf, a PNG of page 1 with pdftoppm."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from pypdf import PdfReader

from tests.components import missing


def pdf_text(data: bytes) -> str:
    """All the text of the PDF, white space folded (table cells wrap lines)."""
    assert data.startswith(b"%PDF-"), data[:40]
    reader = PdfReader(io.BytesIO(data))
    return " ".join(" ".join(page.extract_text() or "" for page in reader.pages).split())


def pdf_fonts(data: bytes) -> set[str]:
    """Names of the fonts embedded in the PDF."""
    reader = PdfReader(io.BytesIO(data))
    fonts: set[str] = set()
    for page in reader.pages:
        resources = page.get("/Resources") or {}
        for font in (resources.get("/Font") or {}).values():
            obj = font.get_object()
            descriptor = obj.get("/FontDescriptor")
            if descriptor is None and "/DescendantFonts" in obj:
                descriptor = obj["/DescendantFonts"][0].get_object().get("/FontDescriptor")
            if descriptor is not None and any(k in descriptor.get_object() for k in
                                              ("/FontFile", "/FontFile2", "/FontFile3")):
                fonts.add(str(obj.get("/BaseFont")))
    return fonts


def first_page_png(data: bytes, out: Path) -> Path:
    """Render page 1 to ``out`` (a .png) so a person can look at it.

    The PDF is written and rendered in a private directory and both files are then moved into place: a test's
    [sqlite] and [postgres] runs share one artifact name and run at once on two workers, and rendering a PDF the
    other worker was still writing once failed CI (poppler read half a file).
    """
    if shutil.which("pdftoppm") is None:
        missing("pdftoppm (Debian package poppler-utils)")
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent) as work:
        pdf = Path(work) / "page.pdf"
        pdf.write_bytes(data)
        subprocess.run(["pdftoppm", "-png", "-r", "80", "-f", "1", "-l", "1", "-singlefile", str(pdf),
                        str(Path(work) / "page")], check=True)
        png = Path(work) / "page.png"
        assert png.exists() and png.stat().st_size > 1000
        os.replace(pdf, out.with_suffix(".pdf"))
        os.replace(png, out)
    return out


def page_qr_codes(data: bytes, page: int, workdir: Path, dpi: int = 150) -> list[str]:
    """Every QR code zbar finds on ``page`` of the PDF rendered at ``dpi`` (as printed and scanned)."""
    if shutil.which("pdftoppm") is None:
        missing("pdftoppm (Debian package poppler-utils)")
    from PIL import Image

    from tests.engine.test_payment_codes import zbar_read

    pdf = workdir / "scan.pdf"
    pdf.write_bytes(data)
    subprocess.run(["pdftoppm", "-png", "-gray", "-r", str(dpi), "-f", str(page), "-l", str(page), "-singlefile",
                    str(pdf), str(workdir / "scan")], check=True)
    with Image.open(workdir / "scan.png") as image:
        return [code.decode("utf-8") for code in zbar_read(image.convert("L"))]
