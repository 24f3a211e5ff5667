"""trec_eval through Pyserini's jar, checked against values worked out by hand."""

from __future__ import annotations

import math
import subprocess
import sys

import pandas as pd
import pytest
from conftest import ROOT

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.trec_eval import (
    EvalResult,
    _exposed_name,
    parse_metrics,
    parse_trec_eval_output,
    per_query_scores,
    trec_eval,
)

# q1: one relevant doc (d1) at rank 3.
# q2: d4 (grade 2) at rank 3, d5 (grade 1) at rank 1, a non-judged doc between.
# q3: judged, but absent from the run.
QRELS = "q1 0 d1 1\nq2 0 d4 2\nq2 0 d5 1\nq3 0 d6 1\n"
RUN = ("q1 Q0 d2 1 3.0 t\nq1 Q0 d3 2 2.0 t\nq1 Q0 d1 3 1.0 t\n"
       "q2 Q0 d5 1 9.0 t\nq2 Q0 x7 2 8.0 t\nq2 Q0 d4 3 7.0 t\n")

# By hand. trec_eval's nDCG uses the grade itself as gain and log2(rank + 1) as discount.
RR = {"q1": 1 / 3, "q2": 1.0, "q3": 0.0}
NDCG10 = {
    "q1": (1 / math.log2(4)) / (1 / math.log2(2)),
    "q2": (1 / math.log2(2) + 2 / math.log2(4)) / (2 / math.log2(2) + 1 / math.log2(3)),
    "q3": 0.0,
}
AP = {"q1": 1 / 3, "q2": (1 / 1 + 2 / 3) / 2, "q3": 0.0}
RECALL100 = {"q1": 1.0, "q2": 1.0, "q3": 0.0}
P5 = {"q1": 1 / 5, "q2": 2 / 5, "q3": 0.0}
P10 = {"q1": 1 / 10, "q2": 2 / 10, "q3": 0.0}
# trec_eval prints 4 decimals.
TOL = 6e-5


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return qrels, run


def mean(d: dict[str, float], qids=("q1", "q2", "q3")) -> float:
    return sum(d[q] for q in qids) / len(qids)


@pytest.mark.jvm  # runs trec_eval from Pyserini's jar
def test_hand_computed_values_complete(files):
    result = trec_eval(*files)
    assert isinstance(result, EvalResult)
    assert list(result.aggregate) == ["ndcg_cut.10", "recip_rank", "recall.100", "map"]
    assert list(result.per_query.columns) == ["ndcg_cut.10", "recip_rank", "recall.100", "map"]
    assert list(result.per_query.index) == ["q1", "q2", "q3"]
    assert result.per_query.index.name == "qid"
    for name, truth in [("ndcg_cut.10", NDCG10), ("recip_rank", RR), ("recall.100", RECALL100), ("map", AP)]:
        for qid, value in truth.items():
            assert result.per_query.loc[qid, name] == pytest.approx(value, abs=TOL), (name, qid)
        # -c: q3 counts as a zero in the average.
        assert result.aggregate[name] == pytest.approx(mean(truth), abs=TOL), name


@pytest.mark.jvm  # runs trec_eval from Pyserini's jar
def test_incomplete_averages_only_answered_queries(files):
    result = trec_eval(*files, metrics=["recip_rank", "ndcg_cut.10"], complete=False)
    assert list(result.per_query.index) == ["q1", "q2"]
    assert result.aggregate["recip_rank"] == pytest.approx(mean(RR, ("q1", "q2")), abs=TOL)
    assert result.aggregate["ndcg_cut.10"] == pytest.approx(mean(NDCG10, ("q1", "q2")), abs=TOL)


@pytest.mark.jvm  # runs trec_eval from Pyserini's jar
def test_multi_parameter_metric_expands_under_requested_names(files):
    result = trec_eval(*files, metrics="map,P.5,10", per_query=False)
    assert list(result.aggregate) == ["map", "P.5", "P.10"]
    assert result.aggregate["P.5"] == pytest.approx(mean(P5), abs=TOL)
    assert result.aggregate["P.10"] == pytest.approx(mean(P10), abs=TOL)
    assert result.per_query.empty


@pytest.mark.jvm  # runs trec_eval from Pyserini's jar
def test_per_query_scores_series(files):
    s = per_query_scores(*files, "recip_rank")
    assert s.name == "recip_rank"
    assert s.to_dict() == pytest.approx(RR, abs=TOL)


@pytest.mark.jvm  # runs trec_eval from Pyserini's jar
def test_per_query_scores_rejects_a_metric_with_several_values(files):
    with pytest.raises(QLogError, match="P.5, P.10"):
        per_query_scores(*files, "P.5,10")


def test_missing_files(tmp_path, files):
    qrels, run = files
    with pytest.raises(QLogError, match="run file .* not found"):
        trec_eval(qrels, tmp_path / "nope.txt")
    with pytest.raises(QLogError, match="qrels file .* not found"):
        trec_eval(tmp_path / "nope.txt", run)


