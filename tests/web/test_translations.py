"""Every text a player reads exists in Swedish and German, rule messages of the engine included.

The catalogs are checked against the code itself (Babel's extractor with the
keywords of ``make messages``), not against a committed template, so a new
message without a translation fails here instead of showing up in English
on a Swedish phone.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.pofile import read_po

from tests.web.helpers import Api

ROOT = Path(__file__).resolve().parents[2]
KEYWORDS = {**DEFAULT_KEYWORDS, "_l": None, "N_": None, "RuleViolation": (2,), "BadInput": (2,)}
METHODS = [("referee/**.py", "python"), ("templates/**.html", "jinja2")]
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def placeholders(text: str | tuple[str, ...] | list[str]) -> set[str]:
    """The ``%(name)s`` parameters of a message (all forms of a plural together)."""
    if isinstance(text, (tuple, list)):
        return set().union(*(placeholders(t) for t in text))
    return set(PLACEHOLDER.findall(text))


def extracted() -> set[str]:
    ids: set[str] = set()
    for _file, _line, message, _comments, _context in extract_from_dir(str(ROOT), METHODS, keywords=KEYWORDS):
        ids.add(message if isinstance(message, str) else message[0])
    return ids


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_every_message_is_translated_with_its_placeholders(lang: str) -> None:
    with (ROOT / "referee" / "translations" / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        catalog = read_po(f)
    wanted = extracted()
    assert len(wanted) > 400  # the extractor really ran over pages, templates and the engine
    missing = sorted(m for m in wanted if not (catalog.get(m) and catalog.get(m).string))
    assert not missing, f"{len(missing)} untranslated in {lang}: {missing[:10]}"
    fuzzy = sorted(m for m in wanted if catalog.get(m) and catalog.get(m).fuzzy)
    assert not fuzzy, f"fuzzy in {lang}: {fuzzy[:10]}"
    wrong = [m for m in wanted if placeholders(catalog.get(m).id) != placeholders(catalog.get(m).string)]
    assert not wrong, f"placeholders differ in {lang}: {wrong[:5]}"


def rule_error(client: Any, lang: str | None) -> dict[str, Any]:
    """A Svängknack round whose tricks add up to 4 (SK-8), as a phone in ``lang`` gets it back."""
    api = Api(client)
    api.new_night(["Anna", "Bo", "Cia"])
    m = api.new_match("svangknack", ["Anna", "Bo", "Cia"], stake="3.00")
    headers = {"Authorization": f"Bearer {api.token}"} | ({"Accept-Language": lang} if lang else {})
    resp = client.post(f"/api/matches/{m['id']}/rounds", headers=headers, json={
        "svangare": "Bo", "participants": ["Bo", "Cia"], "tricks": {"Bo": 3, "Cia": 1}})
    assert resp.status_code == 422, resp.get_json()
    return dict(resp.get_json())


def test_a_rule_message_comes_in_the_phones_language(client: Any) -> None:
    english, swedish, german = (rule_error(client, lang) for lang in (None, "sv", "de"))
    assert english["rule"] == swedish["rule"] == german["rule"] == "SK-8"
    assert len({english["error"], swedish["error"], german["error"]}) == 3
    for said in (english, swedish, german):
        assert "(SK-8)" in said["error"] and "4" in said["error"]


def test_a_page_is_written_in_each_requests_own_language(app: Any, client: Any) -> None:
    """The templates' ``_()`` keep the request's catalog for the request (``referee/messages.py``, in ``g``): the
    next request in another language gets its own, and a template rendered with no app context stays English."""
    from flask import g

    words = {"en": "Players", "sv": "Spelare", "de": "Spieler"}
    template = app.jinja_env.from_string("{{ _('Players') }}")
    for lang, word in [*words.items(), ("sv", "Spelare")]:
        with app.test_request_context("/", headers={"Accept-Language": lang}):
            assert template.render() == word, lang
            assert g.referee_catalog.ugettext("Players") == word  # kept for the rest of the request
    assert template.render() == "Players"
    for lang, word in [("sv", "Språk"), ("de", "Sprache"), ("en", "Language"), ("de", "Sprache")]:
        page = client.get("/nights/new", headers={"Accept-Language": lang}).get_data(as_text=True)
        assert f'<nav class="langs" aria-label="{word}">' in page, lang
