"""Experiments over the library: q sweeps (:mod:`.sweep`), tables of sweeps (:mod:`.table`),
the query-time benchmark (:mod:`.bench`), the paper's reproduction (:mod:`.reproduce`), the quick-start
demo (:mod:`.demo`), and the provenance every result carries (:mod:`.provenance`)."""
