"""``search``: the verb, and what only it runs; the searcher it runs is the Lucene core (:mod:`qlog_pyserini.lucene`).

- :mod:`.run`: one search run from inputs to run file, in checked steps (its flags: :mod:`.flags`).
- :mod:`.feedback`: RM3 and Rocchio, as Pyserini does them.
- :mod:`.sources`: an index or topics by path, or by Pyserini's names through Pyserini's own code.
- :mod:`.instances`: the corpus indexes of an instance set.
- :mod:`.lucene`: ``install_qlog`` and ``QLogLuceneSearcher`` inside Pyserini's ``LuceneSearcher``
  (imports ``pyserini.search.lucene``, so it is not imported here).
- ``__main__``: ``python -m qlog_pyserini.search``.
"""

from qlog_pyserini.formats.trec import Hit
from qlog_pyserini.lucene.batch import search_topics
from qlog_pyserini.lucene.searcher import QLogSearcher

__all__ = ["Hit", "QLogSearcher", "search_topics"]
