"""A figure quoted in README.md or docs/ that names the results file it comes from must be in that file.

A figure is written once, by the command that measured it, into ``results/``; prose cites the file. Where prose
quotes a figure beside its citation (a table row or a paragraph naming ``results/<file>``), the figure must be one
of that file's numbers (at the precision quoted), so a re-run that changes the number fails here instead of
leaving a stale copy. Numbers that are settings, not measurements, are not figures: versions (``Lucene 10.5``),
parameter values (``q = 0.7``, ``k1 = 1.2``) and anything in code spans.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CITATION = re.compile(r"results/([A-Za-z0-9_.-]+\.(?:md|csv|json))")
NUMBER = re.compile(r"(?<![\w.])[+-]?\d[\d,]*\.\d+(?![\w.])")
# settings, not measurements: code spans, links' targets, versions after a name, parameter lists after '='
NOT_FIGURES = re.compile(r"`[^`]*`|\]\([^)]*\)|\b[A-Z][A-Za-z]+ \d+(?:\.\d+)+(?:\s*(?:,|and)\s*\d+(?:\.\d+)+)*|\b(?:q|k|k1|b|mu|gamma|D|a|floor)"
                         r"\s*=\s*[\d.]+(?:\s*(?:,|and|or|to)\s*[\d.]+)*")


def units(text: str) -> list[tuple[int, str]]:
    """(first line, text) of each table row and each paragraph."""
    out, para, start = [], [], 0
    for i, line in enumerate(text.splitlines(), 1):
        if line.startswith("|") or not line.strip():
            if para:
                out.append((start, " ".join(para)))
                para = []
            if line.startswith("|"):
                out.append((i, line))
            continue
        if not para:
            start = i
        para.append(line)
    if para:
        out.append((start, " ".join(para)))
    return out


def _value(token: str) -> float:
    return float(token.replace(",", "").lstrip("+"))


def stale_figures(doc: Path, root: Path = ROOT) -> list[str]:
    """Each figure of ``doc`` not found in the results files its table row or paragraph cites."""
    found = []
    for line, unit in units(doc.read_text()):
        cited = [root / "results" / name for name in CITATION.findall(unit)]
        cited = [c for c in dict.fromkeys(cited) if c.is_file()]
        if not cited:
            continue
        values = [_value(t) for c in cited for t in NUMBER.findall(c.read_text())]
        for token in NUMBER.findall(NOT_FIGURES.sub(" ", unit)):
            decimals = len(token.split(".")[1])
            figure = _value(token)
            if not any(round(abs(v), decimals) == round(abs(figure), decimals) for v in values):
                found.append(f"{doc.relative_to(root)}:{line}: {token} is in none of {[c.name for c in cited]}")
    return found


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_figure_beside_a_results_citation_is_in_that_file(doc):
    assert stale_figures(doc) == []


def test_a_planted_stale_figure_is_caught(tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "bench.md").write_text("| side | ratio |\n|---|---:|\n| rewrite | 1.022 |\n")
    doc = tmp_path / "doc.md"
    doc.write_text("The rewrite costs 1.02 of BM25 on Lucene 10.5 at q = 0.5 (`results/bench.md`).\n\n"
                   "Elsewhere 1.07 is quoted without a citation.\n\n"
                   "| route | cost |\n|---|---|\n| rewrite | 1.05 ([results/bench.md](results/bench.md)) |\n")
    assert stale_figures(doc, tmp_path) == ["doc.md:7: 1.05 is in none of ['bench.md']"]


def test_the_verb_tables_list_every_verb():
    from qlog_pyserini.__main__ import VERBS

    for doc in (ROOT / "README.md", ROOT / "docs" / "cli.md"):
        listed = set(re.findall(r"^\| `([\w.]+)[ `]", doc.read_text(), flags=re.MULTILINE))
        assert set(VERBS) <= listed, (doc.name, sorted(set(VERBS) - listed))
