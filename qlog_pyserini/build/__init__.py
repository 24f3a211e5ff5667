"""``build``: compile and cache the similarity jar (:mod:`.jar`); ``__main__`` is the verb."""
