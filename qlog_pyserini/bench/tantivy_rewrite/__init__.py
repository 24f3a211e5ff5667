"""Query cost of the boosted-query rewrite on Tantivy against Tantivy's own BM25 (:mod:`.measure`)."""
