"""``lolo``: leave-one-family-out evaluation of the label-free q rule (:mod:`.evaluation`); ``__main__`` is the verb."""
