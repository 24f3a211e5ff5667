"""Evaluation: the real trec_eval (:mod:`.trec_eval`), paired significance tests
(:mod:`.significance`), paired run comparison (:mod:`.comparison`) and Recall@K-tokens
(:mod:`.budget`). ``python -m qlog_pyserini.eval`` is this package's command line."""
