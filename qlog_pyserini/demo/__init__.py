"""``demo``: the embedded quick-start benchmark (:mod:`.embedded`); ``__main__`` is the verb."""
