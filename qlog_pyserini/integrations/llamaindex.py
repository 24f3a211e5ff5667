"""LlamaIndex's ``BM25Retriever`` (``llama-index-retrievers-bm25``, built on bm25s) with a ``q``.

    >>> from qlog_pyserini.integrations.llamaindex import QLogBM25Retriever            # doctest: +SKIP
    >>> retriever = QLogBM25Retriever.from_defaults(nodes=nodes, similarity_top_k=5, q=0.7)   # doctest: +SKIP
    >>> retriever.retrieve("parse the configuration file")                             # doctest: +SKIP

LlamaIndex's own retriever, tokenizer (its stemmer and stopwords) and bm25s index; the index's score matrix is
rescaled by :func:`qlog_pyserini.integrations.bm25s.rescale`. ``persist`` adds the q-log state beside LlamaIndex's
files and ``from_persist_dir`` restores q (LlamaIndex's own ``BM25Retriever.from_persist_dir`` reads the q-log
scores too, but cannot change q).
"""

from __future__ import annotations

import json
import os
from typing import Any

from llama_index.retrievers.bm25 import BM25Retriever
from llama_index.retrievers.bm25.base import DEFAULT_PERSIST_FILENAME

from qlog_pyserini.integrations import bm25s as qlog_bm25s


class QLogBM25Retriever(BM25Retriever):
    """``BM25Retriever`` whose bm25s index scores q-log BM25 at ``q`` (None: the index's current q, 1 if plain)."""

    def __init__(self, *args: Any, q: float | None = None, idf_form: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        current = qlog_bm25s.state(self.bm25)
        if q is not None or idf_form is not None:
            qlog_bm25s.rescale(self.bm25, current.q if q is None else q, idf_form)
        else:
            self.bm25.qlog = current

    @property
    def q(self) -> float:
        return self.bm25.qlog.q

    def set_q(self, q: float, idf_form: str | None = None) -> None:
        """Rescale the index to ``q``: one pass over its score matrix, no re-indexing."""
        qlog_bm25s.rescale(self.bm25, q, idf_form)

    @classmethod
    def from_defaults(cls, *args: Any, q: float = 1.0, idf_form: str | None = None,
                      **kwargs: Any) -> "QLogBM25Retriever":
        retriever = super().from_defaults(*args, **kwargs)
        retriever.set_q(q, idf_form)
        return retriever

    def persist(self, path: str, encoding: str = "utf-8", **kwargs: Any) -> None:
        super().persist(path, encoding=encoding, **kwargs)
        qlog_bm25s.save_state(self.bm25, path)

    @classmethod
    def from_persist_dir(cls, path: str, encoding: str = "utf-8", **kwargs: Any) -> "QLogBM25Retriever":
        bm25 = qlog_bm25s.load(path, load_corpus=True, **kwargs)
        with open(os.path.join(path, DEFAULT_PERSIST_FILENAME), encoding=encoding) as f:
            retriever_data = json.load(f)
        return cls(existing_bm25=bm25, **retriever_data)