@pytest.mark.jvm  # runs trec_eval from Pyserini's jar
def test_trec_eval_errors_are_reported(tmp_path, files):
    qrels, run = files
    with pytest.raises(QLogError, match="illegal measure 'nosuchmeasure'"):
        trec_eval(qrels, run, metrics=["nosuchmeasure"])
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 Q0 d1\n")
    with pytest.raises(QLogError, match="Malformed line 1"):
        trec_eval(qrels, bad)
    dup = tmp_path / "dup.txt"
    dup.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d1 2 1.0 t\n")
    with pytest.raises(QLogError, match="duplicate docs d1$"):
        trec_eval(qrels, dup)
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(QLogError, match="empty"):
        trec_eval(qrels, empty)


def test_option_like_metric_is_refused_before_trec_eval(files):
    with pytest.raises(QLogError, match="illegal metric name '-q'"):
        trec_eval(*files, metrics=["-q"])


def test_query_named_all_is_refused(tmp_path, files):
    _, run = files
    qrels = tmp_path / "q.txt"
    qrels.write_text("all 0 d1 1\n")
    with pytest.raises(QLogError, match="'all'"):
        trec_eval(qrels, run)


# --- parsing, no JVM -------------------------------------------------------------------------

def test_parse_output_renames_orders_and_skips_strings():
    out = ("ndcg_cut_10           \tq1\t0.5000\n"
           "recip_rank            \tq1\t0.3333\n"
           "runid                 \tall\tmyrun\n"
           "ndcg_cut_10           \tall\t0.2500\n"
           "recip_rank            \tall\t0.1667\n")
    agg, per_query = parse_trec_eval_output(out, ["recip_rank", "ndcg_cut.10"])
    assert list(agg.items()) == [("recip_rank", 0.1667), ("ndcg_cut.10", 0.25)]
    assert per_query == {"recip_rank": {"q1": 0.3333}, "ndcg_cut.10": {"q1": 0.5}}


def test_parse_output_error_line():
    with pytest.raises(QLogError, match=r"trec_eval failed: trec_eval\.form_res_qrels: duplicate docs d1$"):
        parse_trec_eval_output("trec_eval.form_res_qrels: duplicate docs d1trec_eval: Can't calculate measure 'map'\n",
                               ["map"])


def test_exposed_names():
    assert _exposed_name("ndcg_cut_10", ["ndcg", "ndcg_cut.10"]) == (1, "ndcg_cut.10")
    assert _exposed_name("ndcg", ["ndcg", "ndcg_cut.10"]) == (0, "ndcg")
    assert _exposed_name("recall_100", ["map", "recall"]) == (1, "recall.100")
    # 'ndcg' asks for no parameters, so a different measure that shares its prefix is not it.
    assert _exposed_name("ndcg_rel", ["ndcg"]) == (1, "ndcg_rel")
    assert _exposed_name("P_20", ["P.5,10"]) == (1, "P_20")


def test_parse_metrics():
    assert parse_metrics("ndcg_cut.10,P.5,10,map") == ["ndcg_cut.10", "P.5,10", "map"]
    assert parse_metrics(" recip_rank , recall.100 ") == ["recip_rank", "recall.100"]
    with pytest.raises(QLogError):
        parse_metrics("map,10")
    with pytest.raises(QLogError):
        parse_metrics(",")


# --- the eval CLI ----------------------------------------------------------------------------

def eval_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "qlog_pyserini.eval", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.jvm  # runs trec_eval from Pyserini's jar
def test_eval_cli_per_query_csv(files, tmp_path):
    qrels, run = files
    out = tmp_path / "scores.csv"
    proc = eval_cli("--qrels", str(qrels), "--run", str(run), "--metrics", "recip_rank,P.5,10",
                    "--per-query", "--output", str(out))
    assert proc.returncode == 0, proc.stderr
    table = pd.read_csv(out, index_col="qid")
    assert list(table.columns) == ["recip_rank", "P.5", "P.10"]
    assert list(table.index) == ["q1", "q2", "q3", "all"]
    assert table["recip_rank"].to_dict() == pytest.approx({**RR, "all": mean(RR)}, abs=TOL)
    assert table.loc["all", "P.5"] == pytest.approx(mean(P5), abs=TOL)
    assert "q3" in proc.stdout


@pytest.mark.jvm  # runs trec_eval from Pyserini's jar
def test_eval_cli_aggregate_only(files):
    proc = eval_cli("--qrels", str(files[0]), "--run", str(files[1]), "--metrics", "recip_rank")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["recip_rank", f"{mean(RR):.4f}"]


@pytest.mark.jvm  # runs trec_eval from Pyserini's jar
def test_eval_cli_bad_input_is_one_line(files, tmp_path):
    out = tmp_path / "scores.csv"
    proc = eval_cli("--qrels", str(files[0]), "--run", str(tmp_path / "missing.txt"), "--output", str(out))
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:")
    assert not out.exists()
