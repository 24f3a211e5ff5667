"""A batch mixing per-query q values equals the same queries searched one at a time at their q, and the
term statistics a per-query q is chosen from equal Lucene's document frequencies."""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.lucene.searcher import QLogSearcher
from qlog_pyserini.predict.per_query import batch_search_per_query, query_doc_freqs

pytestmark = pytest.mark.jvm

QS = (0.3, 0.7, 1.0, 0.55)


def _topics(path, n=40):
    rows = [line.rstrip("\n").split("\t", 1) for line in open(path, encoding="utf-8")]
    return rows[:n]


def test_mixed_q_batch_equals_one_by_one_searches(stdlib_index, stdlib_code):
    topics = _topics(stdlib_code[1])
    qids, queries = [r[0] for r in topics], [r[1] for r in topics]
    qs = [QS[i % len(QS)] for i in range(len(queries))]
    with QLogSearcher(stdlib_index) as s:
        s.set_q(0.05)  # an installed q no query asks for: the batch must neither use nor change it
        mixed = batch_search_per_query(s, queries, qids, qs, k=50, threads=2)
        assert s.q == 0.05 and "q=0.05" in s.similarity
        for qid, query, q in zip(qids, queries, qs):
            s.set_q(q)
            alone = s.search(query, k=50)
            assert [(h.docid, h.score) for h in mixed[qid]] == [(h.docid, h.score) for h in alone], (qid, q)
        assert list(mixed) == qids
    # different q values give different rankings on this corpus, so the test tells them apart
    assert len({tuple(h.docid for h in mixed[qid]) for qid in qids}) > 1


def test_batch_is_not_disturbed_by_a_concurrent_similarity_swap(stdlib_index, stdlib_code):
    topics = _topics(stdlib_code[1], 60)
    qids, queries = [r[0] for r in topics], [r[1] for r in topics]
    qs = [QS[i % len(QS)] for i in range(len(queries))]
    with QLogSearcher(stdlib_index) as s:
        expected = batch_search_per_query(s, queries, qids, qs, k=20, threads=1)
        stop = threading.Event()

        def swap() -> None:
            i = 0
            while not stop.is_set():
                s.set_q((0.1, 1.5)[i % 2])
                i += 1

        t = threading.Thread(target=swap)
        t.start()
        try:
            for _ in range(3):
                assert batch_search_per_query(s, queries, qids, qs, k=20, threads=2) == expected
        finally:
            stop.set()
            t.join()


def test_query_doc_freqs_are_lucene_document_frequencies(tiny_index):
    with QLogSearcher(tiny_index) as s:
        # z<df> occurs in exactly df documents (tests/conftest.py); repeats count once; "the" is a stopword
        got = query_doc_freqs(s, ["z0001 z0025", "z0010 z0010 the", "the", "nosuchterm z0002"])
    assert [sorted(x) for x in got] == [[1, 25], [10], [], [0, 2]]


def test_refuses_mismatched_lengths_and_bad_q(tiny_index):
    with QLogSearcher(tiny_index) as s:
        with pytest.raises(QLogError, match="one of each per query"):
            batch_search_per_query(s, ["z0001"], ["a"], [0.5, 0.7])
        with pytest.raises(QLogError, match="q"):
            batch_search_per_query(s, ["z0001"], ["a"], [float("nan")])
        with pytest.raises(QLogError, match="unique"):
            batch_search_per_query(s, ["z0001", "z0002"], ["a", "a"], [1.0, 1.0])
        assert Counter(h.docid for h in batch_search_per_query(s, ["z0002"], ["a"], [0.5])["a"]) == Counter(
            h.docid for h in s.search("z0002"))


def test_search_auto_query_api_is_the_per_query_route_at_the_rules_q(stdlib_index, stdlib_code):
    import qlog_pyserini
    from qlog_pyserini.predict.query_rule import query_qs
    from qlog_pyserini.predict.rule import RuleSettings, predict_q

    topics = dict(_topics(stdlib_code[1], 30))
    with qlog_pyserini.QLogSearcher(stdlib_index) as s:
        hits, qs = qlog_pyserini.search_auto_query(s, topics, k=10, corpus_rule=RuleSettings(shrink_docs=0))
        want = query_qs(query_doc_freqs(s, list(topics.values())), predict_q(stdlib_index, shrink_docs=0))
        assert qs == want and len(set(qs)) >= 2
        assert hits == qlog_pyserini.batch_search_per_query(s, list(topics.values()), list(topics), qs, k=10)


def test_search_verb_streams_the_auto_query_run_of_the_api(stdlib_index, stdlib_code, tmp_path):
    """``search --q auto-query`` writes, batch by batch, what the API searches in memory: same lines."""
    import qlog_pyserini
    from qlog_pyserini.formats.trec import write_run
    from qlog_pyserini.search.__main__ import main

    topics = dict(_topics(stdlib_code[1], 60))
    (tmp_path / "topics.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in topics.items()), encoding="utf-8")
    main(["--index", str(stdlib_index), "--topics", str(tmp_path / "topics.tsv"), "--q", "auto-query",
          "--hits", "50", "--batch-size", "7", "--output", str(tmp_path / "cli.txt"), "--run-tag", "t", "--quiet"])
    with qlog_pyserini.QLogSearcher(stdlib_index) as s:
        hits, qs = qlog_pyserini.search_auto_query(s, topics, k=50)
    assert len(set(qs)) >= 2  # the batches mix q values
    write_run(tmp_path / "api.txt", hits, "t", qids=list(topics))
    assert (tmp_path / "cli.txt").read_bytes() == (tmp_path / "api.txt").read_bytes()
