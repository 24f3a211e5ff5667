"""qlog-pyserini: q-logarithm IDF for BM25 on standard Lucene indexes, from Pyserini.

The formula lives in :mod:`qlog_pyserini.formula` (Python reference) and in
``java-similarity/.../QLogBM25Similarity.java`` (what Lucene runs). Importing this package
imports nothing heavy and does not start the JVM; the first :class:`QLogSearcher` does.
"""

from __future__ import annotations

from typing import Any

__all__ = ["QLogSearcher", "Hit", "idf_q", "ln_q"]
__version__ = "0.1.0"

_LAZY = {"QLogSearcher": ".search.searcher", "Hit": ".formats.trec", "idf_q": ".formula", "ln_q": ".formula"}


def __getattr__(name: str) -> Any:
    # Lazy, so that `python -m qlog_pyserini.<verb>` does not import its own module twice.
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
