"""The text grids of the printed sheets (referee/reports/grid.py): widths, wrapping, void rows, rules."""

from __future__ import annotations

from referee.reports.grid import GAP, Column, Row, fit


def test_columns_fit_their_widest_value_and_numbers_align_right() -> None:
    g = fit([Column("#", right=True), Column("Player"), Column("Amount", right=True)],
            [Row(["1", "Anna", "12.00"]), Row(["10", "Jonas-Petter", "-1234.50"])])
    assert list(g.widths) == [2, 12, 8]
    lines = str(g.body()).split("\n")
    assert lines[0] == " 1  Anna             12.00"
    assert lines[1] == "10  Jonas-Petter  -1234.50"
    assert g.edges() == [2 + GAP // 2, 2 + GAP + 12 + GAP // 2]


def test_a_title_wider_than_its_values_wraps_onto_a_second_header_line() -> None:
    g = fit([Column("#", right=True), Column("Pot before", right=True)], [Row(["1", "48.00"])])
    assert g.header().split("\n") == ["#     Pot", "   before"]
    assert str(g.body()) == "1   48.00"  # as wide as "before"


def test_a_long_note_wraps_within_the_page_and_keeps_its_words_in_order() -> None:
    reason = "void: Dan had shown his cards to everybody at the table before the last trick was played"
    g = fit([Column("#", right=True), Column("Dealer"), Column("Notes", wrap=True)],
            [Row(["3", "Anna", reason], void=True), Row(["4", "Bo", ""])], page=40)
    body = str(g.body())
    assert body.startswith('<s class="void">') and "</s>\n4  Bo" in body
    struck = body.split("</s>")[0].removeprefix('<s class="void">').split("\n")
    assert len(struck) > 1 and all(len(line) <= 40 for line in struck)
    assert " ".join(" ".join(line.split()[2:] if k == 0 else line.split()) for k, line in enumerate(struck)) == reason


def test_cells_are_escaped_and_rules_drawn_between_columns() -> None:
    g = fit([Column("Player"), Column("Total", right=True)], [Row(["<Bo & Co>", "1.00"])])
    assert "&lt;Bo &amp; Co&gt;" in str(g.body())
    css = g.rules_css(row_rules=True)
    assert css.count("<rect") == 2 and "repeat-y" in css  # one vertical rule, one rule under the line
    assert fit([Column("Only")], [Row(["x"])]).rules_css() == ""
