"""In-process trec_eval measures, checked query by query against the trec_eval binary in Pyserini's jar."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.metrics import DocidTable, QrelsArrays, RunArrays, evaluate, parse_supported
from qlog_pyserini.eval.trec_eval import trec_eval
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.formats.trec import Hit, read_qrels, read_run, write_qrels, write_run

# Every measure this module computes, with cutoffs below, at and above typical run depths.
METRICS = ["ndcg_cut.1,5,10,100,1000", "ndcg", "recip_rank", "map", "P.1,5,10,30,1000", "recall.1,10,100,1000",
           "success.1,5,10"]


def assert_same_as_trec_eval(qrels_path, run_path, complete: bool = True) -> int:
    """Per-query and aggregate values equal trec_eval's to its 4 printed decimals; returns the rows compared."""
    reference = trec_eval(qrels_path, run_path, metrics=METRICS, per_query=True, complete=complete)
    ours = evaluate(read_run(run_path), read_qrels(qrels_path), metrics=METRICS, complete=complete)
    assert list(ours.per_query.columns) == list(reference.per_query.columns)
    assert list(ours.per_query.index) == list(reference.per_query.index)
    mismatches = [(qid, metric, ours.per_query.at[qid, metric], value)
                  for metric in reference.per_query.columns
                  for qid, value in reference.per_query[metric].items()
                  if f"{ours.per_query.at[qid, metric]:.4f}" != f"{value:.4f}"]
    assert not mismatches[:10]
    for metric, value in reference.aggregate.items():
        assert f"{ours.aggregate[metric]:.4f}" == f"{value:.4f}", metric
    return len(reference.per_query)


def tied_run(rng: random.Random, qids: list[str], docids: list[str]) -> dict[str, list[Hit]]:
    """A run full of ties: scores from a few values, some equal only as float32 (1000 + k * 1e-6)."""
    run = {}
    for qid in qids:
        picked = rng.sample(docids, rng.randint(1, 40))
        scores = sorted((rng.choice([3.0, 2.5, 2.5, 1.0, 1000.000001, 1000.000002, 1000.000003, 0.0, -1.5])
                         for _ in picked), reverse=True)
        run[qid] = [Hit(d, s) for d, s in zip(picked, scores)]
    return run


def write_plain_run(path, run: dict[str, list[Hit]]) -> None:
    # Scores written as they are (not stepped apart as write_run does), so trec_eval meets real ties.
    with open(path, "w", encoding="utf-8") as f:
        for qid, hits in run.items():
            for rank, h in enumerate(hits, 1):
                f.write(f"{qid} Q0 {h.docid} {rank} {h.score:.6f} tied\n")


@pytest.fixture
def constructed(tmp_path):
    """Graded qrels (grades 0-3, queries with no relevant or no run) and a run with float ties."""
    rng = random.Random(7)
    # Docids whose strcmp order differs from their numeric and length order, one non-ASCII.
    docids = [f"d{i}" for i in range(60)] + ["D9", "d1x", "é1", "d-2", "d_3", "a/b.go:12"]
    qids = [f"q{i}" for i in range(30)]
    qrels = {}
    for qid in qids[:25]:
        qrels[qid] = {d: rng.choice([0, 0, 1, 1, 2, 3]) for d in rng.sample(docids, rng.randint(1, 12))}
    qrels["q0"] = {"d1": 0, "d2": 0}  # judged, nothing relevant
    qrels["judged-only"] = {"d3": 2}  # not in the run
    run = tied_run(rng, qids, docids)  # q25..q29 are not in the qrels
    write_qrels(tmp_path / "qrels.txt", qrels)
    write_plain_run(tmp_path / "run.txt", run)
    return tmp_path / "qrels.txt", tmp_path / "run.txt"


@pytest.mark.jvm
@pytest.mark.parametrize("complete", [True, False])
def test_constructed_run_with_float_ties(constructed, complete):
    assert assert_same_as_trec_eval(*constructed, complete=complete) >= 20


@pytest.mark.jvm
def test_real_runs_csn_ruby(csn_ruby, csn_ruby_runs):
    for run in csn_ruby_runs.values():
        assert assert_same_as_trec_eval(csn_ruby[0] / "qrels.txt", run) == 1261


@pytest.fixture(scope="module")
def cacm(shared_data, tmp_path_factory):
    """CACM indexed once for this module, with graded judgments made from its binary qrels."""
    from qlog_pyserini.lucene.indexer import build_index

    folder = shared_data / "cacm"
    if not (folder / "cacm.json").is_file():
        pytest.skip("cacm is absent")
    work = tmp_path_factory.mktemp("cacm")
    build_index(folder / "cacm.json", work / "index", threads=2, progress=False)
    # Grades 1-3 from the document number, and some retrieved-but-judged-0 entries: a graded qrels
    # whose ideal ranking differs from the binary one.
    graded = {qid: {d: 1 + int(d.split("-")[1]) % 3 for d in docs} for qid, docs in read_qrels(folder / "qrels.cacm.txt").items()}
    for i, docs in enumerate(graded.values()):
        docs[f"CACM-{1000 + i:04d}"] = 0
    write_qrels(work / "qrels.graded.txt", graded)
    return folder, work / "index", work / "qrels.graded.txt"


