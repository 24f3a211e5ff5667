"""``reproduce``: the paper's comparisons on real code (:mod:`.pipeline`); ``__main__`` is the verb."""
