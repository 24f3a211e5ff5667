"""The demo's table: the curve, then the label-free, the cross-validated and the oracle q against BM25."""

from __future__ import annotations

from markdown_tables import markdown_rows

from qlog_pyserini.demo.embedded import format_table


def test_table_shows_auto_and_cross_validated_q_beside_the_oracle():
    rows = [{"corpus": "stdlib", "docs": 1000, "queries": 100, "auto_q": 0.85, "cv_score": 0.42, "cv_qs": [0.5, 0.7],
             "scores": {1.0: 0.40, 0.7: 0.44, 0.5: 0.43, 0.85: 0.41}}]
    text = format_table(rows, (1.0, 0.7, 0.5))
    header_line, rule, _ = text.splitlines()
    header, cells = markdown_rows(text)
    assert header == ["corpus", "docs", "queries", "BM25 (q=1)", "q=0.7", "q=0.5", "label-free q (auto)",
                      "5-fold cross-validated q", "oracle q (best on the curve)"]
    assert cells[:3] == ["stdlib", "1,000", "100"]
    assert cells[3:6] == ["0.4000", "**0.4400**", "0.4300"]
    assert cells[6:] == ["q=0.85: 0.4100 (+2.5%)", "q=0.5/0.7: 0.4200 (+5.0%)", "q=0.7: 0.4400 (+10.0%)"]
    assert rule.count("|") == header_line.count("|")
