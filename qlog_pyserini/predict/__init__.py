"""``predict``: the label-free q of an index (:mod:`.rule`); ``__main__`` is the verb."""
