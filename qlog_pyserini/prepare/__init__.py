"""``prepare``: index-ready corpus, topics and qrels from BEIR, CSN, CoSQA, TREC (:mod:`.datasets`); ``__main__`` is the verb."""
