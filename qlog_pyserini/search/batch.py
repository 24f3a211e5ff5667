"""Search topics against a Lucene index with q-log BM25 and write a TREC run.

    python -m qlog_pyserini.search --index DIR --topics FILE --output run.txt --q 0.05

``--q 1`` (the default) is Pyserini's BM25 exactly: same docids, ranks and scores as
``LuceneSearcher`` with ``set_bm25(0.9, 0.4)``. ``--q auto`` predicts q from the index's hapax
density with no labels (:mod:`qlog_pyserini.predict`) and logs h_tok and the chosen q.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import Hit
from qlog_pyserini.system.progress import progress_bar
from qlog_pyserini.search.searcher import QLogSearcher

BATCH = 64  # queries per Java batch call: large enough to keep threads busy, small enough for a live progress bar


def search_topics(searcher: QLogSearcher, topics: Mapping[str, str], hits: int = 1000, threads: int = 1,
                  progress: bool = True, batch_size: int = BATCH,
                  fields: Mapping[str, float] | None = None) -> dict[str, list[Hit]]:
    """Run every topic through ``searcher``; ``{qid: hits}`` in topic order.

    ``batch_size`` queries go to Java at a time (the run does not depend on it). ``fields`` searches
    those fields with their weights (:mod:`qlog_pyserini.search.fields`) instead of ``contents``.
    """
    if batch_size < 1:
        raise QLogError(f"batch size must be at least 1, got {batch_size}")
    qids = list(topics)
    results: dict[str, list[Hit]] = {}
    with progress_bar(total=len(qids), desc="searching", unit="q", quiet=not progress) as bar:
        for start in range(0, len(qids), batch_size):
            chunk = qids[start:start + batch_size]
            queries = [topics[q] for q in chunk]
            if fields:
                from qlog_pyserini.search.fields import batch_search_fields

                results.update(batch_search_fields(searcher, queries, chunk, fields, k=hits, threads=threads))
            else:
                results.update(searcher.batch_search(queries, chunk, k=hits, threads=threads))
            bar.update(len(chunk))
    return results


def drop_hits(results: Mapping[str, Sequence[Hit]], remove_duplicates: bool = False,
              remove_query: bool = False) -> dict[str, list[Hit]]:
    """Pyserini's ``--remove-duplicates`` (keep a docid's first hit) and ``--remove-query`` (drop the
    hit whose docid is the query's id, for collections whose queries are documents, e.g. ArguAna)."""
    out: dict[str, list[Hit]] = {}
    for qid, hits in results.items():
        seen: set[str] = set()
        kept = []
        for hit in hits:
            if remove_duplicates and hit.docid in seen:
                continue
            if remove_query and hit.docid == qid:
                continue
            seen.add(hit.docid)
            kept.append(hit)
        out[qid] = kept
    return out


def default_run_tag(similarity: str, q: float = 1.0, idf_form: str = "lucene", gamma: float = 1.0,
                    mu: float = 1000.0) -> str:
    """A whitespace-free tag naming the model and its parameter, e.g. ``qlog-bm25-q0.3-lucene``."""
    return {"qlog": f"qlog-bm25-q{q:g}-{idf_form}", "idf-gamma": f"bm25-idf-gamma{gamma:g}",
            "qld": f"qld-mu{mu:g}"}.get(similarity, similarity)
