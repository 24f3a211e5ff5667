"""The ``--q auto`` options (``--auto-*``) that ``search`` and ``sweep`` share: command-line side only.

They parse into :class:`qlog_pyserini.predict.rule.RuleSettings`, the values the library takes.
"""

from __future__ import annotations

import argparse

from qlog_pyserini.predict.rule import (DEFAULT_C, DEFAULT_H0, DEFAULT_Q_MIN, DEFAULT_SHRINK_DOCS, DEFAULT_STEP,
                                        DEFAULT_VARIANT, PAPER_C, PAPER_Q_MIN, RuleSettings)
from qlog_pyserini.stats.statistics import FEATURES


def add_auto_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``--auto-*`` options: the rule ``--q auto`` uses."""
    parser.add_argument("--auto-variant", default=DEFAULT_VARIANT, metavar="V",
                        help=f"with --q auto: the feature h (default {DEFAULT_VARIANT}); one of {', '.join(FEATURES)}")
    parser.add_argument("--auto-c", type=float, default=None, metavar="C",
                        help=f"with --q auto: c in q0 = clip(1 - c * h, q_min, 1) (default {DEFAULT_C:g} for "
                             f"{DEFAULT_VARIANT}, the paper's {PAPER_C:g} for h_tok variants)")
    parser.add_argument("--auto-q-min", type=float, default=DEFAULT_Q_MIN, metavar="Q",
                        help=f"with --q auto: the lowest q0 the rule may choose (default {DEFAULT_Q_MIN:g}; "
                             f"the paper's {PAPER_Q_MIN:g})")
    parser.add_argument("--auto-shrink-docs", type=int, default=DEFAULT_SHRINK_DOCS, metavar="N",
                        help=f"with --q auto: shrink 1 - q0 by N_docs / (N_docs + N) toward BM25 (default "
                             f"{DEFAULT_SHRINK_DOCS}; 0 = no shrinkage, the paper's)")
    parser.add_argument("--auto-h0", type=float, default=DEFAULT_H0, metavar="H",
                        help=f"with --q auto: a dead zone, features up to H count as no evidence (default {DEFAULT_H0:g})")
    parser.add_argument("--auto-step", type=float, default=DEFAULT_STEP, metavar="S",
                        help=f"with --q auto: round q up (toward 1) to a multiple of S (default {DEFAULT_STEP:g}; "
                             "0 = no rounding, the paper's)")


def rule_from_args(args: argparse.Namespace) -> RuleSettings:
    """The rule that :func:`add_auto_arguments`'s options describe."""
    return RuleSettings(c=args.auto_c, q_min=args.auto_q_min, variant=args.auto_variant,
                        shrink_docs=args.auto_shrink_docs, step=args.auto_step, h0=args.auto_h0)
