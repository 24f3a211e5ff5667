"""A file's units: its functions and methods (tree-sitter), the lines between them, or windows of lines.

A localizer ranks units and scores a file by them, so that one long file is not judged as one bag of words.
:func:`file_units` cuts one file's text into line ranges:

- in a language with a grammar (:data:`qlog_pyserini.corpus.languages.UNIT_EXTENSIONS`: C, C#, C++, Go, Java,
  JavaScript, Kotlin, PHP, Python, Ruby, Rust, Scala, Swift, TypeScript), every outermost function or method is a unit (the grammar
  tables' function query; a function nested in another stays in its parent's unit), and the lines outside every
  function (imports, fields, class headers, top-level statements) are cut into units of at most :data:`WINDOW`
  lines;
- in any other language, windows of :data:`WINDOW` lines every :data:`STRIDE` lines, so that every passage of up
  to ``WINDOW - STRIDE`` lines lies whole in one window.

Every line of the file belongs to some unit, so a file's units together hold its whole text. A unit document's
id is ``path#start-end`` (1-based lines, inclusive) and its text starts with the file's path, as the file's
own document does.

    >>> [(u.start, u.end) for u in file_units("a.txt", "x\\n" * 120)]
    [(1, 50), (26, 75), (51, 100), (76, 120)]
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Iterator, Sequence

WINDOW = 50  # lines: a screenful, the size of most functions; the common passage size of code localizers
STRIDE = 25  # half a window: windows overlap by half, so a passage is never only split
UNIT_SEPARATOR = "#"
#: how files are cut; an index or cache of units records it and is rebuilt when it differs (2: grammars for C,
#: C++, Rust and TypeScript)
UNITS_VERSION = 2


@dataclass(frozen=True)
class Unit:
    """Lines ``start``..``end`` (1-based, inclusive) of a file; ``kind`` is ``function``, ``rest`` (lines outside
    every function) or ``window``."""

    start: int
    end: int
    kind: str

    def docid(self, path: str) -> str:
        return f"{path}{UNIT_SEPARATOR}{self.start}-{self.end}"


class UnitCache:
    """:func:`file_units` remembered by the file's extension and text: the states of one repository share most of
    their files, and parsing each distinct file once is what makes indexing a history's units affordable."""

    def __init__(self) -> None:
        self._units: dict[tuple[str, bytes], list[Unit]] = {}

    def units(self, path: str, text: str) -> list[Unit]:
        key = (PurePosixPath(path).suffix.lower(), hashlib.sha1(text.encode("utf-8", "surrogatepass")).digest())
        if key not in self._units:
            self._units[key] = file_units(path, text)
        return self._units[key]


def unit_path(docid: str) -> str:
    """The file path of a unit's docid (``a/b.py#3-9`` -> ``a/b.py``)."""
    return docid.rpartition(UNIT_SEPARATOR)[0] or docid


def _windows(first: int, last: int, size: int, stride: int) -> Iterator[tuple[int, int]]:
    start = first
    while True:
        end = min(start + size - 1, last)
        yield start, end
        if end >= last:
            return
        start += stride


def _function_spans(path: str, text: str) -> list[tuple[int, int]] | None:
    """Line spans (1-based, inclusive) of the outermost functions, or None when the language has no grammar."""
    from qlog_pyserini.corpus.languages import UNIT_EXTENSIONS, grammar

    language = UNIT_EXTENSIONS.get(PurePosixPath(path).suffix.lower())
    if language is None:
        return None
    from tree_sitter import QueryCursor

    parser, query = grammar(language)
    tree = parser.parse(text.encode("utf-8", "surrogatepass"))
    nodes = QueryCursor(query).captures(tree.root_node).get("fn", [])
    spans = sorted({(n.start_point[0] + 1, n.end_point[0] + 1) for n in nodes}, key=lambda s: (s[0], -s[1]))
    outer: list[tuple[int, int]] = []
    for start, end in spans:
        if outer and start <= outer[-1][1]:
            continue  # inside (or overlapping) the function before it: it stays in that unit
        outer.append((start, end))
    return outer


def file_units(path: str, text: str) -> list[Unit]:
    """The units of the file ``path`` whose text is ``text`` (see the module docstring), in line order."""
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    lines = max(lines, 1)
    spans = _function_spans(path, text)
    if spans is None:
        return [Unit(s, e, "window") for s, e in _windows(1, lines, WINDOW, STRIDE)]
    units = [Unit(s, min(e, lines), "function") for s, e in spans]
    covered = set()
    for s, e in spans:
        covered.update(range(s, e + 1))
    gap_start = None
    for line in range(1, lines + 2):
        if line <= lines and line not in covered:
            gap_start = line if gap_start is None else gap_start
        elif gap_start is not None:
            units += [Unit(s, e, "rest") for s, e in _windows(gap_start, line - 1, WINDOW, WINDOW)]
            gap_start = None
    return sorted(units, key=lambda u: (u.start, u.end))


def unit_documents(path: str, text: str, units: Sequence[Unit] | None = None) -> Iterator[tuple[str, str]]:
    """``(docid, contents)`` of every unit of a file (``units``, when the caller has them, else
    :func:`file_units`): the contents are the path, a newline and the unit's lines, as a file's document is its
    path, a newline and its text. Blank units are left out."""
    rows = text.split("\n")
    for unit in file_units(path, text) if units is None else units:
        body = "\n".join(rows[unit.start - 1:unit.end])
        if body.strip():
            yield unit.docid(path), f"{path}\n{body}"


UNITS_SUFFIX = ".units"  # DIR/<key>.units/: the units index of corpus <key> (keys are hex digests)


def units_index(index_dir: str | os.PathLike, key: str) -> Path:
    """The folder of the units index of corpus ``key`` in the folder of indexes ``index_dir``."""
    return Path(index_dir) / f"{key}{UNITS_SUFFIX}"
