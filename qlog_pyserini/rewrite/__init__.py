"""q-log BM25 as plain BM25 with one boost per query term: no plugin, no index setting, any engine."""
