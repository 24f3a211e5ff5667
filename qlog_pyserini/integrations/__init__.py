"""q-log BM25 where RAG pipelines keep their BM25: bm25s, rank_bm25, and the LlamaIndex and LangChain retrievers.

A shared library, not a verb; each optional dependency is imported only by its own module, and is its own
extra of the package (``pip install -e '.[bm25s]'``, ``.[rank_bm25]``, ``.[llamaindex]``, ``.[langchain]``):

- :mod:`.idf`: every library's IDF written as the logarithm of its own argument, side by side, and the
  q-log IDF of each (the formula is :mod:`qlog_pyserini.formula`'s).
- :mod:`.bm25s`: ``rescale(model, q)``, one pass over a ``bm25s.BM25`` score matrix; ``save``/``load`` keep q.
- :mod:`.rank_bm25`: ``QLogBM25Okapi``, ``QLogBM25L``, ``QLogBM25Plus``.
- :mod:`.llamaindex`, :mod:`.langchain`: each framework's ``BM25Retriever`` with a ``q``.
- :mod:`.labelfree`: the label-free q (:mod:`qlog_pyserini.predict.rule`) from a bm25s or rank_bm25 index.

docs/rag-libraries.md shows each in three lines.
"""
