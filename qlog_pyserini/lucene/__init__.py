"""The Lucene core: searching and indexing a Lucene index through Anserini, below every verb.

- :mod:`.searcher`: :class:`QLogSearcher` over a Lucene index (Anserini's SimpleSearcher underneath), and the
  index checks every reader of an index shares.
- :mod:`.similarities`: the ranking models by name (``qlog``, ``bm25``, ``idf-gamma``, ``qld``, ``dfr``, ``dph``).
- :mod:`.results`: a batch's hits as columns.
- :mod:`.batch`: a topic set searched in batches (what the ``search`` verb and the experiments run).
- :mod:`.fields`: weighted multi-field search, as Pyserini does it.
- :mod:`.stored`: the stored texts of hits.
- :mod:`.indexer`: a standard Lucene index built with Anserini's indexer.

It imports only the base (``jvm``, ``formats``, ``system``) and :mod:`qlog_pyserini.analysis`.
"""
