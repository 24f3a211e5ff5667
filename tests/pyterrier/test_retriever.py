"""QLogRetriever in PyTerrier's own machinery (pt.Experiment, >>, pt.GridSearch) on CSN-Ruby, against our CLI.

The references are independent of the transformer: the run files of ``python -m qlog_pyserini.search``
(a separate process and JVM), trec_eval's figures through our ``eval`` library, and scipy's paired
t-test on trec_eval's per-query values for PyTerrier's significance column.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import ROOT

from qlog_pyserini.eval.trec_eval import trec_eval
from qlog_pyserini.formats.frames import read_qrels_frame, read_run_frame, read_topics_frame, run_frame
from qlog_pyserini.lucene.batch import search_topics
from qlog_pyserini.lucene.searcher import QLogSearcher
from qlog_pyserini.sweep.frames import sweep_on_frames
from qlog_pyserini.sweep.run import SweepSettings

pytestmark = pytest.mark.jvm


@pytest.fixture(scope="module")
def pt():
    """PyTerrier, imported by the first test that runs (not at collection: it takes most of a second)."""
    return pytest.importorskip("pyterrier")


@pytest.fixture(scope="module")
def terrier(pt):
    """Our transformers (:mod:`qlog_pyserini.pyterrier` imports PyTerrier)."""
    from qlog_pyserini import pyterrier

    return pyterrier

HITS = 100
# ir_measures names beside the trec_eval measures our eval reports
MEASURES = {"nDCG@10": "ndcg_cut.10", "RR": "recip_rank", "AP": "map", "R@100": "recall.100"}


def search_cli(tmp_path, index, topics, name: str, *flags: str) -> tuple[subprocess.Popen, Path]:
    """``python -m qlog_pyserini.search`` started in its own process (and JVM): (the process, its run file)."""
    out = tmp_path / f"{name}.txt"
    proc = subprocess.Popen([sys.executable, "-m", "qlog_pyserini.search", "--index", str(index), "--topics",
                             str(topics), "--output", str(out), "--hits", str(HITS), "--quiet", *flags],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    return proc, out


@pytest.fixture(scope="module")
def searcher(csn_ruby):
    with QLogSearcher(csn_ruby[1]) as s:
        yield s


@pytest.fixture(scope="module")
def cli_runs(csn_ruby, tmp_path_factory):
    """The search verb's runs of BM25 and q = 0.7, each from its own process (the two run at once)."""
    data, index = csn_ruby
    folder = tmp_path_factory.mktemp("cli-runs")
    started = {name: search_cli(folder, index, data / "topics.tsv", name, *flags)
               for name, flags in (("bm25", ["--similarity", "bm25"]), ("qlog", ["--q", "0.7"]))}
    # two independent fresh processes: they run side by side, each on its own core when the machine has one free
    for name, (proc, _) in started.items():
        _, stderr = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"{name}: {stderr}"
    return {name: run for name, (_, run) in started.items()}


def test_results_equal_the_search_cli_run(csn_ruby, searcher, cli_runs, terrier):
    QLogRetriever = terrier.QLogRetriever
    topics = read_topics_frame(csn_ruby[0] / "topics.tsv")
    for name, retriever in (("qlog", QLogRetriever(searcher, q=0.7, num_results=HITS)),
                            ("bm25", QLogRetriever(searcher, similarity="bm25", num_results=HITS))):
        got = retriever(topics)
        assert list(got.columns) == ["qid", "query", "docno", "rank", "score"]
        cli_run = read_run_frame(cli_runs[name])
        pd.testing.assert_frame_equal(got[["qid", "docno", "rank", "score"]], cli_run)
        # the query text travels with every hit, as PyTerrier's retrievers keep it
        assert (got["query"] == got["qid"].map(dict(zip(topics["qid"], topics["query"])))).all()


def test_experiment_gives_our_eval_figures_and_scipy_p_values(csn_ruby, searcher, cli_runs, pt, terrier):
    from scipy import stats

    QLogRetriever = terrier.QLogRetriever
    data = csn_ruby[0]
    topics, qrels = read_topics_frame(data / "topics.tsv"), read_qrels_frame(data / "qrels.txt")
    bm25 = QLogRetriever(searcher, similarity="bm25", num_results=HITS)
    qlog = QLogRetriever(searcher, q=0.7, num_results=HITS)
    table = pt.Experiment([bm25, qlog], topics, qrels, eval_metrics=[pt.measures.nDCG @ 10, pt.measures.RR,
                                                                    pt.measures.AP, pt.measures.R @ 100],
                          names=["bm25", "qlog"], baseline=0).set_index("name")
    ours = {name: trec_eval(data / "qrels.txt", run, metrics=list(MEASURES.values())) for name, run in cli_runs.items()}
    for name, result in ours.items():
        for measure, ours_name in MEASURES.items():
            # trec_eval prints 4 decimals; PyTerrier's figure rounds to it
            assert round(table.loc[name, measure], 4) == pytest.approx(result.aggregate[ours_name], abs=1e-9), \
                (name, measure)
    assert table.loc["qlog", "nDCG@10"] > table.loc["bm25", "nDCG@10"]  # q-log's known gain on CSN-Ruby
    expected_p = stats.ttest_rel(ours["qlog"].per_query["ndcg_cut.10"], ours["bm25"].per_query["ndcg_cut.10"]).pvalue
    # trec_eval's per-query values carry 4 decimals, PyTerrier's full precision: the same test, nearly the same p
    assert table.loc["qlog", "nDCG@10 p-value"] == pytest.approx(expected_p, rel=0.02)
    assert table.loc["qlog", "nDCG@10 p-value"] < 0.05


