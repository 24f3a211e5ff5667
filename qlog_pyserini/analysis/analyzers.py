"""The two analyzers an index can be built with, and what they make of a text.

    >>> from qlog_pyserini.analysis.analyzers import analyze
    >>> analyze("handleWebSocketUpgrade", "identifier")  # doctest: +JVM
    ['handlewebsocketupgrad', 'handl', 'web', 'socket', 'upgrad']

``default`` is Anserini's ``DefaultEnglishAnalyzer`` (StandardTokenizer, possessive and lower-case
filters, English stopwords, Porter stemming): the frozen generic tokenization q-log BM25 targets.
``identifier`` is the same chain with Lucene's ``WordDelimiterGraphFilter`` splitting camelCase,
PascalCase (acronyms included), snake_case, dotted names and letter/digit runs while keeping the
original token; its exact chain is in the Javadoc of ``io.qlog.analysis.IdentifierAnalyzer``.

An index records its analyzer in its Lucene commit data (``qlog.analyzer``); an index without
the record (any index built by Anserini or Pyserini) was built with ``default``.
:class:`qlog_pyserini.search.searcher.QLogSearcher` reads the record and analyzes queries the same way.
"""

from __future__ import annotations

import os
from typing import Any

from qlog_pyserini.errors import QLogError
from qlog_pyserini.jvm.bridge import jclass

ANALYZERS = ("default", "identifier")
ANALYZER_CLASS = "io.qlog.analysis.IdentifierAnalyzer"
INDEXER_CLASS = "io.qlog.index.AnalyzerIndexer"


def check_analyzer(name: str) -> str:
    """``name`` if it is one of :data:`ANALYZERS`, else :class:`QLogError` naming the choices."""
    if name not in ANALYZERS:
        raise QLogError(f"unknown analyzer {name!r}; choose one of {', '.join(ANALYZERS)}")
    return name


def java_analyzer(name: str) -> Any:
    """The Lucene ``Analyzer`` called ``name`` (starts the JVM)."""
    return jclass(ANALYZER_CLASS).forName(check_analyzer(name))


def analyze(text: str, analyzer: str = "default") -> list[str]:
    """The terms ``text`` is indexed as (and a query is searched as) under ``analyzer``, in order."""
    return [str(t) for t in jclass(ANALYZER_CLASS).analyze(check_analyzer(analyzer), text).toArray()]


def index_analyzer(index_dir: str | os.PathLike) -> str:
    """The analyzer ``index_dir`` was built with: its commit record, else ``default`` (starts the JVM)."""
    name = str(jclass(INDEXER_CLASS).recordedAnalyzer(str(index_dir)))
    if name not in ANALYZERS:
        raise QLogError(f"index {str(index_dir)!r} was built with analyzer {name!r}, which this version "
                        f"does not know (it knows {', '.join(ANALYZERS)})")
    return name
