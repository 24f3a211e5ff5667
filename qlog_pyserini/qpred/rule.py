"""Label-free q: predict q-log BM25's q from the index's hapax density alone.

    q_pred = clip(1 - c * h_tok, q_min, 1)        c = 7.28, q_min = 0.05 by default (the paper's rule)

    >>> from qlog_pyserini.predict import predict_q
    >>> predict_q("indexes/csn-ruby")
    Prediction(q=0.27..., h_tok=0.0999..., variant='hapax-per-token', c=7.28, q_min=0.05)

    python -m qlog_pyserini.predict --index DIR [--variant V] [--c C] [--q-min Q]

h_tok is one of the variants of :mod:`qlog_pyserini.corpus_stats`; the paper's exact definition is
not public. The default, ``hapax-per-token`` (hapax legomena per token over the whole index,
Baayen's P), was chosen by leave-one-language-out evidence on nine corpora (``results/lolo.md``):
with the paper's c = 7.28 it is the best of the variants (mean recovery -0.14; 0.46-0.99 on the six
Debian code corpora, but it overshoots on CSN-Ruby and CoSQA, where q_opt is 0.6 and 0.95). No
variant reproduces the paper's 0.72 with c = 7.28: c depends on h's scale. With c fitted on the
other corpora, ``sample-df1-token-share`` recovers 0.75 and the ``sample-df-slope`` rule 0.82; use
them with ``--variant`` and the ``c`` that ``lolo`` prints (fitted on all nine: 1.153 for
``sample-df1-token-share``).

The same form with another feature is the second rule of issue 4, item 5: ``df-slope`` uses
``max(0, s - 2)``, s the slope of the df distribution. It has no published constant, so ``c``
must be given (fit it with ``python -m qlog_pyserini.lolo``, which prints c fitted on all corpora).
"""

from __future__ import annotations

import argparse
import math
import os
from dataclasses import dataclass
from typing import Any, Mapping

from qlog_pyserini.errors import QLogError
from qlog_pyserini.qpred.statistics import DEFAULT_FIELD, DEFAULT_SAMPLE_DOCS, FEATURES, H_TOK_VARIANTS, corpus_stats, features

PAPER_C = 7.28
DEFAULT_Q_MIN = 0.05
DEFAULT_VARIANT = "hapax-per-token"  # chosen by evidence, see the module docstring
AUTO = "auto"


@dataclass(frozen=True)
class Prediction:
    """A label-free q: ``q = clip(1 - c * h_tok, q_min, 1)`` with h_tok the ``variant`` feature of the index."""

    q: float
    h_tok: float
    variant: str
    c: float
    q_min: float


def q_from_h(h: float, c: float = PAPER_C, q_min: float = DEFAULT_Q_MIN) -> float:
    """clip(1 - c * h, q_min, 1): the predicted q for feature value ``h``."""
    h, c, q_min = (_finite(name, value) for name, value in (("h", h), ("c", c), ("q_min", q_min)))
    if q_min > 1:
        raise ValueError(f"illegal q_min value: {q_min}, must be at most 1")
    return min(1.0, max(q_min, 1.0 - c * h))


def _finite(name: str, value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number):
        raise ValueError(f"illegal {name} value: {value!r}, must be a finite number")
    return number


def check_variant(variant: str) -> str:
    """``variant`` if it names a feature of :data:`qlog_pyserini.corpus_stats.FEATURES`, else QLogError."""
    if variant not in FEATURES:
        raise QLogError(f"unknown h_tok variant {variant!r}; known: {', '.join(FEATURES)}")
    return variant


def default_c(variant: str) -> float:
    """The published constant of ``variant``'s rule: 7.28 for the h_tok variants; none for df-slope."""
    if check_variant(variant) in H_TOK_VARIANTS:
        return PAPER_C
    raise QLogError(f"variant {variant!r} has no published constant c; pass one (fit it with "
                    "python -m qlog_pyserini.lolo, which reports c fitted on all corpora)")


def predict_from_stats(stats: Mapping[str, Any], c: float | None = None, q_min: float = DEFAULT_Q_MIN,
                       variant: str = DEFAULT_VARIANT) -> Prediction:
    """:func:`predict_q` on already computed :func:`qlog_pyserini.corpus_stats.corpus_stats` output."""
    c = default_c(variant) if c is None else c
    h = features(stats)[check_variant(variant)]
    if h is None:
        why = stats.get("sample_error") or "too few documents or histogram bins to compute it"
        raise QLogError(f"h_tok variant {variant!r} is not available for {stats.get('index', 'this index')}: {why}")
    try:
        q = q_from_h(h, c, q_min)
    except ValueError as e:
        raise QLogError(str(e)) from None
    return Prediction(q=q, h_tok=h, variant=variant, c=float(c), q_min=float(q_min))


def predict_q(index_dir: str | os.PathLike, c: float | None = None, q_min: float = DEFAULT_Q_MIN,
              variant: str = DEFAULT_VARIANT, field: str = DEFAULT_FIELD, sample_docs: int = DEFAULT_SAMPLE_DOCS,
              seed: int = 0) -> Prediction:
    """Predict q for the index at ``index_dir`` with no relevance labels: clip(1 - c * h_tok, q_min, 1).

    ``c`` defaults to the paper's 7.28 for the h_tok variants (df-slope variants need it given).
    ``field``, ``sample_docs`` and ``seed`` are passed to :func:`qlog_pyserini.corpus_stats.corpus_stats`.
    """
    check_variant(variant)
    if c is None:
        default_c(variant)  # fail before the statistics pass, not after
    stats = corpus_stats(index_dir, field=field, sample_docs=sample_docs, seed=seed)
    return predict_from_stats(stats, c=c, q_min=q_min, variant=variant)


def describe(pred: Prediction) -> str:
    """One log line: the feature, its value, the rule and the chosen q."""
    return (f"q auto: h_tok[{pred.variant}] = {pred.h_tok:.6g} -> q = clip(1 - {pred.c:g} * h_tok, "
            f"{pred.q_min:g}, 1) = {pred.q:.6g}")


# --- helpers shared by the CLIs that take --q auto (search, sweep) -------------------------------------

def add_auto_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--auto-variant``, ``--auto-c`` and ``--auto-q-min``: the rule ``--q auto`` uses."""
    parser.add_argument("--auto-variant", default=DEFAULT_VARIANT, metavar="V",
                        help=f"with --q auto: the h_tok variant (default {DEFAULT_VARIANT}); "
                             f"one of {', '.join(FEATURES)}")
    parser.add_argument("--auto-c", type=float, default=None, metavar="C",
                        help=f"with --q auto: c in q = clip(1 - c * h_tok, q_min, 1) (default {PAPER_C:g}, the paper's)")
    parser.add_argument("--auto-q-min", type=float, default=DEFAULT_Q_MIN, metavar="Q",
                        help=f"with --q auto: the lowest q the rule may choose (default {DEFAULT_Q_MIN:g})")


def is_auto(text: str) -> bool:
    """Whether a ``--q`` value asks for the label-free prediction."""
    return str(text).strip().lower() == AUTO


def predict_from_args(index_dir: str | os.PathLike, args: argparse.Namespace) -> Prediction:
    """The prediction ``--q auto`` asks for, with the rule from :func:`add_auto_arguments`'s options."""
    return predict_q(index_dir, c=args.auto_c, q_min=args.auto_q_min, variant=args.auto_variant)
