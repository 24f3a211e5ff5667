"""q-log versions of rank_bm25's ``BM25Okapi``, ``BM25L`` and ``BM25Plus`` (what LangChain's BM25Retriever wraps).

Each class is rank_bm25's own, with the IDF of :mod:`.idf` in q-log form; term-frequency parts, tokenizers and
``get_scores``/``get_top_n``/``get_batch_scores`` stay rank_bm25's. q = 1 with the class's own IDF is rank_bm25's
computation itself (bit-identical). ``set_q`` recomputes the IDF table from the document frequencies kept at
construction, without re-reading the corpus.

**BM25Okapi's epsilon floor.** BM25Okapi's IDF is ``log`` of the RSJ odds ``(N - n + 0.5) / (n + 0.5)``, which
is negative for a term in more than half the documents; rank_bm25 replaces each negative IDF by
``epsilon * mean IDF`` (the mean over the whole vocabulary, negative values included). ``floor="epsilon"``
(default) keeps that rule on the q-log scale: the negative values are ``ln_q`` of odds below 1 and the floor is
``epsilon * mean q-log IDF``. The mean is dominated by the rare terms, most of a code vocabulary, which q < 1
amplifies most, so as q falls the floored common terms gain on mid-frequency ones (``results/rag-libraries.md``
measures both floors). ``floor="zero"`` gives those terms 0, as
:func:`qlog_pyserini.formula.idf_q` and Lucene do; ``idf_form="lucene"`` uses Lucene's odds, never below 1, so no
floor applies.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
from rank_bm25 import BM25L, BM25Okapi, BM25Plus

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formula import Q_EPSILON, check_bm25, check_q, ln_q
from qlog_pyserini.integrations.idf import RANK_BM25_IDF, LibraryIdf

FLOORS = ("epsilon", "zero")


class _QLogIdf:
    """The q-log IDF table shared by the three classes (a mixin before rank_bm25's class)."""

    LIBRARY_IDF: LibraryIdf

    def _configure(self, q: float, idf_form: str | None) -> None:
        q, idf_form = check_q(q), self.LIBRARY_IDF.check(idf_form)  # both checked before either changes
        self.q, self.idf_form = q, idf_form

    def _build(self, corpus: Any, tokenizer: Any, k1: float, b: float, q: float, idf_form: str | None,
               **library: Any) -> None:
        """Check and set q and the model, then let rank_bm25 index ``corpus`` (its ``_calc_idf`` is ours)."""
        self._configure(q, idf_form)
        # rank_bm25 takes any k1 and b (k1 < 0 scores every document 0, b > 1 rewards length) and divides by
        # zero on an empty corpus: refused here in the words the Lucene side uses
        check_bm25(k1, b)
        if hasattr(corpus, "__len__") and len(corpus) == 0:
            raise QLogError("the corpus holds no documents: nothing to score")
        super().__init__(corpus, tokenizer=tokenizer, k1=k1, b=b, **library)  # type: ignore[call-arg]
        if not self.avgdl:  # type: ignore[attr-defined]
            # every length normalisation would divide by 0: rank_bm25 scores every document NaN
            raise QLogError(f"the corpus's {self.corpus_size} documents hold no tokens: nothing to score")

    def _calc_idf(self, nd: Mapping[str, int]) -> None:
        self.document_frequencies = dict(nd)
        if self._is_own_bm25():
            super()._calc_idf(nd)  # type: ignore[misc]
            return
        words = list(nd)
        df = np.fromiter((nd[w] for w in words), dtype=float, count=len(words))
        self.idf = dict(zip(words, self._qlog_idf(df).tolist()))

    def _is_own_bm25(self) -> bool:
        return abs(1.0 - self.q) < Q_EPSILON and self.idf_form is None

    def _qlog_idf(self, df: np.ndarray) -> np.ndarray:
        return self.LIBRARY_IDF.qlog(df, self.corpus_size, self.q, self.idf_form)

    def set_q(self, q: float, idf_form: str | None = None) -> None:
        """A new q (and odds form) for the same corpus: the IDF table is recomputed, nothing else."""
        self._configure(q, idf_form)
        self.idf = {}
        self._calc_idf(self.document_frequencies)


class QLogBM25Okapi(_QLogIdf, BM25Okapi):
    """rank_bm25's ``BM25Okapi`` with a q-log IDF (``floor``: what happens to negative IDFs, see the module)."""

    LIBRARY_IDF = RANK_BM25_IDF["BM25Okapi"]

    def __init__(self, corpus, tokenizer=None, k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25,
                 q: float = 1.0, idf_form: str | None = None, floor: str = "epsilon") -> None:
        if floor not in FLOORS:
            raise QLogError(f"illegal floor: {floor!r}, must be one of {', '.join(FLOORS)}")
        self.floor = floor
        self._build(corpus, tokenizer, k1, b, q, idf_form, epsilon=epsilon)

    def _is_own_bm25(self) -> bool:
        return super()._is_own_bm25() and self.floor == "epsilon"

    def _qlog_idf(self, df: np.ndarray) -> np.ndarray:
        if self.idf_form is not None or self.floor == "zero":
            return super()._qlog_idf(df)
        raw = ln_q(self.LIBRARY_IDF.argument(df, float(self.corpus_size)), self.q)
        self.average_idf = float(raw.mean()) if raw.size else 0.0
        return np.where(raw < 0, self.epsilon * self.average_idf, raw)


class QLogBM25L(_QLogIdf, BM25L):
    """rank_bm25's ``BM25L`` with ``max(0, ln_q((N + 1) / (n + 0.5)))`` as IDF."""

    LIBRARY_IDF = RANK_BM25_IDF["BM25L"]

    def __init__(self, corpus, tokenizer=None, k1: float = 1.5, b: float = 0.75, delta: float = 0.5,
                 q: float = 1.0, idf_form: str | None = None) -> None:
        self._build(corpus, tokenizer, k1, b, q, idf_form, delta=delta)


class QLogBM25Plus(_QLogIdf, BM25Plus):
    """rank_bm25's ``BM25Plus`` with ``max(0, ln_q((N + 1) / n))`` as IDF."""

    LIBRARY_IDF = RANK_BM25_IDF["BM25Plus"]

    def __init__(self, corpus, tokenizer=None, k1: float = 1.5, b: float = 0.75, delta: float = 1,
                 q: float = 1.0, idf_form: str | None = None) -> None:
        self._build(corpus, tokenizer, k1, b, q, idf_form, delta=delta)


QLOG_CLASSES: dict[type, type] = {BM25Okapi: QLogBM25Okapi, BM25L: QLogBM25L, BM25Plus: QLogBM25Plus}


def from_model(model: Any, q: float, idf_form: str | None = None, **options: Any) -> Any:
    """A q-log copy of a built rank_bm25 ``BM25Okapi``/``BM25L``/``BM25Plus`` (its corpus is not read again; the
    document frequencies come from its ``doc_freqs``). ``options``: ``floor`` for BM25Okapi."""
    cls = QLOG_CLASSES.get(type(model)) or (type(model) if isinstance(model, _QLogIdf) else None)
    if cls is None:
        raise QLogError(f"not a rank_bm25 BM25Okapi, BM25L or BM25Plus: {type(model).__name__}")
    copy = cls.__new__(cls)
    copy.__dict__.update(model.__dict__)
    if cls is QLogBM25Okapi:
        floor = options.pop("floor", getattr(model, "floor", "epsilon"))
        if floor not in FLOORS:
            raise QLogError(f"illegal floor: {floor!r}, must be one of {', '.join(FLOORS)}")
        copy.floor = floor
    if options:
        raise QLogError(f"unknown option(s) for {cls.__name__}: {', '.join(options)}")
    nd: dict[str, int] = {}
    for frequencies in model.doc_freqs:
        for word in frequencies:
            nd[word] = nd.get(word, 0) + 1
    copy.document_frequencies = nd
    copy.set_q(q, idf_form)
    return copy
