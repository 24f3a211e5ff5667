"""The units of a source file (its functions, classes, types) and which of them a query's terms point at.

A file is split where a line starts a definition of its language
(:data:`~qlog_pyserini.localize.symbols.DEFINITION_STARTS`: one regular expression a language, ``def``/``class``
in Python, ``func``/``type ... struct`` in Go, ``fn``/``struct``/``impl`` in Rust, a declaration line ending in
``(`` ... in C-like languages); a unit runs from its start line to the line
before the next start, so a class's unit is its header up to its first method. Lines before the first start
are the unit ``(top of file)``. A regex, not a parser: cheap on the few files a query ranks, and wrong only at
the edges (a definition spread over lines starts where its name is).

A unit's score is BM25's over the query's terms, the file's units as the documents: each query term's IDF is
the index's (the same analyzer's terms, so a unit matches exactly what made the file match), its term
frequency is saturated with ``k1`` and normalised by the unit's length against the file's mean unit length.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Mapping, Sequence

from qlog_pyserini.localize.symbols import DEFINITION_STARTS

TOP = "(top of file)"


@dataclass(frozen=True)
class Unit:
    """A span of a file: its name and its first and last lines (1-based, inclusive)."""

    name: str
    start: int
    end: int

    def text(self, lines: Sequence[str]) -> str:
        return "".join(lines[self.start - 1:self.end])


def split_units(text: str, language: str) -> list[Unit]:
    """The units of ``text`` (a file of ``language``), in file order, covering every line."""
    lines = text.splitlines(keepends=True)
    if not lines:
        return []
    pattern = DEFINITION_STARTS.get(language)
    starts: list[tuple[int, str]] = []
    if pattern is not None:
        match = pattern.match
        for number, line in enumerate(lines, 1):
            # a cheap test first: every start holds a letter and is not a blank or a comment line
            stripped = line.lstrip()
            if not stripped or stripped[0] in "/*#@}{)\"'" or not (m := match(line.rstrip("\r\n"))):
                continue
            starts.append((number, next((v for v in m.groupdict().values() if v), "?").strip()))
    if not starts or starts[0][0] > 1:
        starts.insert(0, (1, TOP))
    return [Unit(name, start, (starts[i + 1][0] - 1) if i + 1 < len(starts) else len(lines))
            for i, (start, name) in enumerate(starts)]


def score_units(unit_terms: Sequence[Sequence[str]], idf: Mapping[str, float], k1: float, b: float) -> list[float]:
    """BM25 of each unit (its analyzed terms) for the query terms of ``idf`` (term -> IDF), the units as the
    documents (see the module docstring)."""
    if not unit_terms:
        return []
    lengths = [len(t) for t in unit_terms]
    mean = (sum(lengths) / len(lengths)) or 1.0
    scores = []
    for terms, length in zip(unit_terms, lengths):
        counts = Counter(t for t in terms if t in idf)
        norm = k1 * (1 - b + b * length / mean)
        scores.append(sum(idf[t] * f / (f + norm) for t, f in counts.items()))
    return scores


def bm25_idf(df: int, n: int) -> float:
    """Lucene's BM25 IDF, ``log(1 + (N - df + 0.5) / (df + 0.5))``."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5))
