"""``compare``: paired comparison of two runs (:mod:`.comparison`); ``__main__`` is the verb."""
