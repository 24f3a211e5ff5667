"""Searching: the q-log searcher and its hits, the similarity registry, and topic batches.

- :mod:`.searcher`: :class:`QLogSearcher` over a Lucene index (Anserini's SimpleSearcher underneath).
- :mod:`.similarities`: the ranking models by name (``qlog``, ``bm25``, ``idf-gamma``, ``qld``, ``dfr``, ``dph``).
- :mod:`.batch`: a topic set searched in batches (what the ``search`` verb and the experiments run).
- :mod:`.fields`, :mod:`.feedback`: weighted multi-field search and RM3/Rocchio, as Pyserini does them.
- :mod:`.sources`: an index or topics by path, or by Pyserini's names through Pyserini's own code.
- :mod:`.run`: one search run from inputs to run file, in checked steps (its flags: :mod:`qlog_pyserini.cli.search_flags`).
- :mod:`.lucene`: ``install_qlog`` and ``QLogLuceneSearcher`` inside Pyserini's ``LuceneSearcher``
  (imports ``pyserini.search.lucene``, so it is not imported here).
- ``__main__``: ``python -m qlog_pyserini.search``.
"""

from qlog_pyserini.formats.trec import Hit
from qlog_pyserini.search.batch import search_topics
from qlog_pyserini.search.searcher import QLogSearcher

__all__ = ["Hit", "QLogSearcher", "search_topics"]
