"""Messages built from parts (referee.engine.Msg): translated piece by piece, kept as plain records."""

from __future__ import annotations

from referee.engine import N_, Arg, Msg, RuleViolation, as_msg, explain, msg
from referee.engine.knaker_pile import judge, parse_play
from referee.engine.records import dump, load

FAKE = {"a %(rank)s": "en %(rank)s:a", "%(word)s may not go on %(top)s: a card must be equal or higher (KN-3).":
        "%(word)s får inte läggas på %(top)s (KN-3).", "the %(card)s": "%(card)s"}


def fake(text: str) -> str:
    return FAKE.get(text, text)


def test_parts_are_translated_and_capitalised_after_filling() -> None:
    word = msg(N_("a %(rank)s"), cap=True, rank="5")
    assert (str(word), word.text(fake)) == ("A 5", "En 5:a")
    whole = msg("%(word)s may not go on %(top)s: a card must be equal or higher (KN-3).", rule="KN-3", word=word,
                top=msg("the %(card)s", card="K♠"))
    assert str(whole) == "A 5 may not go on the K♠: a card must be equal or higher (KN-3)."
    assert whole.text(fake) == "En 5:a får inte läggas på K♠ (KN-3)."


def test_a_rule_violation_with_parts_reads_the_same_as_its_message() -> None:
    v = RuleViolation("KN-3", "%(word)s may not go on %(top)s: a card must be equal or higher (KN-3).",
                      word=msg("a %(rank)s", cap=True, rank="5"), top=msg("the %(card)s", card="K♠"))
    assert v.message == explain(v) == str(as_msg(v))
    assert explain(v, fake) == as_msg(v).text(fake) == "En 5:a får inte läggas på K♠ (KN-3)."
    stripped = Msg("%(why)s", (Arg("why", msg=msg("x %(v)s", v=v)),), strip="KN-3")
    assert stripped.text() == "x A 5 may not go on the K♠: a card must be equal or higher"


def test_verdicts_with_messages_are_plain_records() -> None:
    for body in ({"pile": ["KS"], "lays": [{"source": "chance", "cards": ["5H"]}]},
                 {"pile": ["5H", "5S", "5C"], "lays": [["5D"]]}):
        verdict = judge(parse_play(body))
        assert load(type(verdict), dump(verdict)) == verdict
        assert load(type(verdict), dump(verdict)).reason == verdict.reason
