"""qlog_pyserini.evaluate: hits, run files and frames scored as the eval verb scores the run file."""

from __future__ import annotations

import pytest

import qlog_pyserini as ql

# imported here, not inside a test: a module first imported while the jvm guard is active keeps its stub
from qlog_pyserini.eval.trec_eval import trec_eval
from qlog_pyserini.formats.frames import qrels_frame, run_frame
from qlog_pyserini.formats.trec import Hit, write_run

RESULTS = {"q1": [Hit("d9", 3.5), Hit("a", 2.0), Hit("b", 2.0), Hit("c", 2.0)], "q2": [Hit("x", 1.0)]}
QRELS = {"q1": {"c": 1, "a": 0}, "q2": {"y": 1}, "q3": {"z": 2}}


def test_hits_files_and_frames_give_the_same_figures(tmp_path):
    write_run(tmp_path / "run.txt", RESULTS, "t")
    from_hits = ql.evaluate(RESULTS, QRELS, metrics=["ndcg_cut.10", "recip_rank"])
    from_file = ql.evaluate(tmp_path / "run.txt", QRELS,
                            metrics=["ndcg_cut.10", "recip_rank"])
    from_frames = ql.evaluate(run_frame(RESULTS), qrels_frame(QRELS), metrics=["ndcg_cut.10", "recip_rank"])
    assert from_hits.aggregate == from_file.aggregate == from_frames.aggregate
    # the searcher's order is scored (c fourth: RR 1/4), not trec_eval's re-sort of raw ties (c second)
    assert from_hits.per_query.loc["q1", "recip_rank"] == 0.25
    assert list(from_hits.per_query.index) == ["q1", "q2", "q3"]  # every judged query counts (-c)
    assert from_hits.aggregate["recip_rank"] == pytest.approx(0.25 / 3)


@pytest.mark.jvm
def test_evaluate_equals_the_trec_eval_binary_on_a_real_run(stdlib_index, stdlib_code, stdlib_qrels, tmp_path):
    topics, qrels = ql.read_topics(stdlib_code[1]), ql.read_qrels(stdlib_qrels)
    with ql.QLogSearcher(stdlib_index, q=0.3) as s:
        hits = s.batch_search(list(topics.values()), list(topics), k=100)
    write_run(tmp_path / "run.txt", hits, "t")
    ours = ql.evaluate(hits, qrels)
    binary = trec_eval(stdlib_qrels, tmp_path / "run.txt")
    assert {k: round(v, 4) for k, v in ours.aggregate.items()} == binary.aggregate