@pytest.mark.jvm
def test_real_runs_cacm_graded(cacm, tmp_path):
    from qlog_pyserini.lucene.batch import search_topics
    from qlog_pyserini.lucene.searcher import QLogSearcher

    folder, index, qrels = cacm
    topics = read_topics(folder / "topics.cacm.txt")
    searcher = QLogSearcher(index)
    for q in (1.0, 0.5):
        searcher.set_q(q)
        run = tmp_path / f"run.q{q}.txt"
        write_run(run, search_topics(searcher, topics, hits=1000, threads=2, progress=False), tag=f"q{q}")
        assert assert_same_as_trec_eval(qrels, run) == 52
        assert assert_same_as_trec_eval(folder / "qrels.cacm.txt", run, complete=False) == 52


# Pure-Python checks of the pieces (no JVM): hand values and the array plumbing.

def test_hand_values():
    # q1: the relevant d1 at rank 3; q2: d5 (grade 1) first, an unjudged doc, d4 (grade 2) third; q3 absent.
    qrels = {"q1": {"d1": 1}, "q2": {"d4": 2, "d5": 1}, "q3": {"d6": 1}}
    run = {"q1": [Hit("d2", 3.0), Hit("d3", 2.0), Hit("d1", 1.0)],
           "q2": [Hit("d5", 9.0), Hit("x7", 8.0), Hit("d4", 7.0)]}
    table = evaluate(run, qrels, metrics="ndcg_cut.10,recip_rank,map,P.5,recall.2,success.1").per_query
    assert table.loc["q1"].tolist() == pytest.approx([0.5, 1 / 3, 1 / 3, 0.2, 0.0, 0.0])
    ndcg2 = (1 + 2 / math.log2(4)) / (2 + 1 / math.log2(3))
    assert table.loc["q2"].tolist() == pytest.approx([ndcg2, 1.0, (1 + 2 / 3) / 2, 0.4, 0.5, 1.0])
    assert table.loc["q3"].tolist() == [0.0] * 6


def test_ties_break_by_docid_descending_on_float32():
    qrels = {"q": {"a": 1}}
    # Equal as float32 (not as float64): trec_eval puts "b" before "a" whatever the file order.
    run = {"q": [Hit("a", 1000.000001), Hit("b", 1000.000002)]}
    assert evaluate(run, qrels, metrics="recip_rank").aggregate["recip_rank"] == 0.5
    assert evaluate(run, qrels, metrics="recip_rank", order="rank").aggregate["recip_rank"] == 1.0


def test_arrays_from_query_index_equal_hits():
    table = DocidTable(["z", "a", "m", "b"])
    arrays = RunArrays.from_query_index(np.array([1, 0, 1, 0]), np.array([0, 1, 2, 3]),
                                        np.array([2.0, 5.0, 1.0, 4.0]), ["q0", "q1"], table)
    assert arrays.offsets.tolist() == [0, 2, 4] and arrays.docs.tolist() == [1, 3, 0, 2]
    qrels = {"q0": {"b": 1}, "q1": {"m": 2, "zz": 1}}
    hits = {"q0": [Hit("a", 5.0), Hit("b", 4.0)], "q1": [Hit("z", 2.0), Hit("m", 1.0)]}
    judged = QrelsArrays.build(qrels, table)
    assert evaluate(arrays, judged, metrics=METRICS).per_query.equals(evaluate(hits, qrels, metrics=METRICS).per_query)


def test_bad_input():
    with pytest.raises(QLogError, match="twice"):
        evaluate({"q": [Hit("a", 2.0), Hit("a", 1.0)]}, {"q": {"a": 1}}, metrics="map")
    with pytest.raises(QLogError, match="not computed in process"):
        evaluate({"q": [Hit("a", 1.0)]}, {"q": {"a": 1}}, metrics="bpref")
    with pytest.raises(QLogError, match="cutoff"):
        parse_supported("P.0")
    with pytest.raises(QLogError, match="offsets"):
        RunArrays(np.array(["q"], dtype=object), np.array([0, 3]), np.array([0]), np.array([1.0]), ["a"])
    assert [name for name, _, _ in parse_supported("P,success")] == [
        "P.5", "P.10", "P.15", "P.20", "P.30", "P.100", "P.200", "P.500", "P.1000", "success.1", "success.5", "success.10"]


class _SearchSideTable:
    """Stands for the search side's per-index docid table: ``ids`` by Lucene doc number."""

    def __init__(self, ids):
        self.ids = np.array(ids, dtype=object)


def test_batch_columns_adapter_shares_one_table_per_index():
    from types import SimpleNamespace

    index_ids = _SearchSideTable(["c", "a", "b", "d"])
    batch = SimpleNamespace(qids=["q1", "q2"], offsets=np.array([0, 2, 3]), docs=np.array([2, 0, 3], dtype=np.int32),
                            scores=np.array([3.0, 2.0, 1.0], dtype=np.float32), table=index_ids)
    arrays = RunArrays.from_batch(batch)
    assert RunArrays.from_batch(batch).docids is arrays.docids  # one sort of the ids per index
    hits = {"q1": [Hit("b", 3.0), Hit("c", 2.0)], "q2": [Hit("d", 1.0)]}
    qrels = {"q1": {"c": 1}, "q2": {"d": 2}}
    assert evaluate(arrays, qrels, metrics=METRICS).per_query.equals(evaluate(hits, qrels, metrics=METRICS).per_query)


def test_a_batch_that_answers_no_judged_query():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    batch = {"q9": [Hit("a", 1.0)], "q2": []}  # one unjudged query, one judged query without hits
    alone = evaluate(batch, qrels, metrics="map", complete=False)
    assert alone.per_query.empty and math.isnan(alone.aggregate["map"])
    assert evaluate(batch, qrels, metrics="map").per_query["map"].tolist() == [0.0, 0.0]
    with pytest.raises(QLogError, match="judge no query"):
        evaluate(batch, {}, metrics="map")
