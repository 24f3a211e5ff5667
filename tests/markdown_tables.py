"""Markdown pipe tables read back into their cells, so tests compare what a report's tables hold and not how
wide the pipe table writer padded them."""

from __future__ import annotations

import re

_SPLIT = re.compile(r"(?<!\\)\|")  # a pipe a cell escapes (\|) is the cell's own
_RULE = re.compile(r":?-{3,}:?")


def markdown_rows(text: str) -> list[list[str]]:
    """The rows of every pipe table in ``text``, header rows included, separator rows left out: a row is a line
    that starts and ends with ``|``, its cells stripped of padding."""
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if len(line) < 2 or not (line.startswith("|") and line.endswith("|")):
            continue
        cells = [c.strip() for c in _SPLIT.split(line[1:-1])]
        if not all(_RULE.fullmatch(c) for c in cells):
            rows.append(cells)
    return rows


def has_cells(text: str, *cells: str) -> bool:
    """Whether a row of a table in ``text`` holds ``cells`` side by side (as ``"| a | b |" in text`` asks of a
    table with no padding)."""
    n = len(cells)
    return any(list(row[i:i + n]) == list(cells) for row in markdown_rows(text) for i in range(len(row) - n + 1))


def row_of(text: str, first: str) -> list[str]:
    """The one row of the tables in ``text`` whose first cell is ``first``."""
    found = [row for row in markdown_rows(text) if row and row[0] == first]
    assert len(found) == 1, f"{len(found)} rows start with {first!r}"
    return found[0]
