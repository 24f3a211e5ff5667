"""End to end on real code: CodeSearchNet Ruby (test + valid) from ../shared/data, skipped when absent."""

from __future__ import annotations

import pytest

from qlog_pyserini.eval.trec_eval import trec_eval
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.lucene.searcher import QLogSearcher

pytestmark = pytest.mark.jvm  # every test here starts the JVM or runs Java


def test_csn_ruby_q07_beats_bm25(csn_ruby, csn_ruby_runs):
    """The session's CSN-Ruby runs (QLogSearcher, every topic, 1000 hits; conftest.csn_ruby_runs) scored by trec_eval."""
    data, index = csn_ruby
    assert len(read_topics(data / "topics.tsv")) == 1261
    with QLogSearcher(index) as searcher:
        assert searcher.num_docs == 2661
    ndcg = {q: trec_eval(data / "qrels.txt", csn_ruby_runs[q], metrics=["ndcg_cut.10"], per_query=False)
            .aggregate["ndcg_cut.10"] for q in (1.0, 0.7)}
    print(f"CSN-Ruby NDCG@10: q=1 {ndcg[1.0]:.4f}, q=0.7 {ndcg[0.7]:.4f}")
    assert ndcg[0.7] > ndcg[1.0]
    assert 0.2 < ndcg[1.0] < 0.6  # a sane BM25 level for this benchmark, not a broken run
