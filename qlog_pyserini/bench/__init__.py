"""``bench``: query-time cost of q-log BM25 against Lucene BM25 (:mod:`.benchmark`); ``__main__`` is the verb."""
