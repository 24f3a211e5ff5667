"""Indexing: standard Lucene indexes with Anserini's own indexer (or the identifier-aware analyzer).

``python -m qlog_pyserini.index`` is the command line (``__main__``); the library is :mod:`qlog_pyserini.lucene.indexer`.
"""

from qlog_pyserini.lucene.indexer import IndexSummary, build_index

__all__ = ["IndexSummary", "build_index"]
