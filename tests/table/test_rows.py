"""The `table` verb's library: one table from several sweep folders, and the label-free q recomputed from a sweep."""

from __future__ import annotations

import pandas as pd
import pytest
from markdown_tables import markdown_rows, row_of

from qlog_pyserini.errors import QLogError
from qlog_pyserini.sweep.run import SweepSettings, run_sweep


def test_table_gathers_sweeps(tmp_path, stdlib_index, stdlib_code, stdlib_qrels):
    from qlog_pyserini.table.__main__ import main
    from qlog_pyserini.table.rows import format_markdown, load_summary, table_rows

    out = tmp_path / "sweep"
    s = run_sweep(stdlib_index, stdlib_code[1], stdlib_qrels, out, SweepSettings(grid=(0.5,), hits=20, resamples=200),
                  progress=False, name="stdlib-mini")
    table = table_rows([load_summary(out)])
    row = table.iloc[0]
    assert row["corpus"] == "stdlib-mini" and row["bm25"] == s["baseline_score"]
    assert row["gain"] == pytest.approx(s["oracle_score"] - s["baseline_score"], abs=1e-9)
    md = format_markdown(table)
    assert md.count("\n") == 3 and len(markdown_rows(md)) == 2  # header, separator, one row
    assert row_of(md, "stdlib-mini")[3] == f"{s['baseline_score']:.4f}"  # BM25
    assert main(["--sweeps", str(out), "--output", str(tmp_path / "t.md"), "--csv", str(tmp_path / "t.csv")]) == 0
    assert "Produced by `python -m qlog_pyserini.table" in (tmp_path / "t.md").read_text()
    assert pd.read_csv(tmp_path / "t.csv").shape[0] == 1
    # --auto current: the current rule's q for the sweep's index, scored from the sweep's own per-query data
    from qlog_pyserini.predict.rule import predict_q

    assert main(["--sweeps", str(out), "--auto", "current", "--csv", str(tmp_path / "t2.csv")]) == 0
    row2 = pd.read_csv(tmp_path / "t2.csv").iloc[0]
    want = predict_q(stdlib_index).q
    assert row2["auto"] == want and row2["at_auto"] == s["scores"][f"{want:g}"]
    with pytest.raises(QLogError, match="not a sweep folder"):
        load_summary(tmp_path)



def test_table_current_auto_query_reads_what_the_one_pass_run_measured(tmp_path, stdlib_index, stdlib_code,
                                                                        stdlib_qrels):
    """The table's recomputation (grid lookups per query) against the sweep's own one-pass auto-query run."""
    from qlog_pyserini.predict.query_rule import QueryRuleSettings
    from qlog_pyserini.predict.rule import RuleSettings, predict_with
    from qlog_pyserini.table.rows import current_auto_query

    corpus_rule = RuleSettings(shrink_docs=0)  # this small corpus keeps BM25 under the default shrinkage
    out = tmp_path / "sweep"
    summary = run_sweep(stdlib_index, stdlib_code[1], stdlib_qrels, out,
                        SweepSettings(grid=tuple(x / 20 for x in range(6, 21)), hits=30, resamples=100),
                        progress=False, prediction=predict_with(stdlib_index, corpus_rule),
                        query_rule=QueryRuleSettings())
    again = current_auto_query(summary, out, corpus_rule=corpus_rule)
    assert len(summary["auto_query"]["q_distribution"]) >= 2
    assert again["q_distribution"] == summary["auto_query"]["q_distribution"]
    assert again["score"] == pytest.approx(summary["auto_query"]["score"], abs=1e-4)
