"""Kul's round form read (pure): one tap, who took the last trick of the deal."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ERROR_FIELDS: dict[str, str] = {"KU-3": "last_trick", "KU-4": "last_trick"}


def parse(form: Mapping[str, str], state: dict[str, Any], players: list[str]) -> dict[str, Any]:
    return {"last_trick": form.get("last_trick", "")}


def fields(payload: Mapping[str, Any], state: dict[str, Any], players: list[str]) -> dict[str, str]:
    """The inverse of :func:`parse`: a stored payload -> the form's fields (the correct page's prefill)."""
    return {"last_trick": str(payload.get("last_trick", ""))}
