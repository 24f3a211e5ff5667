"""The label-free q (:mod:`qlog_pyserini.predict.rule`, ``--q auto``) from a bm25s or rank_bm25 index.

The default rule reads one statistic: the slope of the document-frequency distribution on a seeded sample of
1,000 documents (``sample-df-slope``), and the document count N. A bm25s index holds both: a term's column
lists the documents that hold it, so the df within the sample is the number of its rows that are sampled. A
rank_bm25 model keeps each document's term counts (``doc_freqs``). The histogram and slope are
:mod:`qlog_pyserini.stats.statistics`' (``df_histogram[k]``: terms with 2^k <= df < 2^(k+1)), and the rule
:func:`qlog_pyserini.predict.rule.predict_from_stats`. What differs from the Lucene route: the documents sampled
(a seeded ``numpy`` choice, where Lucene's is a seeded hash of the ids) and the terms (the library's tokenizer).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from qlog_pyserini.predict.rule import Prediction, predict_from_stats
from qlog_pyserini.stats.statistics import DEFAULT_SAMPLE_DOCS, H_TOK_VARIANTS, SAMPLE_PREFIX, df_slope


def df_histogram(df: np.ndarray) -> list[int]:
    """Terms per log2 bin of document frequency (bin k: 2^k <= df < 2^(k+1)); terms with df 0 are left out."""
    df = np.asarray(df, dtype=np.int64)
    df = df[df > 0]
    if df.size == 0:
        return []
    bins = np.frexp(df.astype(float))[1] - 1  # exact for integers below 2^53: floor(log2(df))
    return np.bincount(bins).tolist()


def sample_rows(num_docs: int, sample_docs: int = DEFAULT_SAMPLE_DOCS, seed: int = 0) -> np.ndarray:
    """A seeded sample of ``sample_docs`` document numbers (all of them when there are no more)."""
    if num_docs <= sample_docs:
        return np.arange(num_docs)
    return np.sort(np.random.default_rng(seed).choice(num_docs, size=sample_docs, replace=False))


def stats_from_df(df: np.ndarray, sample_df: np.ndarray, num_docs: int) -> dict[str, Any]:
    """The part of :func:`qlog_pyserini.stats.statistics.corpus_stats`' output the rule reads, from document
    frequencies over the whole index and over the sample (token counts are not kept by these libraries: the
    per-token h_tok variants are None)."""
    df, sample_df = np.asarray(df), np.asarray(sample_df)
    h_tok: dict[str, float | None] = {name: None for name in H_TOK_VARIANTS}
    if (df > 0).any():
        h_tok["df1-type-share"] = float((df == 1).sum() / (df > 0).sum())
    if (sample_df > 0).any():
        h_tok[SAMPLE_PREFIX + "df1-type-share"] = float((sample_df == 1).sum() / (sample_df > 0).sum())
    return {"documents": int(num_docs), "vocabulary": int((df > 0).sum()), "h_tok": h_tok,
            "df_histogram": df_histogram(df),
            "df_slope": {"full": df_slope(df_histogram(df)), "sample": df_slope(df_histogram(sample_df))}}


def bm25s_stats(model: Any, sample_docs: int = DEFAULT_SAMPLE_DOCS, seed: int = 0) -> dict[str, Any]:
    """:func:`stats_from_df` of a ``bm25s.BM25`` index, from its score matrix's structure alone."""
    indptr = np.asarray(model.scores["indptr"])
    indices = np.asarray(model.scores["indices"])
    num_docs = int(model.scores["num_docs"])
    df = np.diff(indptr)
    in_sample = np.zeros(num_docs, dtype=np.int64)
    in_sample[sample_rows(num_docs, sample_docs, seed)] = 1
    sampled = np.concatenate([[0], np.cumsum(in_sample[indices])])
    return stats_from_df(df, sampled[indptr[1:]] - sampled[indptr[:-1]], num_docs)


def rank_bm25_stats(model: Any, sample_docs: int = DEFAULT_SAMPLE_DOCS, seed: int = 0) -> dict[str, Any]:
    """:func:`stats_from_df` of a rank_bm25 model, from its per-document term counts (``doc_freqs``)."""
    docs: Sequence[dict] = model.doc_freqs
    return stats_from_df(_document_frequencies(docs), _document_frequencies(
        [docs[i] for i in sample_rows(len(docs), sample_docs, seed).tolist()]), len(docs))


def _document_frequencies(docs: Sequence[dict]) -> np.ndarray:
    counts: dict[str, int] = {}
    for frequencies in docs:
        for word in frequencies:
            counts[word] = counts.get(word, 0) + 1
    return np.fromiter(counts.values(), dtype=np.int64, count=len(counts))


def predict_bm25s(model: Any, sample_docs: int = DEFAULT_SAMPLE_DOCS, seed: int = 0) -> Prediction:
    """The label-free q of a bm25s index (the default rule on :func:`bm25s_stats`)."""
    return predict_from_stats(bm25s_stats(model, sample_docs, seed))


def predict_rank_bm25(model: Any, sample_docs: int = DEFAULT_SAMPLE_DOCS, seed: int = 0) -> Prediction:
    """The label-free q of a rank_bm25 model (the default rule on :func:`rank_bm25_stats`)."""
    return predict_from_stats(rank_bm25_stats(model, sample_docs, seed))