def test_grid_search_over_q_agrees_with_our_sweep(csn_ruby, searcher, tmp_path, pt, terrier):
    QLogRetriever = terrier.QLogRetriever
    data, index = csn_ruby
    topics, qrels = read_topics_frame(data / "topics.tsv"), read_qrels_frame(data / "qrels.txt")
    grid = [0.5, 0.7, 1.0]
    qlog = QLogRetriever(searcher, num_results=HITS)
    scan = pt.GridScan(qlog, {qlog: {"q": grid}}, topics, qrels, ["ndcg_cut_10"], dataframe=True)
    best, setting = pt.GridSearch(qlog, {qlog: {"q": grid}}, topics, qrels, "ndcg_cut_10", return_type="best_setting")
    swept = sweep_on_frames(index, topics, qrels, tmp_path / "sweep", SweepSettings(grid=tuple(grid), hits=HITS,
                                                                                    resamples=200), progress=False)
    points = swept.points.set_index("q")["ndcg_cut.10"]
    for q, value in zip(scan["tran_0_q"], scan["ndcg_cut_10"]):
        # both sides are exact (PyTerrier's pytrec_eval, our in-process trec_eval measures): full precision
        assert value == pytest.approx(points[q], abs=1e-9), q
    oracle = swept.choices.set_index("choice").loc["oracle"]
    assert setting[0][2] == oracle["q"] and best == pytest.approx(oracle["value"], abs=1e-9)
    # the sweep folder keeps the frames it was given as files, and its summary names them
    assert read_topics_frame(tmp_path / "sweep" / "topics.tsv").equals(topics)
    assert swept.summary["qrels"] == str((tmp_path / "sweep" / "qrels.txt").resolve())
    assert set(swept.per_query.columns) == {"qid", "q", "measure", "value"}
    assert len(swept.per_query) == len(grid) * qrels["qid"].nunique()


def test_pipelines_cutoffs_text_and_auto(csn_ruby, searcher, terrier):
    QLogRetriever, TextLoader = terrier.QLogRetriever, terrier.TextLoader
    data, index = csn_ruby
    topics = read_topics_frame(data / "topics.tsv").head(20)
    qlog = QLogRetriever(searcher, q=0.7, num_results=HITS)
    top3 = (qlog % 3 >> TextLoader(searcher))(topics)
    assert top3.groupby("qid").size().max() == 3
    assert all(text == searcher.doc_text(d) for d, text in zip(top3["docno"], top3["text"]))
    # the pipeline's first three are the retriever's first three
    full = qlog(topics)
    pd.testing.assert_frame_equal(top3[["qid", "docno", "score"]].reset_index(drop=True),
                                  full[full["rank"] < 3][["qid", "docno", "score"]].reset_index(drop=True))
    auto = QLogRetriever(index, q="auto", num_results=HITS)
    frame = auto(topics)
    from qlog_pyserini.predict.rule import RuleSettings, predict_with

    assert auto.prediction.q == predict_with(index, RuleSettings()).q  # the rule --q auto uses
    searcher.set_q(auto.prediction.q)
    expected = run_frame(search_topics(searcher, dict(zip(topics["qid"], topics["query"])), hits=HITS,
                                       progress=False), list(topics["qid"]))
    pd.testing.assert_frame_equal(frame[["qid", "docno", "rank", "score"]], expected)


def test_bad_parameters_fail_at_once(csn_ruby, searcher, terrier):
    from qlog_pyserini.errors import QLogError

    QLogRetriever = terrier.QLogRetriever

    with pytest.raises(QLogError, match="q"):
        QLogRetriever(searcher, q=-2)
    with pytest.raises(QLogError, match="unknown similarity"):
        QLogRetriever(searcher, similarity="tfidf")
    qlog = QLogRetriever(searcher, q=0.5)
    with pytest.raises(QLogError):
        qlog.set_parameter("q", -3)
    assert qlog.q == 0.5  # a refused value leaves the old one
    with pytest.raises(ValueError, match="no parameter"):
        qlog.set_parameter("wmodel", "BM25")
