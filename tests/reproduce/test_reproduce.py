"""scripts/reproduce --quick end to end, on a tiny slice of the standard library (no downloads)."""

from __future__ import annotations

import json
import subprocess

import pandas as pd
import pytest
from conftest import ROOT  # noqa: E402
from markdown_tables import has_cells

from qlog_pyserini.reproduce.__main__ import main

pytestmark = pytest.mark.jvm  # every test here starts the JVM or runs Java


def test_reproduce_quick_end_to_end(tmp_path):
    out, work = tmp_path / "results", tmp_path / "work"
    args = ["--quick", "--languages", "python", "--max-docs", "400", "--queries", "40", "--grid", "0.5,1.0",
            "--resamples", "200", "--threads", "2", "--work", str(work), "--out", str(out),
            "--shared", str(tmp_path / "no-shared-data"), "--repos", str(tmp_path / "no-repos"),
            "--issue-reports", str(tmp_path / "no-issue-reports"),
            "--skip", "auto-query,bench,engines"]  # those stages: test_stages.py
    assert main(args) == 0
    main_table = pd.read_csv(out / "main.csv")
    assert list(main_table["idf_form"]) == ["lucene", "rsj"]
    assert set(main_table["docs"]) == {400} and set(main_table["queries"]) == {40}
    for r in main_table.to_dict("records"):
        assert r["at_q_opt"] >= r["bm25"] and r["q_opt"] in (0.5, 1.0)
        # gain is the paired mean difference of per-query values; the aggregates are rounded to 4 decimals
        assert abs(r["gain"] - (r["at_q_opt"] - r["bm25"])) <= 1.01e-4
        assert 0 < r["q_auto"] <= 1 and {float(v) for v in str(r["cv_q"]).split("/")} <= {0.5, 1.0}
        # a cross-validated choice cannot beat the oracle on the same grid (trec_eval rounds the oracle to 4 decimals)
        assert r["cv"] <= r["at_q_opt"] + 5e-5
    ablation = pd.read_csv(out / "ablation.csv")
    assert set(ablation["analyzer"]) == {"generic (Anserini default)", "identifier-aware"}
    assert (out / "ndcg_vs_q.png").read_bytes()[:4] == b"\x89PNG"
    md = (out / "main.md").read_text()
    assert "Produced by `scripts/reproduce --quick" in md and has_cells(md, "python-code", "lucene", "400", "40")
    info = json.loads((out / "provenance.json").read_text())
    assert info["stages"]["main"]["seconds"] > 0
    # the evidence stage: the cross-validated table from the same sweeps, each recording its family
    cv = pd.read_csv(out / "sweeps-cv.csv")
    assert len(cv) == 1 and cv["bm25"].iloc[0] == main_table.loc[0, "bm25"]
    summary = json.loads((work / "quick" / "sweeps" / "python-code-lucene" / "summary.json").read_text())
    assert summary["family"] == "python-code" and summary["provenance"]["command"].startswith("scripts/reproduce --quick")
    assert "Produced by `scripts/reproduce --quick" in (out / "sweeps-cv.md").read_text()
    assert not (out / "lolo.md").exists()  # one family: nothing to hold out
    # tuned BM25 beside q-log, from the same sweep's pass: the engines' default, tuned BM25, the joint (b, q) choice
    tuned = summary["tuned"]
    assert cv["tuned_cv"].iloc[0] == tuned["bm25"]["score"] and cv["engine_bm25"].iloc[0] == tuned["engine"]["score"]
    assert cv["cv"].iloc[0] == tuned["qlog"]["score"]  # q's own cross-validation, the same folds
    text = (out / "sweeps-cv.md").read_text()
    assert "## Tuned BM25 beside q-log" in text and has_cells(text, f"{tuned['bm25']['score']:.4f}")
    # a second run reuses every cached step and gives the same table
    assert main(args) == 0
    assert pd.read_csv(out / "main.csv").equals(main_table)


def test_reproduce_script_refuses_unknown_language():
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "reproduce"), "--languages", "cobol"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and "unknown language(s) cobol" in proc.stderr
