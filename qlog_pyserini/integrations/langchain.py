"""LangChain's ``BM25Retriever`` (``langchain-community``, built on rank_bm25's ``BM25Okapi``) with a ``q``.

    >>> from qlog_pyserini.integrations.langchain import QLogBM25Retriever          # doctest: +SKIP
    >>> retriever = QLogBM25Retriever.from_texts(texts, q=0.7, k=5)                  # doctest: +SKIP
    >>> retriever.invoke("parse the configuration file")                             # doctest: +SKIP
    >>> retriever.q = 0.5                                                            # doctest: +SKIP

LangChain's own ``from_texts``/``from_documents`` build the index (its ``preprocess_func``, ``bm25_params``,
metadata and ids) and hand ``q``, ``idf_form`` and ``floor`` to the constructor with the other fields; the
constructor replaces the ``BM25Okapi`` vectorizer (or a ``BM25L``/``BM25Plus`` one given to it) by
:class:`qlog_pyserini.integrations.rank_bm25.QLogBM25Okapi` at ``q`` (``floor``: BM25Okapi's epsilon floor, see
that module), built from its document frequencies without tokenizing again. A keyword the retriever does not
take is refused (LangChain's retrievers ignore one, so ``qq=0.7`` would build plain BM25 without a word).
Assigning ``q`` or ``idf_form`` recomputes the vectorizer's IDF table, as assigning ``k`` changes the hits.
"""

from __future__ import annotations

from typing import Any

from langchain_community.retrievers import BM25Retriever
from pydantic import ConfigDict, model_validator

from qlog_pyserini.integrations.rank_bm25 import from_model


class QLogBM25Retriever(BM25Retriever):
    """``BM25Retriever`` ranking by q-log BM25 (rank_bm25's BM25Okapi with a q-log IDF)."""

    model_config = ConfigDict(extra="forbid")

    q: float = 1.0
    idf_form: str | None = None
    floor: str = "epsilon"

    @model_validator(mode="after")
    def _qlog_vectorizer(self) -> "QLogBM25Retriever":
        # object.__setattr__: the field's own assignment below would recompute the table a second time
        object.__setattr__(self, "vectorizer", from_model(self.vectorizer, self.q, self.idf_form, floor=self.floor))
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("q", "idf_form"):
            q, form = (value, self.idf_form) if name == "q" else (self.q, value)
            self.vectorizer.set_q(q, form)  # refused (QLogError) before the field changes
            value = self.vectorizer.q if name == "q" else self.vectorizer.idf_form
        elif name == "floor":
            self.vectorizer = from_model(self.vectorizer, self.q, self.idf_form, floor=value)
        super().__setattr__(name, value)

    def set_q(self, q: float, idf_form: str | None = None) -> None:
        """A new q: the vectorizer's IDF table is recomputed from its document frequencies."""
        self.vectorizer.set_q(q, idf_form)
        super().__setattr__("q", self.vectorizer.q)
        super().__setattr__("idf_form", self.vectorizer.idf_form)
