"""Kul's round form: one tap, who took the last trick of the deal."""

from __future__ import annotations

from typing import Any

from werkzeug.datastructures import MultiDict

ERROR_FIELDS: dict[str, str] = {"KU-3": "last_trick", "KU-4": "last_trick"}


def parse(form: MultiDict[str, str], state: dict[str, Any], players: list[str]) -> dict[str, Any]:
    return {"last_trick": form.get("last_trick", "")}
