"""qlog-pyserini: q-logarithm IDF for BM25 on standard Lucene indexes, from Pyserini.

The formula lives in :mod:`qlog_pyserini.formula` (Python reference) and in
``java-similarity/.../QLogBM25Similarity.java`` (what Lucene runs). Importing this package
does not start the JVM; the first :class:`QLogSearcher` does.
"""

from .formula import idf_q, ln_q
from .searcher import QLogSearcher
from .trec import Hit

__all__ = ["QLogSearcher", "Hit", "idf_q", "ln_q"]
__version__ = "0.1.0"
