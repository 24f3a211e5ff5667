"""Predicting q without labels: index statistics (:mod:`.statistics`), the label-free rule
(:mod:`.rule`, ``--q auto``), and its leave-one-corpus-out evaluation (:mod:`.lolo`)."""
