"""LangChain's ``BM25Retriever`` (``langchain-community``, built on rank_bm25's ``BM25Okapi``) with a ``q``.

    >>> from qlog_pyserini.integrations.langchain import QLogBM25Retriever          # doctest: +SKIP
    >>> retriever = QLogBM25Retriever.from_texts(texts, q=0.7, k=5)                  # doctest: +SKIP
    >>> retriever.invoke("parse the configuration file")                             # doctest: +SKIP

LangChain's own ``from_texts``/``from_documents`` build the index (its ``preprocess_func``, ``bm25_params``,
metadata and ids); the ``BM25Okapi`` vectorizer is then replaced by
:class:`qlog_pyserini.integrations.rank_bm25.QLogBM25Okapi` at ``q`` (``floor``: BM25Okapi's epsilon floor,
see that module), built from its document frequencies without tokenizing again.
"""

from __future__ import annotations

from typing import Any, Iterable

from langchain_community.retrievers import BM25Retriever

from qlog_pyserini.integrations.rank_bm25 import from_model


class QLogBM25Retriever(BM25Retriever):
    """``BM25Retriever`` ranking by q-log BM25 (rank_bm25's BM25Okapi with a q-log IDF)."""

    @classmethod
    def from_texts(cls, texts: Iterable[str], *args: Any, q: float = 1.0, idf_form: str | None = None,
                   floor: str = "epsilon", **kwargs: Any) -> "QLogBM25Retriever":
        retriever = super().from_texts(texts, *args, **kwargs)
        retriever.vectorizer = from_model(retriever.vectorizer, q, idf_form, floor=floor)
        return retriever

    @property
    def q(self) -> float:
        return self.vectorizer.q

    def set_q(self, q: float, idf_form: str | None = None) -> None:
        """A new q: the vectorizer's IDF table is recomputed from its document frequencies."""
        self.vectorizer.set_q(q, idf_form)
