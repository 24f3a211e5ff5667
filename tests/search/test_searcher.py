"""QLogSearcher: q = 1 is Anserini's BM25 to the bit; q changes without reopening the index."""

from __future__ import annotations

import pytest
from oracles import anserini_bm25_searcher, hits_from_anserini, results_from_anserini

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.search.searcher import QLogSearcher

pytestmark = pytest.mark.jvm  # every test here starts the JVM or runs Java


def test_q1_run_identical_to_anserini_bm25(stdlib_index, stdlib_code):
    topics = read_topics(stdlib_code[1])
    qids = list(topics)[:150]
    queries = [topics[q] for q in qids]
    ours = QLogSearcher(stdlib_index, q=1.0).batch_search(queries, qids, k=100, threads=2)
    ref = anserini_bm25_searcher(stdlib_index, 0.9, 0.4)
    from qlog_pyserini.jvm.bridge import java_list

    theirs = results_from_anserini(ref.batch_search(java_list(queries), java_list(qids), 100, 2))
    assert sum(map(len, ours.values())) > 1000
    for qid in qids:
        assert ours[qid] == theirs.get(qid, []), qid  # same docids, ranks and scores


def test_single_search_equals_anserini(stdlib_index):
    ref = anserini_bm25_searcher(stdlib_index)
    s = QLogSearcher(stdlib_index)
    for query in ("decode a json document", "return the width of text", "copy file permission bits"):
        assert s.search(query, 50) == hits_from_anserini(ref.search(query, 50))


def test_set_q_changes_ranking_without_reopening(stdlib_index):
    s = QLogSearcher(stdlib_index)
    query = "Return a list of the lines of text wrapped"
    bm25 = s.search(query, 20)
    s.set_q(0.2)
    assert s.similarity.startswith("QLogBM25(") and "q=0.2" in s.similarity
    low = s.search(query, 20)
    assert [h.score for h in low] != [h.score for h in bm25]
    s.set_q(1.0)
    assert s.search(query, 20) == bm25  # back to the same run: nothing else changed


def test_rare_term_idf_in_explain_grows_as_q_falls(stdlib_index):
    import re

    s = QLogSearcher(stdlib_index)
    docid = s.search("tarinfo", 1)[0].docid
    idfs = []
    for q in (1.0, 0.7, 0.3, 0.05):
        s.set_q(q)
        idfs.append(float(re.search(r"([\d.]+) = idf, computed as", s.explain("tarinfo", docid)).group(1)))
    assert all(a < b for a, b in zip(idfs, idfs[1:])), idfs


def test_empty_query_has_no_hits(stdlib_index):
    s = QLogSearcher(stdlib_index)
    assert s.search("", 10) == []
    assert s.search("the of and", 10) == []  # only stopwords
    assert s.batch_search(["", "json"], ["a", "b"], k=5)["a"] == []


def test_bad_parameters_and_index(tmp_path, stdlib_index):
    with pytest.raises(QLogError, match="does not exist"):
        QLogSearcher(tmp_path / "nope")
    with pytest.raises(QLogError, match="not a Lucene index"):
        QLogSearcher(tmp_path)
    with pytest.raises(QLogError, match="illegal q value"):
        QLogSearcher(stdlib_index, q=float("nan"))
    with pytest.raises(QLogError, match="illegal idf form"):
        QLogSearcher(stdlib_index, idf_form="okapi")
    with pytest.raises(QLogError, match="not in the index"):
        QLogSearcher(stdlib_index).explain("json", "no-such-doc")
