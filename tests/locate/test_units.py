"""Units of a file: where each language's definitions start, and BM25 over a file's units."""

from __future__ import annotations

import math

import pytest

from qlog_pyserini.locate.units import TOP, bm25_idf, score_units, split_units

JAVA = """package a;

public class Storage {
  private int x;
  public Storage(int x) {
    this.x = x;
    foo(x,
      y);
    return bar(x);
  }
  @Override
  public static <T> List<T> flushPages(int count) throws IOException {
    if (x) {
    }
  }
}
"""
PYTHON = "import os\n\nclass A:\n    def f(self):\n        pass\n\nasync def g():\n    pass\n"
GO = "package x\n\ntype S struct {\n}\n\nfunc (s *S) Do() error {\n}\nfunc main() {}\n"
C = "#include <x.h>\n\nstatic int parse_value(const char *s,\n                       int n)\n{\n  return foo(s);\n}\n" \
    "struct point {\n int x;\n};\n"
JS = "import x from 'y';\nexport function render(a) {\n}\nconst f = async (a) => {\n}\nclass A {\n  method(a) {\n" \
     "    if (a) {\n    }\n  }\n}\n"
RUST = "use x;\npub fn main() {\n}\nimpl<T> Foo<T> {\n    fn bar(&self) {}\n}\n"


@pytest.mark.parametrize("text, language, expected", [
    (JAVA, "java", [(TOP, 1, 2), ("Storage", 3, 4), ("Storage", 5, 11), ("flushPages", 12, 16)]),
    (PYTHON, "python", [(TOP, 1, 2), ("A", 3, 3), ("f", 4, 6), ("g", 7, 8)]),
    (GO, "go", [(TOP, 1, 2), ("S", 3, 5), ("Do", 6, 7), ("main", 8, 8)]),
    (C, "c", [(TOP, 1, 2), ("parse_value", 3, 7), ("point", 8, 10)]),
    (JS, "javascript", [(TOP, 1, 1), ("render", 2, 3), ("f", 4, 5), ("A", 6, 6), ("method", 7, 11)]),
    (RUST, "rust", [(TOP, 1, 1), ("main", 2, 3), ("Foo<T>", 4, 4), ("bar", 5, 6)]),
    ("x = 1\n", "python", [(TOP, 1, 1)]),
    ("", "python", []),
])
def test_units_start_at_each_languages_definitions_and_cover_every_line(text, language, expected):
    units = split_units(text, language)
    assert [(u.name, u.start, u.end) for u in units] == expected
    lines = text.splitlines(keepends=True)
    assert "".join(u.text(lines) for u in units) == text


def test_unit_scores_are_bm25_over_the_files_units():
    units = [["pars", "config"], ["write", "config", "config", "text"], ["render"]]
    idf = {"config": bm25_idf(3, 100), "write": bm25_idf(1, 100)}
    scores = score_units(units, idf, k1=0.9, b=0.4)
    mean = 7 / 3
    expected = [idf["config"] * 1 / (1 + 0.9 * (0.6 + 0.4 * 2 / mean)),
                idf["config"] * 2 / (2 + 0.9 * (0.6 + 0.4 * 4 / mean)) + idf["write"] / (1 + 0.9 * (0.6 + 0.4 * 4 / mean)),
                0.0]
    assert scores == pytest.approx(expected)
    assert bm25_idf(1, 100) == pytest.approx(math.log(1 + 99.5 / 1.5))
