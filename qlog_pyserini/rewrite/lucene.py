"""The rewrite on a Lucene index: the boosted ``BooleanQuery`` of ``BoostQuery(TermQuery)`` clauses, searched
under Lucene's plain ``BM25Similarity``, and a TREC run of it to hold against ``search --q``.

    >>> from qlog_pyserini.rewrite.lucene import LuceneRewriter
    >>> with LuceneRewriter("indexes/csn-ruby", q=0.7) as r:  # doctest: +SKIP
    ...     hits = r.search("parse the json body of a request", k=10)  # doctest: +SKIP

Query terms are the index's own analysis (the analyzer the index records, as :class:`QLogSearcher` uses);
N is the field's docCount (``contents`` by default) and n each term's docFreq, Lucene's own BM25 statistics. The
searcher underneath is Anserini's, so hits are ordered, rounded and tie-stepped exactly as ``search``'s.
"""

from __future__ import annotations

import os
from typing import Any

from qlog_pyserini.analysis.analyzers import analyze
from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import Hit
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1, check_form, check_q
from qlog_pyserini.jvm.bridge import jclass
from qlog_pyserini.lucene.searcher import QLogSearcher, instance_call
from qlog_pyserini.rewrite.boosts import TermBoost, term_boosts

CONTENTS = "contents"  # Anserini's text field


def lucene_query(boosts: list[TermBoost]) -> Any:
    """The Java ``BooleanQuery``: one SHOULD ``BoostQuery(TermQuery(field:term), boost)`` per term."""
    builder = jclass("org.apache.lucene.search.BooleanQuery$Builder")()
    should = jclass("org.apache.lucene.search.BooleanClause$Occur").SHOULD
    Term, TermQuery = jclass("org.apache.lucene.index.Term"), jclass("org.apache.lucene.search.TermQuery")
    BoostQuery = jclass("org.apache.lucene.search.BoostQuery")
    for b in boosts:
        builder.add(BoostQuery(TermQuery(Term(b.field, b.term)), float(b.boost)), should)
    return builder.build()


class LuceneRewriter:
    """One open Lucene index searched with rewritten queries under ``BM25Similarity(k1, b)``.

    Args:
        index_dir: a Lucene index built by Anserini/Pyserini or ``qlog_pyserini.index``.
        q, idf_form: the q-log BM25 the boosts stand in for.
        k1, b: BM25's parameters (the q-log model's too: the rewrite changes only the IDF).
        field: the indexed text field searched; an index without it is refused, not searched empty.
    """

    def __init__(self, index_dir: str | os.PathLike, q: float, idf_form: str = "lucene",
                 k1: float = DEFAULT_K1, b: float = DEFAULT_B, field: str = CONTENTS) -> None:
        self.q, self.idf_form, self.field = check_q(q), check_form(idf_form), field
        self.searcher = QLogSearcher(index_dir, k1=k1, b=b)
        try:
            self.searcher.set_similarity("bm25", k1=k1, b=b)
            self.doc_count = int(instance_call(self.searcher.java, "doc_count", field))
            if self.doc_count < 1:
                raise QLogError(f"index {str(index_dir)!r} has no document with a {field!r} field")
        except BaseException:
            self.searcher.close()
            raise

    def boosts(self, text: str) -> list[TermBoost]:
        """The per-term boosts of ``text`` on this index (empty for an all-stopword text)."""
        terms = [(self.field, t) for t in analyze(text, self.searcher.analyzer)]
        df = {key: int(instance_call(self.searcher.java, "doc_freq", *key)) for key in dict.fromkeys(terms)}
        return term_boosts(terms, df, {self.field: self.doc_count}, self.q, self.idf_form)

    def search(self, text: str, k: int = 10) -> list[Hit]:
        """Top ``k`` hits of the rewritten ``text`` under plain BM25, in Anserini's order and rounding."""
        return self.searcher.search_query(lucene_query(self.boosts(text)), k)

    def close(self) -> None:
        self.searcher.close()

    def __enter__(self) -> "LuceneRewriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
