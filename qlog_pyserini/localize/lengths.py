"""A label-free b for an index: BM25-VA's length normalisation at the corpus's mean verboseness.

Lipani, Lupu, Hanbury and Aizawa ("Verboseness Fission for BM25 Document Length Normalization", ICTIR 2015)
replace BM25's ``(1 - b) + b * L_d / avgdl`` by

    B_VA(d) = mavgtf^-2 * avgtf_d + (1 - mavgtf^-1) * L_d / avgdl

with ``L_d`` the document's length in tokens, ``|d|`` its distinct terms, ``avgtf_d = L_d / |d|`` its
verboseness (how often it repeats a term) and ``mavgtf`` the mean of ``avgtf_d`` over the collection: no free
parameter, and results they report as indistinguishable from a tuned b. A Lucene index keeps one length per
document (its norm), not ``|d|``, so the per-document form needs a second per-document statistic at index time
and a scorer of its own. Replacing each document's verboseness by the collection's mean (``avgtf_d = mavgtf``)
gives exactly BM25's form with

    b_VA = 1 - 1 / mavgtf          (the first term becomes 1 / mavgtf = 1 - b_VA)

so this b is BM25-VA for a document of average verboseness, read from the index's own term vectors, and every
Lucene similarity of the project (q-log BM25 included) scores with it unchanged. A corpus whose documents
repeat their terms a lot (long files, high ``mavgtf``) gets a b near 1 (full length normalisation); a corpus of
short documents that rarely repeat a term (``mavgtf`` near 1) gets a b near 0.

    >>> verboseness_b(4.0)
    0.75
"""

from __future__ import annotations

import math

from qlog_pyserini.errors import QLogError
from qlog_pyserini.lucene.searcher import QLogSearcher

SAMPLE = 2000  # documents read for mavgtf
SEED = 0  # of the sample: the statistics' default


def verboseness_b(mavgtf: float) -> float:
    """``1 - 1 / mavgtf`` (see the module docstring); ``mavgtf`` >= 1 by construction."""
    if not (math.isfinite(mavgtf) and mavgtf >= 1):
        raise QLogError(f"illegal mean average term frequency {mavgtf!r}: it is at least 1")
    return 1.0 - 1.0 / mavgtf


def mean_average_tf(searcher: QLogSearcher, field: str = "contents", sample: int = SAMPLE) -> float:
    """``mavgtf``: the mean of ``L_d / |d|`` over at most ``sample`` live documents with terms in ``field``, read
    from the stored term vectors (``index`` stores them for every document). The documents are the statistics'
    seeded sample (:mod:`qlog_pyserini.stats.statistics`: the smallest hashes of their ids), so the value depends
    on the documents alone, not on the order threads or updates put them in the index; a mean of a few thousand
    values is known to about a percent, and a units index holds hundreds of thousands."""
    from qlog_pyserini.jvm.bridge import jclass

    value = jclass("io.qlog.index.CorpusStats").meanVerboseness(searcher.java.reader, field, sample, SEED)
    if math.isnan(value):
        raise QLogError(f"the index has no term vectors of {field!r}: build it with doc vectors stored")
    return value


def index_b(searcher: QLogSearcher) -> float:
    """The label-free b of the index ``searcher`` reads (:func:`verboseness_b` of its :func:`mean_average_tf`)."""
    return verboseness_b(mean_average_tf(searcher))
