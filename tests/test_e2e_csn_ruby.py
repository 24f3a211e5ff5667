"""End to end on real code: CodeSearchNet Ruby (test + valid) from ../shared/data, skipped when absent."""

from __future__ import annotations

import pytest

from qlog_pyserini.eval.trec_eval import trec_eval
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.formats.trec import write_run
from qlog_pyserini.search.batch import search_topics
from qlog_pyserini.search.searcher import QLogSearcher

pytestmark = pytest.mark.jvm  # every test here starts the JVM or runs Java


def test_csn_ruby_q07_beats_bm25(csn_ruby, tmp_path):
    data, index = csn_ruby
    topics = read_topics(data / "topics.tsv")
    assert len(topics) == 1261
    searcher = QLogSearcher(index)
    assert searcher.num_docs == 2661
    ndcg = {}
    for q in (1.0, 0.7):
        searcher.set_q(q)
        run = tmp_path / f"run.q{q}.txt"
        write_run(run, search_topics(searcher, topics, hits=1000, threads=2, progress=False), tag=f"q{q}")
        ndcg[q] = trec_eval(data / "qrels.txt", run, metrics=["ndcg_cut.10"], per_query=False).aggregate["ndcg_cut.10"]
    print(f"CSN-Ruby NDCG@10: q=1 {ndcg[1.0]:.4f}, q=0.7 {ndcg[0.7]:.4f}")
    assert ndcg[0.7] > ndcg[1.0]
    assert 0.2 < ndcg[1.0] < 0.6  # a sane BM25 level for this benchmark, not a broken run
