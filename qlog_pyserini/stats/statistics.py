"""Hapax statistics of an indexed field, and the h_tok variants the label-free q rule reads.

    >>> from qlog_pyserini.stats.statistics import corpus_stats
    >>> stats = corpus_stats("indexes/csn-ruby")                          # doctest: +SKIP
    >>> stats["h_tok"]["hapax-per-token"], stats["df_slope"]["full"]     # doctest: +SKIP

The counts come from one Java pass over the field's term dictionary (``io.qlog.index.CorpusStats``;
no vocabulary crosses into Python), plus the same counts on a seeded sample of documents read from
the stored term vectors. Each feature of :data:`FEATURES` is a short function of one count table (the
whole index, or the sample): the readings of the paper's h_tok, and the slope of the df distribution
(:func:`df_slope`). What each one measures and why the sample versions compare corpora of different
sizes: docs/label-free-q.md ("The features").
"""

from __future__ import annotations

import json
import math
import os
from typing import Any, Callable, Mapping, Sequence

from qlog_pyserini.errors import QLogError
from qlog_pyserini.lucene.searcher import check_index_dir, count_documents, no_documents

DEFAULT_FIELD = "contents"
DEFAULT_SAMPLE_DOCS = 1000
SAMPLE_PREFIX = "sample-"
ZIPF_SLOPE = 2.0  # df-distribution slope of a Zipf(1) vocabulary: the anchor where the df-slope rule gives q = 1
SLOPE_MIN_TYPES = 10  # a histogram bin with fewer types ends the slope fit: sparse tail bins are noise


def df1_token_share(c: Mapping[str, Any]) -> float:
    """df1_tokens / T: share of token occurrences whose type occurs in exactly one document."""
    return c["df1_tokens"] / c["tokens"]


def df1_types_per_token(c: Mapping[str, Any]) -> float:
    """df1_types / T: types that occur in exactly one document, per token."""
    return c["df1_types"] / c["tokens"]


def df1_type_share(c: Mapping[str, Any]) -> float:
    """df1_types / V: share of the vocabulary that occurs in exactly one document."""
    return c["df1_types"] / c["vocabulary"]


def hapax_per_token(c: Mapping[str, Any]) -> float:
    """hapax_types / T: types occurring once in the whole collection, per token (= share of tokens that are hapaxes)."""
    return c["hapax_types"] / c["tokens"]


H_TOK: dict[str, Callable[[Mapping[str, Any]], float]] = {
    "df1-token-share": df1_token_share,
    "df1-types-per-token": df1_types_per_token,
    "df1-type-share": df1_type_share,
    "hapax-per-token": hapax_per_token,
}
H_TOK_VARIANTS: tuple[str, ...] = tuple(H_TOK) + tuple(SAMPLE_PREFIX + name for name in H_TOK)
SLOPE_VARIANTS: tuple[str, ...] = ("df-slope", SAMPLE_PREFIX + "df-slope")
# Every statistic a label-free rule 1 - q = c * feature can read: h_tok variants, then df-slope ones.
FEATURES: tuple[str, ...] = H_TOK_VARIANTS + SLOPE_VARIANTS


def df_slope(histogram: Sequence[int], min_types: int = SLOPE_MIN_TYPES) -> float | None:
    """Slope s of the df distribution, ``types with df = d ~ d^-s``, from a log2-binned histogram.

    Bin k holds the types with 2^k <= df <= 2^(k+1) - 1. Its density (types / bin width) is
    placed at the geometric mean of the bin's first and last df, and s is minus the least-squares
    slope of log density on log df over bins 0, 1, ... up to (not including) the first bin with
    fewer than ``min_types`` types. None if fewer than two bins qualify.
    """
    xs: list[float] = []
    ys: list[float] = []
    for k, count in enumerate(histogram):
        if count < min_types:
            break
        lo, hi = 2 ** k, 2 ** (k + 1) - 1
        xs.append(0.5 * (math.log(lo) + math.log(hi)))
        ys.append(math.log(count / (hi - lo + 1)))
    if len(xs) < 2:
        return None
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    return -sxy / sxx


def slope_feature(s: float | None) -> float | None:
    """The df-slope rule's feature, max(0, s - 2): 0 for a Zipf(1) vocabulary or a flatter one."""
    return None if s is None else max(0.0, s - ZIPF_SLOPE)


def h_tok_variants(full: Mapping[str, Any], sample: Mapping[str, Any] | None) -> dict[str, float | None]:
    """Every h_tok variant from the whole-index counts and the sample counts (None without a sample)."""
    out: dict[str, float | None] = {name: _ratio(fn, full) for name, fn in H_TOK.items()}
    for name, fn in H_TOK.items():
        out[SAMPLE_PREFIX + name] = _ratio(fn, sample) if sample else None
    return out


def _ratio(fn: Callable[[Mapping[str, Any]], float], counts: Mapping[str, Any]) -> float | None:
    try:
        return fn(counts)
    except ZeroDivisionError:
        return None


def features(stats: Mapping[str, Any]) -> dict[str, float | None]:
    """Every rule feature of :data:`FEATURES` from a :func:`corpus_stats` result."""
    slopes = stats["df_slope"]
    return {**stats["h_tok"], "df-slope": slope_feature(slopes["full"]),
            SAMPLE_PREFIX + "df-slope": slope_feature(slopes["sample"])}


def corpus_stats(index_dir: str | os.PathLike, field: str = DEFAULT_FIELD, sample_docs: int = DEFAULT_SAMPLE_DOCS,
                 seed: int = 0) -> dict[str, Any]:
    """Hapax statistics of ``field`` in a Lucene index, with every h_tok variant and the df slopes.

    Returns the Java counts (see the module docstring), ``sample`` (the same counts on
    ``sample_docs`` documents chosen by a seeded hash of their ids, with ``docids``; None when
    ``sample_docs`` is 0 or the index stores no term vectors, with ``sample_error`` saying why),
    ``h_tok`` ({variant: value}), ``df_slope`` ({"full", "sample"}), ``index`` and ``seconds``
    (time of the term pass and of the sample pass, in Java).
    """
    path = check_index_dir(index_dir)
    if not isinstance(sample_docs, int) or sample_docs < 0:
        raise QLogError(f"illegal sample_docs value: {sample_docs!r}, must be an integer >= 0")
    if not -2 ** 63 <= int(seed) < 2 ** 63:
        raise QLogError(f"illegal seed value: {seed!r}, must fit in a signed 64-bit integer")
    from qlog_pyserini.jvm.bridge import jclass

    java = jclass("io.qlog.index.CorpusStats")
    from jnius import JavaException  # only after jclass: importing jnius first would start a JVM without our jar

    try:
        text = java.compute(str(path), str(field), sample_docs, int(seed))
    except JavaException as e:
        if _holds_no_documents(path):
            raise no_documents(path) from None
        raise QLogError(f"cannot compute statistics of {str(path)!r}: {e.innermessage or e}") from None
    stats: dict[str, Any] = {"index": str(path), **json.loads(text)}
    sample = stats.get("sample")
    stats["h_tok"] = h_tok_variants(stats, sample)
    stats["df_slope"] = {"full": df_slope(stats["df_histogram"]),
                         "sample": df_slope(sample["df_histogram"]) if sample else None}
    return stats


def _holds_no_documents(path: str | os.PathLike) -> bool:
    # why the statistics failed: an empty index is said in the words every verb uses; a corrupt one keeps its own
    from jnius import JavaException

    try:
        return count_documents(path) == 0
    except JavaException:
        return False
