"""A card said in words in each language (issue 50, point 4), from the app's own compiled catalogs.

The engine names a card through its message catalog (:func:`referee.engine.cards.card_name`), the same way the
server and the phone's engine (Pyodide) translate its verdicts, so a screen reader says "spader tio" and not
"10S" or "10♠". The catalogs are read with the standard library's gettext, as ``referee/offline/browser.py``
does in the browser.
"""

from __future__ import annotations

import gettext
from collections.abc import Callable
from pathlib import Path

import pytest

from referee import engine
from referee.engine import questions
from referee.engine.cards import RANKS, SUITS, Card, card_name, full_deck, rank_name

LOCALES = Path(__file__).resolve().parents[2] / "referee" / "translations"


def language(lang: str) -> Callable[[str], str]:
    if lang == "en":
        return str
    return gettext.translation("messages", LOCALES, languages=[lang]).gettext


@pytest.mark.parametrize(("lang", "names"), [
    ("en", {"10S": "ten of spades", "QH": "queen of hearts", "AD": "ace of diamonds", "2C": "two of clubs",
            "XR": "joker (red)"}),
    ("sv", {"10S": "spader tio", "QH": "hjärter dam", "AD": "ruter ess", "2C": "klöver två", "XR": "joker (röd)"}),
    ("de", {"10S": "Pik Zehn", "QH": "Herz Dame", "AD": "Karo Ass", "2C": "Kreuz zwei", "XR": "Joker (rot)"}),
])
def test_card_names_in_three_languages(lang: str, names: dict[str, str]) -> None:
    said = {code: card_name(code, language(lang)) for code in names}
    assert said == names


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_every_card_and_rank_has_its_own_translated_name(lang: str) -> None:
    translate = language(lang)
    deck = full_deck(jokers=2)
    names = {card_name(c, translate) for c in deck}
    assert len(names) == len(deck)  # no two cards said alike
    english = {card_name(c) for c in deck}
    assert not names & english  # every name is in the language, none left English
    ranks = [rank_name(r, translate) for r in RANKS]
    assert len(set(ranks)) == len(RANKS) and not set(ranks) & {"J", "Q", "K", "A", "jack", "queen", "king", "ace"}
    assert all(card_name(Card(r, s), translate) for r in RANKS for s in SUITS)


def test_a_verdict_names_its_cards_in_the_readers_language() -> None:
    # Svängknack, hearts trumps: Bo under-plays 5♠ to 9♠ though he shows K♠ in the next trick (SK-15).
    deal = {"game": "svangknack", "trump": "H", "players": ["Anna", "Bo", "Cia"], "leader": "Anna",
            "tricks": [["9S", "5S", "2S"], ["3S", "KS", "4S"]]}
    out = {lang: questions.answer("tricks", deal, language(lang)) for lang in ("en", "sv", "de")}
    assert out["en"]["reason"] == "Bo had to beat nine of spades with king of spades (forced overtaking, SK-15)."
    assert "spader nio" in out["sv"]["reason"] and "spader kung" in out["sv"]["reason"]
    assert "Pik Neun" in out["de"]["reason"] and "Pik König" in out["de"]["reason"]
    assert [out[lang]["card_name"] for lang in ("en", "sv", "de")] == ["five of spades", "spader fem", "Pik fünf"]
    assert all(o["card"] == "5S" for o in out.values())  # the contract's code is unchanged


def test_an_engine_error_names_the_card_in_words() -> None:
    with pytest.raises(engine.RuleViolation) as caught:
        questions.answer("schwimmen/value", {"cards": ["6C", "7C", "8C"], "deck": 32})
    assert engine.explain(caught.value, language("sv")).startswith("klöver sex")
