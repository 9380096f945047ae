"""The Knaker referee's verdict reasons in Swedish and German (issue 12, part 2), on both backends.

The reasons are sentences built from parts (a rank with its article, a count
with a plural, the top of the pile); each part is a message of its own, so
the API answers in the asker's language (``Accept-Language``), English
unchanged. Expected verdicts from ``shared/rules/knaker.md`` part B: a 5 on a
king is too low (KN-3); a fourth 5 in a row flips (KN-4.2); on a double
knäker only 2, 3, 10 or a knäker (KN-10.1); a kåk lays its lower group first
(KN-15); a 7 is transparent (KN-13); a failed chance is picked up (KN-3.3).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.test_knaker_referee_page import URL, by_id

CASES = [
    pytest.param({"pile": ["KS"], "lays": [["5H"]]}, "KN-3", {
        "en": "A 5 may not go on the king of spades: a card must be equal or higher (KN-3).",
        "sv": "En 5:a får inte läggas på spader kung: ett kort måste vara lika eller högre (KN-3).",
        "de": "Eine 5 darf nicht auf Pik König: eine Karte muss gleich oder höher sein (KN-3)."}, id="KN-3 too low"),
    pytest.param({"pile": ["5H", "5S", "5C"], "lays": [["5D"]]}, "KN-4.2", {
        "en": "That makes four 5s in a row, so the pile flips: lay again (KN-4.2).",
        "sv": "Det blir fyra 5:or i rad, så högen vänds: lägg igen (KN-4.2).",
        "de": "Das ergibt vier 5en in Folge, also wird der Stapel gewendet: leg noch einmal (KN-4.2)."},
        id="KN-4.2 four in a row"),
    pytest.param({"pile": ["XR", "XB"], "lays": [["AS"]]}, "KN-10.1", {
        "en": "On a double knäker only a 2, 3, 10 or knäker may be laid, not the ace of spades (KN-10.1).",
        "sv": "På en dubbelknäker får bara en tvåa, trea, tia eller knäker läggas, inte spader ess (KN-10.1).",
        "de": "Auf einen Doppel-Knäker darf nur eine 2, 3, 10 oder ein Knäker, nicht Pik Ass (KN-10.1)."},
        id="KN-10.1 double knäker"),
    pytest.param({"pile": [], "lays": [["KS", "KH", "KD", "5S", "5H"]]}, "KN-15", {
        "en": "In a kåk the lower group is laid first: the 5s before the kings (KN-15).",
        "sv": "I en kåk läggs den lägre gruppen först: 5:or före kungar (KN-15).",
        "de": "In einem Kåk wird die niedrigere Gruppe zuerst gelegt: erst die 5en, dann die Könige (KN-15)."},
        id="KN-15 kåk order"),
    pytest.param({"pile": ["KS", "7C"], "lays": [["5H"]]}, "KN-13", {
        "en": "The 7 is transparent, so the king of spades beneath it counts and a 5 is lower (KN-13).",
        "sv": "Sjuan är genomskinlig, så spader kung under den räknas och en 5:a är lägre (KN-13).",
        "de": "Die 7 ist durchsichtig, also zählt Pik König darunter, und eine 5 ist niedriger (KN-13)."},
        id="KN-13 beneath a 7"),
    pytest.param({"pile": ["KS"], "lays": [{"source": "chance", "cards": ["5H"]}]}, "KN-3", {
        "en": "A 5 may not go on the king of spades: a card must be equal or higher, so the chance failed: pick up "
              "the pile with that card (KN-3).",
        "sv": "En 5:a får inte läggas på spader kung: ett kort måste vara lika eller högre, så chansen misslyckades: "
              "ta upp högen med det kortet (KN-3).",
        "de": "Eine 5 darf nicht auf Pik König: eine Karte muss gleich oder höher sein, also ist die Chans misslungen: "
              "nimm den Stapel mit dieser Karte auf (KN-3)."}, id="KN-3.3 failed chance"),
    pytest.param({"pile": ["3S", "3H", "3C"], "lays": [["3D"]], "instick": True}, "KN-11.2", {
        "en": "The instick makes four 3s in a row: the pile flips and it is your turn (KN-11.2).",
        "sv": "Insticket gör fyra 3:or i rad: högen vänds och det är din tur (KN-11.2).",
        "de": "Der Instick ergibt vier 3en in Folge: der Stapel wird gewendet und du bist am Zug (KN-11.2)."},
        id="KN-11.2 instick flip"),
]


@pytest.mark.parametrize(("body", "rule", "reasons"), CASES)
def test_reasons_in_the_askers_language(client: Any, body: dict[str, Any], rule: str,
                                        reasons: dict[str, str]) -> None:
    answers = {}
    for lang, reason in reasons.items():
        resp = client.post("/api/referee/knaker/play", json=body, headers={"Accept-Language": lang})
        assert resp.status_code == 200, resp.get_data(as_text=True)
        answer = resp.get_json()
        assert (answer["rule"], answer["reason"]) == (rule, reason)
        answers[lang] = answer
    # The rule's own text is translated too; everything else is the same answer.
    assert len({a["rule_text"] for a in answers.values()}) == 3
    assert len({repr({k: v for k, v in a.items() if k not in ("reason", "rule_text", "steps")})
                for a in answers.values()}) == 1


def test_steps_and_levels_in_swedish_and_german(client: Any) -> None:
    # A legal lay's step (an ace on the empty pile), then a kajak level (double deck).
    body = {"pile": [], "lays": [["AS"]]}
    steps = {lang: client.post("/api/referee/knaker/play", json=body,
                               headers={"Accept-Language": lang}).get_json()["steps"][0]["reason"]
             for lang in ("en", "sv", "de")}
    assert steps == {"en": "Anything may be laid on an empty pile, so an ace (KN-3).",
                     "sv": "Allt får läggas på en tom hög, alltså ett ess (KN-3).",
                     "de": "Auf einen leeren Stapel darf alles, also ein Ass (KN-3)."}
    body = {"pile": ["XR", "XB"], "lays": [["XR"]], "double_deck": True}
    reasons = {lang: client.post("/api/referee/knaker/play", json=body,
                                 headers={"Accept-Language": lang}).get_json()["reason"]
               for lang in ("sv", "de")}
    assert reasons == {"sv": "Det blir en trippelkajak (KN-17.2.3).",
                       "de": "Das ergibt einen Trippel-Kajak (KN-17.2.3)."}


def test_the_page_shows_the_reason_in_swedish_and_german(client: Any) -> None:
    def page(lang: str, pile: str, lays: str) -> str:
        resp = client.post(URL, data={"pile": pile, "lays": lays, "source": "hand", "action": "ask"},
                           headers={"Accept-Language": lang})
        assert resp.status_code == 200
        return str(resp.get_data(as_text=True))

    assert by_id(page("sv", "KS", "hand:5H"), "kr-reason") == (
        "En 5:a får inte läggas på spader kung: ett kort måste vara lika eller högre (KN-3).")
    german = page("de", "XR XB", "hand:AS")
    assert by_id(german, "kr-reason") == (
        "Auf einen Doppel-Knäker darf nur eine 2, 3, 10 oder ein Knäker, nicht Pik Ass (KN-10.1).")
    assert by_id(german, "kr-rule-text") == "Auf einen Doppel-Knäker (zwei in Folge) nur eine 2, 3, 10 oder ein Knäker."
