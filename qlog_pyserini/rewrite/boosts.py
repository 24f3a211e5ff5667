"""The per-term boosts that turn an engine's plain BM25 into q-log BM25.

Only the IDF differs between the two models, and every BM25 engine multiplies a term query's boost into
the term's weight (boost * idf * tf part), so

    score_q(d) = sum_t  w_t * BM25_t(d),      w_t = idf_q(n_t, N) / idf(n_t, N)

with idf_q the q-log IDF and idf the engine's own BM25 IDF, ln(1 + (N - n + 0.5) / (n + 0.5)) in Lucene,
Solr, Elasticsearch, OpenSearch and Tantivy alike. N and n must be the statistics the engine scores with:
on a sharded engine the global ones (its dfs phase or distributed IDF), and deleted documents count until
their segments merge away, exactly as in the engine's own IDF.

A term repeated in the query counts once per occurrence (Anserini's bag of words boosts it by its count;
Lucene's and Elasticsearch's query builders add one clause per occurrence, which scores the same), so its
boost is ``count * w_t``. Under the ``rsj`` odds a term in more than half the documents has idf_q = 0 and
boost 0: its clause still matches, adding 0, as under the q-log similarity itself. A term no document holds
(n = 0) matches nothing; its boost is computed all the same (idf(0, N) is finite) so the query keeps its
shape.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formula import check_form, check_q, idf_q


@dataclass(frozen=True)
class TermBoost:
    """One query term's clause: where it is searched, its statistics and its boost."""

    field: str
    term: str
    count: int  # occurrences in the query
    df: int  # n: documents holding the term (the engine's own count, deleted ones included)
    doc_count: int  # N: documents the engine's idf counts (Lucene: with the field; Tantivy: in the index)
    weight: float  # w_t = idf_q / idf
    boost: float  # count * w_t: what the engine's query carries


def term_weight(df: int, doc_count: int, q: float, form: str = "lucene") -> float:
    """w_t = idf_q(n, N) / idf(n, N): the q-log IDF over the engine's BM25 IDF (q = 1, ``lucene`` odds)."""
    q, form = check_q(q), check_form(form)
    if doc_count < 1 or not 0 <= df <= doc_count:
        raise QLogError(f"illegal statistics: n = {df} documents of N = {doc_count}, need 0 <= n <= N and N >= 1")
    bm25 = float(idf_q(df, doc_count, 1.0, "lucene"))  # Lucene's BM25 idf: always > 0 for n <= N
    return float(idf_q(df, doc_count, q, form)) / bm25


def count_terms(terms: Iterable[tuple[str, str]]) -> dict[tuple[str, str], int]:
    """``(field, term)`` -> occurrences, in the order each first occurs."""
    counts: dict[tuple[str, str], int] = {}
    for key in terms:
        counts[key] = counts.get(key, 0) + 1
    return counts


def term_boosts(terms: Iterable[tuple[str, str]], df: Mapping[tuple[str, str], int], doc_count: Mapping[str, int],
                q: float, form: str = "lucene") -> list[TermBoost]:
    """One :class:`TermBoost` per distinct ``(field, term)`` of ``terms`` (the engine's tokens, repeats kept).

    ``df`` maps each ``(field, term)`` to its document frequency and ``doc_count`` each field to N, both as
    the engine reports them; a term missing from ``df`` has n = 0. A field missing from ``doc_count`` may
    only hold absent terms (an engine that reports N through a matching document has none to give): they
    get weight 0, and match nothing whatever their boost.
    """
    out = []
    for (field, term), count in count_terms(terms).items():
        n, total = int(df.get((field, term), 0)), int(doc_count.get(field, 0))
        w = 0.0 if n == 0 and total == 0 else term_weight(n, total, q, form)
        out.append(TermBoost(field, term, count, n, total, w, count * w))
    return out
