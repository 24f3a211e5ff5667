"""qlog-pyserini: q-logarithm IDF for BM25 on standard Lucene indexes, from Pyserini.

The formula lives in :mod:`qlog_pyserini.formula` (Python reference) and in
``java-similarity/.../QLogBM25Similarity.java`` (what Lucene runs).

Importing this package does not start the JVM, but (when none runs yet) it puts our jar next to
Pyserini's on pyjnius's classpath, so ``pyserini.search`` imported later starts one JVM holding both.
Import order does not matter either way: a JVM started without our jar gets it appended on first use
(:mod:`qlog_pyserini.jvm.bridge`).

From Pyserini: :func:`install_qlog` puts q-log BM25 into a ``LuceneSearcher`` you already hold, and
:class:`QLogLuceneSearcher` is a ``LuceneSearcher`` with q-log (both in :mod:`qlog_pyserini.search.lucene`,
which imports ``pyserini.search.lucene``).

Evaluating: :func:`read_topics`, :func:`read_qrels`, :func:`read_run` load our inputs (any topic format,
TREC qrels and runs), and :func:`evaluate` scores hits, a run file or a results frame as our ``eval`` does.

A q per query in one batch: :func:`batch_search_per_query` (given q values) and :func:`search_auto_query`
(the label-free per-query q of ``--q auto-query``), both in :mod:`qlog_pyserini.predict.per_query`.
"""

from __future__ import annotations

import configparser
from importlib import metadata
from pathlib import Path
from typing import Any

from qlog_pyserini.errors import QLogError
from qlog_pyserini.jvm.bridge import configure_classpath

__all__ = ["QLogSearcher", "QLogLuceneSearcher", "install_qlog", "Hit", "to_dict", "idf_q", "ln_q",
           "read_topics", "read_qrels", "read_run", "evaluate",
           "batch_search_per_query", "search_auto_query"]


def _read_version() -> str:
    # setup.cfg is the one place the version is written: an installed package reads it from its metadata, a
    # source tree on the path that was never installed from setup.cfg itself
    try:
        return metadata.version("qlog-pyserini")
    except metadata.PackageNotFoundError:
        config = configparser.ConfigParser()
        config.read(Path(__file__).resolve().parent.parent / "setup.cfg")
        return config.get("metadata", "version", fallback="0+unknown")


__version__ = _read_version()

_LAZY = {"QLogSearcher": ".lucene.searcher", "QLogLuceneSearcher": ".search.lucene", "install_qlog": ".search.lucene",
         "Hit": ".formats.trec", "to_dict": ".formats.trec", "idf_q": ".formula", "ln_q": ".formula",
         "read_topics": ".formats.topics", "read_qrels": ".formats.trec", "read_run": ".formats.trec",
         "evaluate": ".eval.quick",
         "batch_search_per_query": ".predict.per_query", "search_auto_query": ".predict.per_query"}

try:
    configure_classpath()
except (QLogError, ImportError):  # no JDK, Pyserini or pyjnius: reported where Java is first needed, not on import
    pass


def __getattr__(name: str) -> Any:
    # Lazy, so that `python -m qlog_pyserini.<verb>` does not import its own module twice.
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
