"""Searching: the q-log searcher and its hits, the similarity registry, analyzers, and topic batches.

- :mod:`.searcher`: :class:`QLogSearcher` over a Lucene index (Anserini's SimpleSearcher underneath).
- :mod:`.similarities`: the ranking models by name (``qlog``, ``bm25``, ``idf-gamma``, ``qld``, ``dfr``, ``dph``).
- :mod:`.analyzers`: the analyzer an index was built with, and query analysis to match.
- :mod:`.batch`: a topic set searched in batches (what the ``search`` verb and the experiments run).
- ``__main__``: ``python -m qlog_pyserini.search``.
"""

from qlog_pyserini.formats.trec import Hit
from qlog_pyserini.search.batch import search_topics
from qlog_pyserini.search.searcher import QLogSearcher

__all__ = ["Hit", "QLogSearcher", "search_topics"]
