"""The per-term boosts against an independent computation of idf_q / idf with math.log and pow."""

from __future__ import annotations

import math

import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.rewrite.boosts import term_boosts, term_weight


def _ratio(n: int, N: int, q: float, form: str) -> float:
    rsj = (N - n + 0.5) / (n + 0.5)
    x = 1 + rsj if form == "lucene" else rsj
    lnq = math.log(x) if q == 1 else (x ** (1 - q) - 1) / (1 - q)
    return max(0.0, lnq) / math.log(1 + rsj)


@pytest.mark.parametrize("form", ["lucene", "rsj"])
@pytest.mark.parametrize("q", [1.0, 0.7, 0.3, 1.5])
@pytest.mark.parametrize("n", [0, 1, 7, 499, 500, 501, 1000])
def test_weight_is_qlog_idf_over_bm25_idf(n: int, q: float, form: str) -> None:
    assert term_weight(n, 1000, q, form) == pytest.approx(_ratio(n, 1000, q, form), rel=1e-12, abs=1e-15)


def test_q1_lucene_is_bm25_and_rsj_over_half_is_zero() -> None:
    assert term_weight(10, 1000, 1.0, "lucene") == 1.0
    assert term_weight(501, 1000, 0.7, "rsj") == 0.0  # odds below 1: idf_q floored at 0
    assert term_weight(499, 1000, 0.7, "rsj") > 0.0


def test_repeated_absent_and_several_fields() -> None:
    terms = [("body", "parse"), ("body", "json"), ("body", "parse"), ("title", "parse"), ("body", "nowhere")]
    df = {("body", "parse"): 40, ("body", "json"): 3, ("title", "parse"): 5}
    boosts = term_boosts(terms, df, {"body": 1000, "title": 200}, q=0.5)
    by = {(b.field, b.term): b for b in boosts}
    assert [(b.field, b.term) for b in boosts] == [("body", "parse"), ("body", "json"), ("title", "parse"),
                                                   ("body", "nowhere")]
    assert by["body", "parse"].count == 2
    assert by["body", "parse"].boost == pytest.approx(2 * _ratio(40, 1000, 0.5, "lucene"))
    assert by["title", "parse"].boost == pytest.approx(_ratio(5, 200, 0.5, "lucene"))  # its own field's N
    assert by["body", "nowhere"].df == 0
    assert by["body", "nowhere"].boost == pytest.approx(_ratio(0, 1000, 0.5, "lucene"))


@pytest.mark.parametrize("n, N, words", [(5, 0, "N >= 1"), (11, 10, "n <= N"), (-1, 10, "0 <= n")])
def test_impossible_statistics_are_refused(n: int, N: int, words: str) -> None:
    with pytest.raises(QLogError, match=words):
        term_weight(n, N, 0.7)


def test_bad_q_and_form_are_refused() -> None:
    with pytest.raises(QLogError, match="illegal q value"):
        term_weight(1, 10, 7.0)
    with pytest.raises(QLogError, match="illegal idf form"):
        term_weight(1, 10, 0.7, "bm25")


def test_worked_example_of_the_specification() -> None:
    """docs/rewrite.md's worked example: its table and query JSON are what the library computes."""
    import json
    import math
    import re
    from pathlib import Path

    from qlog_pyserini.rewrite.boosts import term_boosts
    from qlog_pyserini.rewrite.http import elasticsearch_query

    doc = (Path(__file__).resolve().parents[2] / "docs" / "rewrite.md").read_text()
    section = doc[doc.index("Worked example"):]
    ordered = term_boosts([("contents", "pars"), ("contents", "json"), ("contents", "json")],
                          {("contents", "json"): 10, ("contents", "pars"): 600}, {"contents": 1000}, 0.7)
    boosts = {b.term: b for b in ordered}
    rows = re.findall(r"^\| (json|pars) \| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|$",
                      section, re.MULTILINE)
    assert [r[0] for r in rows] == ["json", "pars"]
    for term, count, x, idf, lnq, w, boost in rows:
        b = boosts[term]
        odds = 1 + (1000 - b.df + 0.5) / (b.df + 0.5)
        want = (b.count, odds, math.log(odds), (odds ** 0.3 - 1) / 0.3, b.weight, b.boost)
        assert (int(count), *map(float, (x, idf, lnq, w, boost))) == pytest.approx(want, abs=5e-7), term
    block = section[section.index("```json") + 7:]
    shown = json.loads(block[:block.index("```")])
    computed = elasticsearch_query(ordered)
    for clause in computed["bool"]["should"]:
        clause["term"]["contents"]["boost"] = round(clause["term"]["contents"]["boost"], 6)
    assert shown == computed
