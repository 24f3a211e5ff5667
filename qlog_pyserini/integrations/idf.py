"""Each BM25 library's IDF as the logarithm of its own argument, and its q-log counterpart.

bm25s (``bm25s/scoring.py``, ``_score_idf_<method>``) and rank_bm25 write every IDF as one logarithm::

    robertson   log(max(1, (N - n + 0.5) / (n + 0.5)))   the RSJ odds, clipped at 1 (bm25s)
    lucene      log(1 + (N - n + 0.5) / (n + 0.5))        Lucene's odds (bm25s; the project's default form)
    okapi       log((N - n + 0.5) / (n + 0.5))            the RSJ odds, negative below 1 (rank_bm25's BM25Okapi,
                                                          which then floors those terms at epsilon * mean IDF)
    atire       log(N / n)                                inverse document probability, no odds (bm25s)
    bm25l       log((N + 1) / (n + 0.5))                  inverse document probability (bm25s, rank_bm25's BM25L)
    bm25+       log((N + 1) / n)                          inverse document probability (bm25s, rank_bm25's BM25Plus)

q-log BM25 replaces that outer logarithm by :func:`qlog_pyserini.formula.ln_q`, floored at 0 as
:func:`qlog_pyserini.formula.idf_q` floors it: ``idf_q = max(0, ln_q(argument))``. ``idf_form`` None keeps the
method's own argument, so q = 1 is the library's own IDF; where the argument is an odds, ``idf_form`` may name
the project's other odds form (``formula.IDF_ODDS``), which :func:`qlog_pyserini.formula.idf_q` computes. Where
the argument is not an odds (atire, bm25l, bm25+), an odds form is refused: q-log applies to that method's own
argument only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formula import IDF_ODDS, check_form, idf_q, ln_q, odds_lucene, odds_rsj


@dataclass(frozen=True)
class LibraryIdf:
    """A library's IDF, ``log(argument(n, N))``; ``odds`` is the project's odds form it equals, if any."""

    name: str
    expression: str
    argument: Callable[[np.ndarray, float], np.ndarray]
    odds: str | None
    forms: tuple[str, ...]  # the odds forms ``idf_form`` may name for this IDF
    refusal: str = ""  # why an odds form outside ``forms`` is refused, for IDFs that are a log of odds

    def plain(self, n: np.ndarray, N: float) -> np.ndarray:
        """The library's own IDF, as it computes it (``log`` of the argument)."""
        return np.log(self.argument(np.asarray(n, dtype=float), float(N)))

    def qlog(self, n: np.ndarray, N: float, q: float, idf_form: str | None = None) -> np.ndarray:
        """q-log IDF: ``max(0, ln_q(argument))``, or ``formula.idf_q`` of the odds form ``idf_form``."""
        form = self.check(idf_form)
        n = np.asarray(n, dtype=float)
        if form is not None:
            return idf_q(n, float(N), q, form)
        return np.maximum(0.0, ln_q(self.argument(n, float(N)), q))

    def check(self, idf_form: str | None) -> str | None:
        """The odds form to use (None: the method's own argument); QLogError, one line, if refused."""
        if idf_form is None:
            return None
        form = check_form(idf_form)
        if form == self.odds:
            return None
        if form in self.forms:
            return form
        if self.odds is None:
            raise QLogError(f"{self.name}'s IDF is {self.expression}, not a log of odds: leave idf_form unset "
                            f"(q-log of its own argument), not {form!r}")
        raise QLogError(f"{self.name}: idf_form {form!r} is refused: {self.refusal}")


def _robertson(n, N):
    return np.maximum(1.0, odds_rsj(n, N))


def _atire(n, N):
    return N / n


def _bm25l(n, N):
    return (N + 1.0) / (n + 0.5)


def _bm25plus(n, N):
    return (N + 1.0) / n


_BOTH = tuple(IDF_ODDS)

#: bm25s's IDF methods (``BM25.idf_method``), keyed as bm25s names them
BM25S_IDF: dict[str, LibraryIdf] = {
    "robertson": LibraryIdf("bm25s method 'robertson'", "log(max(1, (N - n + 0.5) / (n + 0.5)))", _robertson,
                            "rsj", ("rsj",),
                            "its IDF is clipped at 0 for terms in more than half the documents, so their stored "
                            "scores are 0 and cannot be rescaled to the lucene odds; use idf_form 'rsj' or index "
                            "with method='lucene'"),
    "lucene": LibraryIdf("bm25s method 'lucene'", "log(1 + (N - n + 0.5) / (n + 0.5))", odds_lucene, "lucene", _BOTH),
    "atire": LibraryIdf("bm25s method 'atire'", "log(N / n)", _atire, None, ()),
    "bm25l": LibraryIdf("bm25s method 'bm25l'", "log((N + 1) / (n + 0.5))", _bm25l, None, ()),
    "bm25+": LibraryIdf("bm25s method 'bm25+'", "log((N + 1) / n)", _bm25plus, None, ()),
}

#: rank_bm25's classes (BM25Okapi's negative IDFs are floored by the class, not here)
RANK_BM25_IDF: dict[str, LibraryIdf] = {
    "BM25Okapi": LibraryIdf("rank_bm25 BM25Okapi", "log((N - n + 0.5) / (n + 0.5))", odds_rsj, "rsj", _BOTH),
    "BM25L": LibraryIdf("rank_bm25 BM25L", "log((N + 1) / (n + 0.5))", _bm25l, None, ()),
    "BM25Plus": LibraryIdf("rank_bm25 BM25Plus", "log((N + 1) / n)", _bm25plus, None, ()),
}


def bm25s_idf(idf_method: str) -> LibraryIdf:
    """The table entry of a bm25s ``idf_method``; QLogError naming the known ones otherwise."""
    try:
        return BM25S_IDF[idf_method]
    except (KeyError, TypeError):
        raise QLogError(f"unknown bm25s idf method {idf_method!r}, must be one of {', '.join(BM25S_IDF)}") from None
