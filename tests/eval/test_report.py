"""The one cell formatter and the one markdown table writer of the reports."""

from __future__ import annotations

import math

from qlog_pyserini.eval.report import cell, markdown_table


def test_cell_formats_a_value_and_marks_a_missing_one():
    assert cell(0.123456) == "0.1235" and cell(0.0123, "+.1%") == "+1.2%" and cell(0.5, ".3f") == "0.500"
    assert cell(None) == cell(math.nan) == "n/a"


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def test_markdown_table_keeps_every_cell_as_given_in_columns_that_line_up():
    rows = [["python", "0.3000", "n/a"], ["ruby-on-rails", "1.0000", "+2.5%"]]
    text = markdown_table(rows, ["corpus", "bm25", "gain"], align=["left", "right", "right"])
    lines = text.splitlines()
    assert text.endswith("\n") and len(lines) == 2 + len(rows)
    assert _cells(lines[0]) == ["corpus", "bm25", "gain"]
    rule = _cells(lines[1])
    assert rule[0].startswith(":-") and all(c.endswith("-:") and set(c) == {"-", ":"} for c in rule[1:])
    assert [_cells(line) for line in lines[2:]] == rows  # numbers as written: "0.3000" is not reparsed to 0.3
    assert len({len(line) for line in lines}) == 1  # one width per column
