"""``sweep``: q over a grid on one open index (:mod:`.run`, :mod:`.crossval`); ``__main__`` is the verb."""
