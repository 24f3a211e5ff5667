"""Runs, topics, qrels and per-query metrics as frames: round trips through our files, and evaluators agreeing."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.trec_eval import EvalResult
from qlog_pyserini.formats.frames import (
    frame_qrels,
    frame_results,
    frame_topics,
    qrels_frame,
    read_qrels_frame,
    read_run_frame,
    read_topics_frame,
    run_frame,
    topics_frame,
    write_frame_files,
)
from qlog_pyserini.formats.trec import Hit, write_run

# Ties as Anserini orders them (docid ascending) and float32 scores above 16, where 1e-6 steps do not fit.
RESULTS = {
    "q1": [Hit("d9", 3.5), Hit("a", 2.0), Hit("b", 2.0), Hit("c", 2.0), Hit("z", 1.25)],
    "q 2": [],
    "q3": [Hit("x", 17.000001907348633), Hit("y", 17.000001907348633), Hit("w", -0.5)],
}


def test_run_frame_round_trips_through_a_run_file(tmp_path):
    path = tmp_path / "run.txt"
    results = {k: v for k, v in RESULTS.items() if k != "q 2"}
    write_run(path, results, "t")
    frame = run_frame(results)
    assert list(frame.columns) == ["qid", "docno", "rank", "score"]
    pd.testing.assert_frame_equal(read_run_frame(path), frame)
    assert list(frame[frame.qid == "q1"]["rank"]) == [0, 1, 2, 3, 4]  # PyTerrier counts ranks from 0
    # the frame's scores are the file's, so they strictly decrease within a query as the file's do
    for _, scores in frame.groupby("qid")["score"]:
        assert scores.is_monotonic_decreasing and scores.is_unique
    # and a frame written back is the same run, line for line
    write_run(tmp_path / "again.txt", frame_results(frame), "t")
    assert (tmp_path / "again.txt").read_text() == path.read_text()


def test_frame_results_orders_a_pyterrier_frame_by_score_then_rank():
    frame = pd.DataFrame({"qid": ["1", "1", "1", "2"], "docno": ["c", "a", "b", "d"],
                          "score": [1.0, 2.0, 2.0, 0.5], "rank": [2, 1, 0, 0]})
    assert frame_results(frame) == {"1": [Hit("b", 2.0), Hit("a", 2.0), Hit("c", 1.0)], "2": [Hit("d", 0.5)]}
    with pytest.raises(QLogError, match="lacks the column"):
        frame_results(frame.drop(columns=["score"]))


def test_ir_measures_scores_the_frame_as_the_file(tmp_path):
    ir_measures = pytest.importorskip("ir_measures")
    qrels = pd.DataFrame({"query_id": ["q1", "q3"], "doc_id": ["c", "y"], "relevance": [1, 1]})
    results = {k: v for k, v in RESULTS.items() if k != "q 2"}
    write_run(tmp_path / "run.txt", results, "t")
    frame = run_frame(results).rename(columns={"qid": "query_id", "docno": "doc_id"})
    measure = ir_measures.nDCG @ 3

    def per_query(run) -> dict[str, float]:
        return {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}

    by_frame = per_query(frame)
    assert by_frame == per_query(ir_measures.read_trec_run(str(tmp_path / "run.txt")))
    # q1's ties are below 16: the frame keeps the searcher's order (c fourth, outside the cut), where the
    # raw tied scores let trec_eval's tie rule (docid descending) lift c to second place.
    raw = frame.assign(score=[h.score for hits in results.values() for h in hits])
    assert by_frame["q1"] == 0.0 and per_query(raw)["q1"] == pytest.approx(1 / math.log2(3))


def test_topics_and_qrels_frames_round_trip(tmp_path):
    topics = {"1": "parse json", "2": "", "b/3": "open a file"}
    qrels = {"1": {"d1": 1, "d2": 0}, "b/3": {"d3": 2}}
    paths = write_frame_files(tmp_path, topics=topics_frame(topics), qrels=qrels_frame(qrels))
    assert frame_topics(read_topics_frame(paths["topics"])) == topics
    assert frame_qrels(read_qrels_frame(paths["qrels"])) == qrels
    assert list(qrels_frame(qrels).columns) == ["qid", "docno", "label"]
    with pytest.raises(QLogError, match="listed twice"):
        frame_topics(pd.DataFrame({"qid": ["1", "1"], "query": ["a", "b"]}))
    with pytest.raises(QLogError, match="not an integer grade"):
        frame_qrels(pd.DataFrame({"qid": ["1"], "docno": ["d"], "label": [0.5]}))


def test_per_query_metrics_frame_is_long_and_averages_to_the_aggregate():
    per_query = pd.DataFrame({"ndcg_cut.10": [1.0, 0.5, 0.0], "map": [1.0, 0.25, 0.0]},
                             index=pd.Index(["a", "b", "c"], name="qid"))
    result = EvalResult(aggregate={"ndcg_cut.10": 0.5, "map": 0.4167}, per_query=per_query)
    frame = result.to_frame()
    assert list(frame.columns) == ["qid", "measure", "value"] and len(frame) == 6
    means = frame.groupby("measure")["value"].mean()
    assert means["ndcg_cut.10"] == result.aggregate["ndcg_cut.10"]
    assert round(means["map"], 4) == result.aggregate["map"]
    assert frame.set_index(["qid", "measure"]).loc[("b", "map"), "value"] == 0.25
