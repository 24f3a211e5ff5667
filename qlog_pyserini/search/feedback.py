"""Pseudo-relevance feedback (RM3, Rocchio) on top of q-log BM25, set up as Pyserini sets it up.

Both are Anserini's rerankers inside the searcher, so they run on whatever similarity is installed:

- **RM3**: the first pass ranks with q-log BM25; the top ``fb_docs`` documents give the relevance
  model, P(t|R) = sum over those documents d of tf(t, d) / |d| * score(d), where score(d) is d's
  **q-log** score; the ``fb_terms`` heaviest terms are kept, normalised to sum 1, and mixed with the
  query (weight ``original_query_weight``). The second pass scores that weighted query with q-log
  BM25 again, so each expansion term counts as its RM3 weight times its q-log BM25 term score
  (q-log IDF included).
- **Rocchio**: the top ``top_fb_docs`` (and bottom ``bottom_fb_docs``) documents of the q-log ranking
  give term-frequency vectors; the expanded query is alpha * query + beta * mean(top) - gamma *
  mean(bottom), scored with q-log BM25. Its weights do not use first-pass scores.

Feedback terms come from document vectors (terms of 2 to 20 letters or digits in at most 10% of the
documents, as Anserini filters them), so the index needs them (``-storeDocvectors``, which
``qlog_pyserini.index`` always stores).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from qlog_pyserini.errors import QLogError

# Pyserini's own fallback for MS MARCO prebuilt indexes without document vectors: Anserini then
# re-parses the stored raw documents with this collection class.
_RAW_COLLECTION = {
    "msmarco-v1-passage": "JsonCollection", "msmarco-v1-doc": "JsonCollection",
    "msmarco-v1-doc-segmented": "JsonCollection", "msmarco-v2-passage": "MsMarcoV2PassageCollection",
    "msmarco-v2-passage-augmented": "MsMarcoV2PassageCollection", "msmarco-v2-doc": "MsMarcoV2DocCollection",
    "msmarco-v2-doc-segmented": "MsMarcoV2DocCollection",
}


@dataclass(frozen=True)
class Rm3:
    """RM3 with Pyserini's defaults (``LuceneSearcher.set_rm3``)."""

    fb_terms: int = 10
    fb_docs: int = 10
    original_query_weight: float = 0.5


@dataclass(frozen=True)
class Rocchio:
    """Rocchio with Pyserini's defaults (``LuceneSearcher.set_rocchio``)."""

    top_fb_terms: int = 10
    top_fb_docs: int = 10
    bottom_fb_terms: int = 10
    bottom_fb_docs: int = 10
    alpha: float = 1.0
    beta: float = 0.75
    gamma: float = 0.0
    use_negative: bool = False


def check_feedback(fb: Rm3 | Rocchio) -> Rm3 | Rocchio:
    """``fb`` if its counts are >= 1 (bottom counts >= 0) and its weights are finite, else QLogError."""
    counts = ({"--fb-terms": fb.fb_terms, "--fb-docs": fb.fb_docs} if isinstance(fb, Rm3) else
              {"--rocchio-top-fb-terms": fb.top_fb_terms, "--rocchio-top-fb-docs": fb.top_fb_docs})
    for name, value in counts.items():
        if value < 1:
            raise QLogError(f"{name} must be at least 1, got {value}")
    if isinstance(fb, Rm3):
        if not 0 <= fb.original_query_weight <= 1:
            raise QLogError(f"--original-query-weight must be between 0 and 1, got {fb.original_query_weight}")
    else:
        for name, value in {"--rocchio-bottom-fb-terms": fb.bottom_fb_terms,
                            "--rocchio-bottom-fb-docs": fb.bottom_fb_docs}.items():
            if value < 0:
                raise QLogError(f"{name} must be at least 0, got {value}")
        for name, value in {"--rocchio-alpha": fb.alpha, "--rocchio-beta": fb.beta, "--rocchio-gamma": fb.gamma}.items():
            if not math.isfinite(value):
                raise QLogError(f"{name} must be a finite number, got {value}")
    return fb


def has_document_vectors(java_searcher: Any) -> bool:
    """Whether the index stores document vectors (Pyserini's own test: the first document has them)."""
    return java_searcher.reader.termVectors().get(0) is not None


def set_feedback(java_searcher: Any, fb: Rm3 | Rocchio | None, prebuilt_index: str | None = None) -> None:
    """Set up ``fb`` on an Anserini ``SimpleSearcher`` exactly as ``LuceneSearcher.set_rm3``/``set_rocchio`` do.

    ``None`` removes any feedback. QLogError if the index has no document vectors (and is not one of
    the MS MARCO prebuilt indexes Pyserini knows how to re-parse).
    """
    java_searcher.unset_rm3()
    java_searcher.unset_rocchio()
    if fb is None:
        return
    check_feedback(fb)
    if has_document_vectors(java_searcher):
        collection = None
    elif isinstance(fb, Rm3) and prebuilt_index in _RAW_COLLECTION:
        collection = _RAW_COLLECTION[prebuilt_index]
    elif isinstance(fb, Rocchio) and prebuilt_index in ("msmarco-v1-passage", "msmarco-v1-doc", "msmarco-v1-doc-segmented"):
        collection = "JsonCollection"
    else:
        kind = "RM3" if isinstance(fb, Rm3) else "Rocchio"
        raise QLogError(f"{kind} needs an index with document vectors (-storeDocvectors); this one has none")
    if isinstance(fb, Rm3):
        java_searcher.set_rm3(collection, int(fb.fb_terms), int(fb.fb_docs), float(fb.original_query_weight), False, True)
    else:
        java_searcher.set_rocchio(collection, int(fb.top_fb_terms), int(fb.top_fb_docs), int(fb.bottom_fb_terms),
                                  int(fb.bottom_fb_docs), float(fb.alpha), float(fb.beta), float(fb.gamma), False,
                                  bool(fb.use_negative))
