"""The q-log BM25 formula as short pure functions: the Python reference the tests check Lucene against.

    ln_q(x)  = (x^(1-q) - 1) / (1 - q)          (ln x when |1 - q| < 1e-9)
    idf_q    = ln_q(x)                          floored at 0 (Lucene needs non-negative scores)
    x        = 1 + (N - n + 0.5) / (n + 0.5)    "lucene" odds: q = 1 is Lucene's BM25 exactly
    x        =     (N - n + 0.5) / (n + 0.5)    "rsj" odds: the paper's formula
    score    = idf_q * (1 - 1 / (1 + f / (k1 * (1 - b + b * dl / avgdl))))     (Lucene's BM25 tf part)

N is the number of documents with the field, n the term's document frequency, f the term's
frequency in the document, dl the document length. The Java twin is ``QLogBM25Similarity``.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from qlog_pyserini.errors import QLogError

Q_EPSILON = 1e-9
DEFAULT_K1 = 0.9
DEFAULT_B = 0.4


def ln_q(x, q: float):
    """Tsallis q-logarithm of ``x`` (scalar or array); expm1 keeps it continuous at q = 1."""
    one_minus_q = 1.0 - q
    log_x = np.log(x)
    if abs(one_minus_q) < Q_EPSILON:
        return log_x
    return np.expm1(one_minus_q * log_x) / one_minus_q


def odds_lucene(n, N):
    """Lucene's BM25 odds, 1 + (N - n + 0.5) / (n + 0.5): always > 1."""
    return 1.0 + (N - n + 0.5) / (n + 0.5)


def odds_rsj(n, N):
    """Robertson–Spärck Jones odds, (N - n + 0.5) / (n + 0.5): below 1 when n > N / 2."""
    return (N - n + 0.5) / (n + 0.5)


IDF_ODDS: dict[str, Callable] = {"lucene": odds_lucene, "rsj": odds_rsj}


def idf_q(n, N, q: float, form: str = "lucene"):
    """q-log IDF of a term in ``n`` of ``N`` documents, floored at 0."""
    return np.maximum(0.0, ln_q(IDF_ODDS[check_form(form)](np.asarray(n, dtype=float), N), q))


def bm25_tf(f, dl, avgdl: float, k1: float = DEFAULT_K1, b: float = DEFAULT_B):
    """Lucene's BM25 term-frequency part (Lucene >= 8 drops the constant (k1 + 1) factor)."""
    return 1.0 - 1.0 / (1.0 + f / (k1 * (1.0 - b + b * dl / avgdl)))


def qlog_bm25(f, dl, avgdl: float, n, N, q: float, form: str = "lucene",
              k1: float = DEFAULT_K1, b: float = DEFAULT_B):
    """Score contribution of one term: idf_q * bm25_tf."""
    return idf_q(n, N, q, form) * bm25_tf(f, dl, avgdl, k1, b)


def check_q(q: float) -> float:
    """``q`` as a float if finite, else ValueError naming the value."""
    try:
        value = float(q)
    except (TypeError, ValueError):
        raise QLogError(f"illegal q value: {q!r}, must be a finite number") from None
    if not math.isfinite(value):
        raise QLogError(f"illegal q value: {q!r}, must be a finite number")
    return value


def check_form(form: str) -> str:
    """The IDF odds form name, lower-cased, if known, else ValueError listing the known ones."""
    name = str(form).strip().lower()
    if name not in IDF_ODDS:
        raise QLogError(f"illegal idf form: {form!r}, must be one of {', '.join(IDF_ODDS)}")
    return name
