"""From PyTerrier: q-log BM25 and its baselines as PyTerrier transformers (the optional extra ``pyterrier``).

- :class:`QLogRetriever`: queries frame (``qid, query``) in, results frame (``qid, docno, rank, score``)
  out, over a Lucene index; usable in ``pt.Experiment``, ``>>`` pipelines and ``pt.GridSearch`` over q.
- :class:`TextLoader`: adds each hit's indexed text (``text``), for rerankers further down a pipeline.
- :func:`sweep_on_frames`: our ``sweep`` (oracle, cross-validated and label-free q) on PyTerrier's queries and
  qrels frames; :func:`read_sweep` gives its results as frames.

``pip install 'qlog-pyserini[pyterrier]'`` installs PyTerrier 1.x alone: no torch, no Terrier jar;
PyTerrier's Java is never started. See docs/pyterrier.md.
"""

from __future__ import annotations

try:
    import pyterrier  # noqa: F401  (checked here so the error says what to install)
except ImportError as e:  # pragma: no cover - depends on the installation
    from qlog_pyserini.errors import QLogError

    raise QLogError("qlog_pyserini.pyterrier needs PyTerrier: pip install 'qlog-pyserini[pyterrier]' "
                    f"(PyTerrier 1.x); importing it failed: {e}") from None

from qlog_pyserini.pyterrier.retriever import PARAMETERS, QLogRetriever, TextLoader
from qlog_pyserini.sweep.frames import read_sweep, sweep_on_frames

__all__ = ["PARAMETERS", "QLogRetriever", "TextLoader", "read_sweep", "sweep_on_frames"]
