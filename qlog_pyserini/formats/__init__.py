"""The community's file formats: TREC runs and qrels (:mod:`.trec`), topics in TSV, BEIR jsonl
and TREC SGML (:mod:`.topics`), and corpora as JSON lines (:mod:`.documents`). No JVM."""
