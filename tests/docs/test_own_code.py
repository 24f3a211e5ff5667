"""docs/own-code.md's recipe, run as written (on the standard library's email package instead of pandas)."""

from __future__ import annotations

import email
import json
import os
import re
import subprocess

import pytest
from conftest import ROOT
from markdown_tables import has_cells

from qlog_pyserini.eval.trec_eval import trec_eval
from qlog_pyserini.formats.trec import read_qrels, read_run

pytestmark = pytest.mark.jvm


def recipe() -> str:
    text = (ROOT / "docs" / "own-code.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    return block


def test_own_code_recipe_runs_as_written(tmp_path):
    work = tmp_path / "own"
    env = {**os.environ, "SRC": os.path.dirname(email.__file__), "W": str(work), "QLOG_PROGRESS": "0"}
    proc = subprocess.run(["bash", "-c", recipe()], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    qrels = read_qrels(work / "bench" / "qrels.txt")
    assert len(qrels) > 100  # email's documented functions, one query each
    # eval printed trec_eval's figure for the auto run
    ndcg = trec_eval(work / "bench" / "qrels.txt", work / "run.auto.txt", metrics=["ndcg_cut.10"]).aggregate
    assert f"ndcg_cut.10  {ndcg['ndcg_cut.10']:.4f}" in proc.stdout
    summary = json.loads((work / "sweep" / "summary.json").read_text())
    assert summary["judged_queries"] == len(qrels) and "auto" in summary and "cv" in summary
    assert (work / "sweep" / "sweep.png").stat().st_size > 0
    assert set(read_run(work / "run.bm25.txt")) <= set(qrels)
    assert has_cells(proc.stdout, "ndcg_cut.10")  # compare's table
