"""Kul's round form read (pure): one tap, who took the last trick of the deal."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ERROR_FIELDS: dict[str, str] = {"KU-3": "last_trick", "KU-4": "last_trick"}


def parse(form: Mapping[str, str], state: dict[str, Any], players: list[str]) -> dict[str, Any]:
    return {"last_trick": form.get("last_trick", "")}
