"""Instance sets: issue -> files retrieval, one small corpus (and index) per repository state.

``python -m qlog_pyserini.prepare --format swebench|multi-swe-bench|git-history`` builds a set
(:mod:`.build`), ``python -m qlog_pyserini.index --instances SET`` indexes every corpus in one JVM
(:mod:`.indexing`). The folder is read by :mod:`qlog_pyserini.formats.instances`; the file rules :mod:`.rules`; diffs
:mod:`.diffs`; git :mod:`.git`; record formats :mod:`.sources`.
"""
