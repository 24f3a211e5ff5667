"""One batch, a q per query: q-log BM25 at each query's own q in a single pass, and the term statistics
a per-query q is chosen from.

    >>> from qlog_pyserini.search.per_query import batch_search_per_query, query_doc_freqs
    >>> query_doc_freqs(searcher, ["parse json body", "ServeHTTP handler"])  # doctest: +SKIP
    >>> batch_search_per_query(searcher, queries, qids, [0.7, 1.0, 0.85], k=1000)  # doctest: +SKIP

The batch never installs a similarity on ``searcher``: the Java side (``io.qlog.search.PerQuerySearch``)
makes one Lucene ``IndexSearcher`` per distinct q over the searcher's open reader, each with its own
immutable similarity, so queries at different q run side by side on threads without racing, and a
query's hits are exactly those of :meth:`QLogSearcher.batch_search` with its q installed (k1, b and
the odds form are the searcher's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

import numpy as np

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import Hit, check_id
from qlog_pyserini.formula import check_q, check_score_range, max_idf
from qlog_pyserini.jvm.bridge import java_list, jclass
from qlog_pyserini.search.batch import BATCH
from qlog_pyserini.search.searcher import QLogSearcher, _parse_tsv_lines, _score, check_hits

if TYPE_CHECKING:
    from qlog_pyserini.predict.query_rule import QueryRuleSettings
    from qlog_pyserini.predict.rule import Prediction, RuleSettings

PER_QUERY_CLASS = "io.qlog.search.PerQuerySearch"


def query_doc_freqs(searcher: QLogSearcher, queries: Sequence[str]) -> list[list[int]]:
    """The document frequency of each distinct term of each query, analyzed and parsed as ``searcher``
    searches it (an all-stopword query has none)."""
    text = searcher._call(jclass(PER_QUERY_CLASS).termDocFreqs, searcher.java, java_list([str(x) for x in queries]))
    lines = text.split("\n")[:-1] if text else []
    if len(lines) != len(queries):
        raise QLogError(f"term statistics for {len(lines)} of {len(queries)} queries")
    return [[int(x) for x in line.split()] for line in lines]


def batch_search_per_query(searcher: QLogSearcher, queries: Sequence[str], qids: Sequence[str],
                           qs: Sequence[float], k: int = 10, threads: int = 1) -> dict[str, list[Hit]]:
    """Top ``k`` hits of each query at its own q (``qs[i]`` for ``queries[i]``); ``{qid: hits}`` in ``qids`` order.

    k1, b and the odds form are ``searcher``'s; the similarity installed on it is neither used nor changed.
    """
    if not len(queries) == len(qids) == len(qs):
        raise QLogError(f"{len(queries)} queries, {len(qids)} qids and {len(qs)} q values: give one of each per query")
    if len(set(qids)) != len(qids):
        raise QLogError("qids must be unique")
    for qid in qids:
        check_id(qid, "qid")
    k = check_hits(k)
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or not 1 <= threads <= 1024:
        raise QLogError(f"illegal threads value: {threads!r}, must be an integer from 1 to 1024")
    values = [check_q(q) for q in qs]
    n = searcher.num_docs
    for q in sorted(set(values)):  # as set_qlog does: refuse, before any search, scores a run cannot hold
        check_score_range(max_idf(n, q, searcher.idf_form),
                          f"q = {q:g} ({searcher.idf_form} odds) on {str(searcher.index_dir)!r} (N = {n})")
    text = searcher._call(jclass(PER_QUERY_CLASS).batchSearchTsv, searcher.java, java_list([str(x) for x in queries]),
                          java_list(list(qids)), values, float(searcher.k1), float(searcher.b), searcher.idf_form,
                          k, int(threads))
    results: dict[str, list[Hit]] = {qid: [] for qid in qids}
    for qid, docid, score, lucene_docid in _parse_tsv_lines(text, 4):
        results[qid].append(Hit(docid, _score(score), int(lucene_docid)))
    return results


def search_topics_auto_query(searcher: QLogSearcher, topics: Mapping[str, str], prediction: Prediction,
                             rule: QueryRuleSettings | None = None, hits: int = 1000, threads: int = 1,
                             batch_size: int = BATCH) -> tuple[dict[str, list[Hit]], list[float]]:
    """Every topic at its own label-free q (:mod:`qlog_pyserini.predict.query_rule`) on the corpus that
    ``prediction`` (the corpus rule's) describes: ``({qid: hits}, the q of each topic in topic order)``.

    One statistics call and one search pass per ``batch_size`` topics; the searcher's similarity is untouched.
    """
    from qlog_pyserini.predict.query_rule import QueryRuleSettings, query_qs

    rule = QueryRuleSettings() if rule is None else rule
    qids = list(topics)
    results: dict[str, list[Hit]] = {}
    chosen: list[float] = []
    for start in range(0, len(qids), batch_size):
        chunk = qids[start:start + batch_size]
        queries = [topics[q] for q in chunk]
        qs = query_qs(query_doc_freqs(searcher, queries), prediction, rule)
        results.update(batch_search_per_query(searcher, queries, chunk, qs, k=hits, threads=threads))
        chosen.extend(qs)
    return results, chosen


def search_auto_query(searcher: QLogSearcher, topics: Mapping[str, str], k: int = 1000, threads: int = 1,
                      rule: QueryRuleSettings | None = None,
                      corpus_rule: RuleSettings | None = None) -> tuple[dict[str, list[Hit]], list[float]]:
    """``--q auto-query`` from Python: the corpus rule (``corpus_rule``, default ``--q auto``'s) predicted for
    ``searcher``'s index, then every topic at its own q (:func:`search_topics_auto_query`).

        >>> hits, qs = search_auto_query(QLogSearcher("indexes/csn-ruby"), {"q1": "parse json body"})  # doctest: +SKIP
    """
    from qlog_pyserini.predict.rule import RuleSettings, predict_with

    prediction = predict_with(searcher.index_dir, RuleSettings() if corpus_rule is None else corpus_rule)
    return search_topics_auto_query(searcher, topics, prediction, rule, hits=k, threads=threads)
