"""The settlement and the protocols are tagged PDFs (issue 50.7): a screen reader or a reflowing PDF app reads
them by their structure. ``pdfinfo`` (poppler) says "Tagged: yes", and the structure tree (read with pypdf)
holds the sheet's heading before its parts (and, in a protocol, its tables with their rows)."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from tests.components import missing
from tests.web.helpers import Api


def tagged(data: bytes, workdir: Path) -> str:
    """``pdfinfo``'s "Tagged:" line of the PDF."""
    if shutil.which("pdfinfo") is None:
        missing("pdfinfo (Debian package poppler-utils)")
    pdf = workdir / "sheet.pdf"
    pdf.write_bytes(data)
    out = subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True, text=True).stdout
    return next(line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Tagged:"))


def structure(data: bytes) -> list[str]:
    """The structure elements' types (H1, Table, TR, …) in the order of the structure tree (depth first)."""
    root = PdfReader(io.BytesIO(data)).trailer["/Root"]["/StructTreeRoot"]
    kinds: list[str] = []

    def walk(node: Any) -> None:
        node = node.get_object()
        if isinstance(node, list):
            for kid in node:
                walk(kid)
            return
        if not hasattr(node, "get"):
            return
        if "/S" in node:
            kinds.append(str(node["/S"]).lstrip("/"))
        if "/K" in node:
            walk(node["/K"])

    walk(root["/K"])
    return kinds


@pytest.mark.parametrize("sheet", ["settlement", "protocol"])
def test_the_sheets_are_tagged_in_reading_order(client: Any, tmp_path: Path, sheet: str) -> None:
    api = Api(client)
    api.new_night(["Anna", "Bo", "Cia", "Dan"])
    m = api.new_match("svangknack", ["Anna", "Bo", "Cia", "Dan"], stake="3.00")
    api.round(m["id"], {"participants": ["Bo", "Dan"], "tricks": {"Bo": 2, "Dan": 1}})
    path = (f"/nights/{api.night['id']}/settlement.pdf" if sheet == "settlement"
            else f"/matches/{m['id']}/protocol.pdf")
    resp = client.get(f"{path}?view={api.night['view_token']}")
    assert resp.status_code == 200 and resp.mimetype == "application/pdf"
    assert tagged(resp.data, tmp_path) == "yes"
    kinds = structure(resp.data)
    assert "H1" in kinds and "H2" in kinds, kinds
    assert kinds.index("H1") < kinds.index("H2"), kinds  # the sheet's heading is read before its parts
    if sheet == "protocol":  # its rounds and its result as tables, with rows, after the heading
        assert "Table" in kinds and "TR" in kinds and kinds.index("H1") < kinds.index("Table"), kinds
