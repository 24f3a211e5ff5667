"""Indexing: standard Lucene indexes with Anserini's own indexer (or the identifier-aware analyzer).

``python -m qlog_pyserini.index`` is the command line (``__main__``); :mod:`.indexer` is the library.
"""

from qlog_pyserini.index.indexer import IndexSummary, build_index

__all__ = ["IndexSummary", "build_index"]
