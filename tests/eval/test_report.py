"""The one cell formatter and the one markdown table writer of the reports."""

from __future__ import annotations

import math

import pytest
from markdown_tables import markdown_rows

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
    assert markdown_rows(text) == [["corpus", "bm25", "gain"], *rows]  # the tests' reader agrees


def test_markdown_table_takes_one_letter_a_column_and_keeps_markdown_in_cells():
    rows = [["**0.4000**", "`--q auto`", "a, b"]]
    text = markdown_table(rows, ["best", "flag", "list"], "rcl")
    assert text == markdown_table(rows, ["best", "flag", "list"], ["right", "center", "left"])
    assert [c[0] + c[-1] for c in _cells(text.splitlines()[1])] == ["-:", "::", ":-"]
    assert markdown_rows(text)[1] == rows[0]
    with pytest.raises(ValueError, match="2 alignments for 3 columns"):
        markdown_table(rows, ["best", "flag", "list"], "rl")
