"""``bench``: the home of the benchmark programs. The verb (``__main__``; :mod:`.run`, :mod:`.loop`,
:mod:`.endtoend`) times q-log BM25 against Lucene BM25; the programs the reproduce stages run through their thin
entries under ``scripts/`` are here too: :mod:`.rag_libraries` (bm25s and rank_bm25: :mod:`.rag_speed`,
:mod:`.rag_ndcg`), :mod:`.locate_cost` (``locate`` beside bm25s: :mod:`.locate`), :mod:`.issue_timing` (an
instance set's prepare, index and sweep, cold) and :mod:`.paths` (the columnar search paths)."""
