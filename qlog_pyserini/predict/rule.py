"""Label-free q: predict q-log BM25's q from the index alone, safely.

The default rule (``--q auto``), chosen by leave-one-family-out evidence on many corpora (``results/lolo.md``)::

    h     = max(0, s - 2), s the slope of the document-frequency distribution on a seeded
            sample of 1,000 documents (``sample-df-slope``)
    q0    = clip(1 - c * h, q_min, 1)                      c = DEFAULT_C, q_min = DEFAULT_Q_MIN
    w     = N / (N + n0)                                   N documents, n0 = DEFAULT_SHRINK_DOCS
    q     = 1 - w * (1 - q0), rounded UP to a multiple of 0.05 (toward BM25)

Why each part is there (each keeps ``auto`` from doing harm), and the paper's rule, which the options
also express: docs/label-free-q.md.

    >>> from qlog_pyserini.predict.rule import predict_q
    >>> predict_q("indexes/csn-ruby").q  # doctest: +SKIP

Features are those of :mod:`qlog_pyserini.stats.statistics` (every h_tok variant, the df slopes).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Mapping

from qlog_pyserini.errors import QLogError
from qlog_pyserini.stats.statistics import (
    DEFAULT_FIELD,
    DEFAULT_SAMPLE_DOCS,
    FEATURES,
    H_TOK_VARIANTS,
    corpus_stats,
    features,
)

PAPER_C = 7.28
PAPER_Q_MIN = 0.05
# The default rule: chosen by leave-one-family-out evidence (results/lolo.md, qlog_pyserini.lolo.fit.fit_rule).
DEFAULT_VARIANT = "sample-df-slope"
DEFAULT_C = 2.5
DEFAULT_Q_MIN = 0.65
DEFAULT_SHRINK_DOCS = 5000
DEFAULT_STEP = 0.05
DEFAULT_H0 = 0.0
AUTO = "auto"


@dataclass(frozen=True)
class Prediction:
    """A label-free q and how it was reached (see the module docstring).

    ``h_tok`` is the value of the ``variant`` feature; ``docs`` the index's document count and
    ``weight`` the shrinkage N / (N + shrink_docs) (1 when ``shrink_docs`` is 0).
    """

    q: float
    h_tok: float
    variant: str
    c: float
    q_min: float
    docs: int | None = None
    shrink_docs: int = 0
    step: float = 0.0
    weight: float = 1.0
    h0: float = 0.0
    note: str = ""  # why the rule fell back to BM25, when it did


@dataclass(frozen=True)
class RuleSettings:
    """The rule's constants (the ``--auto-*`` options); ``c`` None means the feature's default."""

    c: float | None = None
    q_min: float = DEFAULT_Q_MIN
    variant: str = DEFAULT_VARIANT
    shrink_docs: int = DEFAULT_SHRINK_DOCS
    step: float = DEFAULT_STEP
    h0: float = DEFAULT_H0


def q_from_h(h: float, c: float = PAPER_C, q_min: float = PAPER_Q_MIN) -> float:
    """clip(1 - c * h, q_min, 1): the unshrunk q for feature value ``h``."""
    h, c, q_min = (_finite(name, value) for name, value in (("h", h), ("c", c), ("q_min", q_min)))
    if q_min > 1:
        raise QLogError(f"illegal q_min value: {q_min}, must be at most 1")
    return min(1.0, max(q_min, 1.0 - c * h))


def shrink_weight(docs: int | None, shrink_docs: int) -> float:
    """N / (N + shrink_docs): how much of the unshrunk move away from q = 1 a corpus of N documents keeps."""
    if not isinstance(shrink_docs, int) or isinstance(shrink_docs, bool) or shrink_docs < 0:
        raise QLogError(f"illegal shrink_docs value: {shrink_docs!r}, must be an integer >= 0")
    if shrink_docs == 0:
        return 1.0
    if docs is None or docs < 0:
        raise QLogError(f"illegal docs value: {docs!r}, must be a document count >= 0")
    return docs / (docs + shrink_docs)


def round_toward_one(q: float, step: float) -> float:
    """``q`` rounded up to a multiple of ``step`` (never past 1); ``step`` 0 leaves it as it is."""
    step = _finite("step", step)
    if step < 0 or step > 1:
        raise QLogError(f"illegal step value: {step}, must be in [0, 1]")
    if step == 0:
        return q
    # rounding the quotient first keeps 0.7000000001 (float noise around 0.7) at 0.7 instead of lifting it to 0.75
    return min(1.0, round(math.ceil(round(q / step, 6)) * step, 10))


def auto_q(h: float, docs: int | None, c: float = DEFAULT_C, q_min: float = DEFAULT_Q_MIN,
           shrink_docs: int = DEFAULT_SHRINK_DOCS, step: float = DEFAULT_STEP, h0: float = 0.0) -> float:
    """The rule: ``1 - w * (1 - clip(1 - c * max(0, h - h0), q_min, 1))``, ``w`` = :func:`shrink_weight`,
    rounded up by ``step``. ``h0`` is a dead zone: features up to it count as no evidence at all."""
    h0 = _finite("h0", h0)
    if h0 < 0:
        raise QLogError(f"illegal h0 value: {h0}, must be >= 0")
    q0 = q_from_h(max(0.0, _finite("h", h) - h0), c, q_min)
    w = shrink_weight(docs, shrink_docs)
    return round_toward_one(q0 if w == 1.0 else 1.0 - w * (1.0 - q0), step)  # w = 1: q0 exactly, no float detour


def _finite(name: str, value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number):
        raise QLogError(f"illegal {name} value: {value!r}, must be a finite number")
    return number


def check_variant(variant: str) -> str:
    """``variant`` if it names a feature of :data:`qlog_pyserini.stats.statistics.FEATURES`, else QLogError."""
    if variant not in FEATURES:
        raise QLogError(f"unknown h_tok variant {variant!r}; known: {', '.join(FEATURES)}")
    return variant


def default_c(variant: str) -> float:
    """The constant of ``variant``'s rule: the fitted one for the default feature, the paper's 7.28 for h_tok variants."""
    if check_variant(variant) == DEFAULT_VARIANT:
        return DEFAULT_C
    if variant in H_TOK_VARIANTS:
        return PAPER_C
    raise QLogError(f"variant {variant!r} has no published constant c; pass one (fit it with "
                    "python -m qlog_pyserini.lolo, which reports c fitted on all corpora)")


def predict_from_stats(stats: Mapping[str, Any], c: float | None = None, q_min: float = DEFAULT_Q_MIN,
                       variant: str = DEFAULT_VARIANT, shrink_docs: int = DEFAULT_SHRINK_DOCS,
                       step: float = DEFAULT_STEP, h0: float = DEFAULT_H0) -> Prediction:
    """:func:`predict_q` on already computed :func:`qlog_pyserini.stats.statistics.corpus_stats` output."""
    c = default_c(variant) if c is None else c
    h = features(stats)[check_variant(variant)]
    docs = stats.get("documents")
    if h is None:
        why = stats.get("sample_error") or "too few documents or histogram bins to compute it"
        if variant != DEFAULT_VARIANT:
            raise QLogError(f"h_tok variant {variant!r} is not available for {stats.get('index', 'this index')}: {why}")
        # No evidence at all (a tiny corpus, or no stored term vectors): the safe answer is BM25.
        return Prediction(q=1.0, h_tok=0.0, variant=variant, c=float(c), q_min=float(q_min),
                          docs=None if docs is None else int(docs), shrink_docs=shrink_docs, step=float(step),
                          weight=0.0, h0=float(h0), note=f"{variant} not available ({why}): BM25")
    weight = shrink_weight(docs, shrink_docs)
    q = auto_q(h, docs, c, q_min, shrink_docs, step, h0)
    return Prediction(q=q, h_tok=h, variant=variant, c=float(c), q_min=float(q_min),
                      docs=None if docs is None else int(docs), shrink_docs=shrink_docs, step=float(step),
                      weight=weight, h0=float(h0))


def predict_q(index_dir: str | os.PathLike, c: float | None = None, q_min: float = DEFAULT_Q_MIN,
              variant: str = DEFAULT_VARIANT, field: str = DEFAULT_FIELD, sample_docs: int = DEFAULT_SAMPLE_DOCS,
              seed: int = 0, shrink_docs: int = DEFAULT_SHRINK_DOCS, step: float = DEFAULT_STEP,
              h0: float = DEFAULT_H0) -> Prediction:
    """Predict q for the index at ``index_dir`` with no relevance labels (the rule of the module docstring).

    ``c`` defaults to the fitted constant for the default feature and the paper's 7.28 for the
    h_tok variants (df-slope variants other than the default need it given). ``field``,
    ``sample_docs`` and ``seed`` are passed to :func:`qlog_pyserini.stats.statistics.corpus_stats`.
    """
    check_variant(variant)
    if c is None:
        default_c(variant)  # fail before the statistics pass, not after
    for name, value in (("q_min", q_min), ("step", step), ("h0", h0)):
        _finite(name, value)
    stats = corpus_stats(index_dir, field=field, sample_docs=sample_docs, seed=seed)
    return predict_from_stats(stats, c=c, q_min=q_min, variant=variant, shrink_docs=shrink_docs, step=step, h0=h0)


def predict_with(index_dir: str | os.PathLike, rule: RuleSettings) -> Prediction:
    """:func:`predict_q` with the constants of ``rule``."""
    return predict_q(index_dir, c=rule.c, q_min=rule.q_min, variant=rule.variant, shrink_docs=rule.shrink_docs,
                     step=rule.step, h0=rule.h0)


def keeps_bm25(docs: int, rule: RuleSettings = RuleSettings()) -> bool:
    """True when ``rule`` gives q = 1 to every corpus of ``docs`` documents, whatever its feature: the shrinkage
    keeps less than one rounding step of the largest move (to ``q_min``), so no statistics pass is needed."""
    if rule.shrink_docs == 0:
        return False
    weight = shrink_weight(docs, rule.shrink_docs)
    return round_toward_one(1.0 - weight * (1.0 - _finite("q_min", rule.q_min)), rule.step) == 1.0


def predict_index(index_dir: str | os.PathLike, docs: int, rule: RuleSettings = RuleSettings()) -> Prediction:
    """:func:`predict_with` for an index of ``docs`` documents, without its statistics pass when
    :func:`keeps_bm25` already says q = 1 (the feature then has no value: ``h_tok`` is NaN and ``note`` says why)."""
    if not keeps_bm25(docs, rule):
        return predict_with(index_dir, rule)
    c = default_c(rule.variant) if rule.c is None else rule.c
    return Prediction(q=1.0, h_tok=math.nan, variant=rule.variant, c=float(c), q_min=float(rule.q_min), docs=int(docs),
                      shrink_docs=rule.shrink_docs, step=float(rule.step),
                      weight=shrink_weight(docs, rule.shrink_docs), h0=float(rule.h0),
                      note=f"{docs} documents: the shrinkage toward BM25 keeps q = 1 whatever the feature")


def describe(pred: Prediction) -> str:
    """One log line: the feature, its value, the rule and the chosen q."""
    if pred.note:
        return f"q auto: {pred.note} -> q = {pred.q:.6g}"
    rule = f"clip(1 - {pred.c:g} * {f'max(0, h - {pred.h0:g})' if pred.h0 else 'h'}, {pred.q_min:g}, 1)"
    if pred.shrink_docs:
        rule = f"1 - w * (1 - {rule}), w = {pred.docs} / ({pred.docs} + {pred.shrink_docs}) = {pred.weight:.3g}"
    if pred.step:
        rule += f", rounded up to a multiple of {pred.step:g}"
    return f"q auto: h[{pred.variant}] = {pred.h_tok:.6g} -> q = {rule} = {pred.q:.6g}"


def is_auto(text: str) -> bool:
    """Whether a ``--q`` value asks for the label-free prediction."""
    return str(text).strip().lower() == AUTO
