"""``stats``: index statistics, the features of the label-free q (:mod:`.statistics`); ``__main__`` is the verb."""
