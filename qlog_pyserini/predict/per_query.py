"""One batch, a q per query: q-log BM25 at each query's own q in a single pass, and the term statistics
a per-query q is chosen from.

    >>> from qlog_pyserini.predict.per_query import batch_search_per_query, query_doc_freqs
    >>> query_doc_freqs(searcher, ["parse json body", "ServeHTTP handler"])  # doctest: +SKIP
    >>> batch_search_per_query(searcher, queries, qids, [0.7, 1.0, 0.85], k=1000)  # doctest: +SKIP

The batch never installs a similarity on ``searcher``: :meth:`QLogSearcher.batch_search` with ``q=`` makes
one Lucene ``IndexSearcher`` per distinct q over the searcher's open reader, each with its own immutable
similarity, so queries at different q run side by side on threads without racing, and a query's hits are
exactly those of a search with its q installed (k1, b and the odds form are the searcher's). The term
statistics come from ``io.qlog.search.PerQuerySearch``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import Hit
from qlog_pyserini.jvm.bridge import java_list, jclass
from qlog_pyserini.lucene.batch import BATCH
from qlog_pyserini.lucene.searcher import QLogSearcher

if TYPE_CHECKING:
    from qlog_pyserini.predict.query_rule import QueryRuleSettings
    from qlog_pyserini.predict.rule import Prediction, RuleSettings

PER_QUERY_CLASS = "io.qlog.search.PerQuerySearch"


def query_doc_freqs(searcher: QLogSearcher, queries: Sequence[str]) -> list[list[int]]:
    """The document frequency of each distinct term of each query, analyzed and parsed as ``searcher``
    searches it (an all-stopword query has none)."""
    text = searcher.call_java(jclass(PER_QUERY_CLASS).termDocFreqs, searcher.java, java_list([str(x) for x in queries]))
    lines = text.split("\n")[:-1] if text else []
    if len(lines) != len(queries):
        raise QLogError(f"term statistics for {len(lines)} of {len(queries)} queries")
    return [[int(x) for x in line.split()] for line in lines]


def batch_search_per_query(searcher: QLogSearcher, queries: Sequence[str], qids: Sequence[str],
                           qs: Sequence[float], k: int = 10, threads: int = 1) -> dict[str, list[Hit]]:
    """Top ``k`` hits of each query at its own q (``qs[i]`` for ``queries[i]``); ``{qid: hits}`` in ``qids`` order.

    k1, b and the odds form are ``searcher``'s; the similarity installed on it is neither used nor changed
    (:meth:`QLogSearcher.batch_search` with ``q=``: one IndexSearcher per distinct q over the open reader).
    """
    if not len(queries) == len(qids) == len(qs):
        raise QLogError(f"{len(queries)} queries, {len(qids)} qids and {len(qs)} q values: give one of each per query")
    results = searcher.batch_search(list(queries), list(qids), k=k, threads=threads, q=[float(q) for q in qs])
    return {qid: list(results[qid]) for qid in qids}


class AutoQueryQ:
    """``q_of`` for :func:`~qlog_pyserini.lucene.batch.search_batches`: each query's label-free q
    (:mod:`qlog_pyserini.predict.query_rule`) from its terms' document frequencies, one statistics call
    per batch; the q values chosen so far are kept in :attr:`chosen`, in query order."""

    def __init__(self, searcher: QLogSearcher, prediction: Prediction, rule: QueryRuleSettings | None = None) -> None:
        from qlog_pyserini.predict.query_rule import QueryRuleSettings

        self.searcher, self.prediction = searcher, prediction
        self.rule = QueryRuleSettings() if rule is None else rule
        self.chosen: list[float] = []

    def __call__(self, queries: list[str]) -> list[float]:
        from qlog_pyserini.predict.query_rule import query_qs

        qs = query_qs(query_doc_freqs(self.searcher, queries), self.prediction, self.rule)
        self.chosen.extend(qs)
        return qs


def search_topics_auto_query(searcher: QLogSearcher, topics: Mapping[str, str], prediction: Prediction,
                             rule: QueryRuleSettings | None = None, hits: int = 1000, threads: int = 1,
                             batch_size: int = BATCH) -> tuple[dict[str, list[Hit]], list[float]]:
    """Every topic at its own label-free q (:mod:`qlog_pyserini.predict.query_rule`) on the corpus that
    ``prediction`` (the corpus rule's) describes: ``({qid: hits}, the q of each topic in topic order)``.

    One statistics call and one search pass per ``batch_size`` topics; the searcher's similarity is
    untouched. To stream the run to a file instead, give :class:`AutoQueryQ` to
    :func:`~qlog_pyserini.lucene.batch.write_topics_run` as ``q_of``.
    """
    from qlog_pyserini.lucene.batch import search_batches

    q_of = AutoQueryQ(searcher, prediction, rule)
    results: dict[str, list[Hit]] = {}
    for batch in search_batches(searcher, topics, hits, threads, progress=False, batch_size=batch_size, q_of=q_of):
        results.update({qid: list(hits_) for qid, hits_ in batch.items()})
    return results, q_of.chosen


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
