"""The q-log BM25 formula as short pure functions: the Python reference the tests check Lucene against.

    ln_q(x)  = (x^(1-q) - 1) / (1 - q)          (ln x when |1 - q| < 1e-9)
    idf_q    = ln_q(x)                          floored at 0 (Lucene needs non-negative scores)
    x        = 1 + (N - n + 0.5) / (n + 0.5)    "lucene" odds: q = 1 is Lucene's BM25 exactly
    x        =     (N - n + 0.5) / (n + 0.5)    "rsj" odds: the paper's formula
    score    = idf_q * (1 - 1 / (1 + f / (k1 * (1 - b + b * dl / avgdl))))     (Lucene's BM25 tf part)

N is the number of documents with the field, n the term's document frequency, f the term's
frequency in the document, dl the document length. The Java twin is ``QLogBM25Similarity``.

    >>> from qlog_pyserini.formula import idf_q, ln_q
    >>> float(ln_q(4.0, 0.5))                      # (4^0.5 - 1) / 0.5
    2.0
    >>> float(idf_q(1, 1000, q=1.0)) == float(ln_q(1 + 999.5 / 1.5, 1.0))   # q = 1: Lucene's BM25 IDF
    True
    >>> float(idf_q(900, 1000, q=0.5, form="rsj"))  # odds below 1: floored at 0
    0.0
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


# Where the q-log IDF means something in float arithmetic. Above Q_MAX every term rarer than about
# 1 in 10,000 documents gets the same float IDF, 1/(q-1) (x^(1-q) vanishes below float resolution);
# below Q_MIN the IDF grows faster than the square of the odds, so a term in one of a million
# documents alone scores above 1e11. Within the range, MAX_TERM_SCORE still rejects indexes that are
# too large for a low q (check_score_range).
Q_MIN = -1.0
Q_MAX = 3.0
# The largest score one query term may contribute: a query of up to 1,000 such terms stays below 1e9.
# Run files print 6 decimals and trec_eval reads them into 32-bit floats, which above 16 are more than
# 1e-6 apart, so the run writer keeps written scores strictly decreasing as floats, not only as text
# (formats.trec.format_run_lines); the bound keeps Anserini's 4-decimal rounding far from overflow.
MAX_TERM_SCORE = 1e6
FLOAT32_MAX = 3.4028234663852886e38


def java_number(value: float, single: bool = False) -> str:
    """``value`` printed as Java prints a double (a float with ``single``): ``5.0``, ``NaN``, ``Infinity``."""
    if single:
        value = _as_float32(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return str(np.float32(value)) if single else repr(float(value))


def _as_float32(value: float) -> float:
    with np.errstate(over="ignore"):  # Java's (float) cast: too large becomes Infinity
        return float(np.float32(value))


def _number(name: str, value: object) -> float:
    if isinstance(value, bool):
        raise QLogError(f"illegal {name} value: {value!r}, must be a number")
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise QLogError(f"illegal {name} value: {value!r}, must be a number") from None


def check_q(q: float) -> float:
    """``q`` as a float if in [Q_MIN, Q_MAX], else QLogError with the Java constructor's message."""
    value = _number("q", q)
    if not Q_MIN <= value <= Q_MAX:  # NaN included
        raise QLogError(f"illegal q value: {java_number(value)}, must be between {Q_MIN!r} and {Q_MAX!r}")
    return value


def check_qlog(q: float, k1: float, b: float, idf_form: str) -> tuple[float, float, float, str]:
    """``(q, k1, b, idf_form)`` checked as the Java ``QLogBM25Similarity`` constructor checks them, with its
    messages (Lucene's own for k1 and b), so every API and engine refuses the same values in the same words.
    The Java side decides the contract; tests/search/test_parameter_contract.py compares the two."""
    q = check_q(q)
    k1, b = check_bm25(k1, b)
    return q, k1, b, check_form(idf_form)


def check_bm25(k1: float, b: float) -> tuple[float, float]:
    """``(k1, b)`` checked as Lucene's ``BM25Similarity`` constructor checks them, in its words."""
    k1, b = _number("k1", k1), _number("b", b)
    k1_float, b_float = _as_float32(k1), _as_float32(b)  # Lucene takes floats
    if not (math.isfinite(k1_float) and k1_float >= 0):
        raise QLogError(f"illegal k1 value: {java_number(k1, single=True)}, must be a non-negative finite value")
    if not 0 <= b_float <= 1:
        raise QLogError(f"illegal b value: {java_number(b, single=True)}, must be between 0 and 1")
    return k1, b


def check_float_parameter(name: str, value: float, low: float = 0.0, low_open: bool = False) -> float:
    """``value`` as a float if finite, at least ``low`` (above it if ``low_open``) and a finite Java float."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise QLogError(f"illegal {name} value: {value!r}, must be a number") from None
    if not math.isfinite(v) or abs(v) > FLOAT32_MAX:
        raise QLogError(f"illegal {name} value: {value!r}, must be a finite number below 3.4e38 (a Java float)")
    if v < low or (low_open and v == low):
        raise QLogError(f"illegal {name} value: {value!r}, must be {'>' if low_open else '>='} {low:g}")
    return v


def max_idf(N: int, q: float, form: str = "lucene") -> float:
    """The largest q-log IDF on an index of ``N`` documents: a term in one document."""
    with np.errstate(over="ignore"):
        return float(idf_q(1, max(int(N), 1), q, form))


def check_score_range(largest: float, what: str) -> None:
    """QLogError unless ``largest`` (the most one query term can score) fits :data:`MAX_TERM_SCORE`."""
    if not (math.isfinite(largest) and largest <= MAX_TERM_SCORE):
        raise QLogError(f"{what}: one query term can score {largest:.3g}, above the {MAX_TERM_SCORE:g} that "
                        "run files and trec_eval represent exactly; use a larger q (or a smaller gamma)")


def check_form(form: str) -> str:
    """The IDF odds form name, lower-cased, if known, else ValueError listing the known ones."""
    name = str(form).strip().lower()
    if name not in IDF_ODDS:
        raise QLogError(f"illegal idf form: {form}, must be one of {', '.join(IDF_ODDS)}")
    return name
