"""``predict``: the label-free q of an index (:mod:`.rule`), of each query (:mod:`.query_rule`) and of each
instance's files (:mod:`.files`), and a batch searched at a q per query (:mod:`.per_query`); ``__main__`` is the verb."""
