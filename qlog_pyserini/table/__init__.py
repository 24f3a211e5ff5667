"""``table``: one table from several sweeps (:mod:`.rows`); ``__main__`` is the verb."""
