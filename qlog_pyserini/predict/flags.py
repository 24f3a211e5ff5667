"""The ``--q auto`` options (``--auto-*``) and the ``--q auto-query`` ones (``--auto-query-*``) that
``search`` and ``sweep`` share: command-line side only.

They parse into :class:`qlog_pyserini.predict.rule.RuleSettings` and
:class:`qlog_pyserini.predict.query_rule.QueryRuleSettings`, the values the library takes.
"""

from __future__ import annotations

import argparse

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formula import check_q
from qlog_pyserini.predict.files import AUTO_FILES, is_auto_files
from qlog_pyserini.predict.query_rule import (
    AUTO_QUERY,
    DEFAULT_GAIN,
    DEFAULT_Q_FLOOR,
    DEFAULT_RARE_DF,
    QueryRuleSettings,
    is_auto_query,
)
from qlog_pyserini.predict.rule import (
    AUTO,
    DEFAULT_C,
    DEFAULT_H0,
    DEFAULT_Q_MIN,
    DEFAULT_SHRINK_DOCS,
    DEFAULT_STEP,
    DEFAULT_VARIANT,
    PAPER_C,
    PAPER_Q_MIN,
    RuleSettings,
    is_auto,
)
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


def add_auto_query_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``--auto-query-*`` options: the constants of the per-query rule (``--q auto-query``)."""
    parser.add_argument("--auto-query-rare-df", type=int, default=DEFAULT_RARE_DF, metavar="D",
                        help="with --q auto-query: a query term in at most D documents carries the whole corpus "
                             f"move; rarer evidence falls as D/df (default {DEFAULT_RARE_DF})")
    parser.add_argument("--auto-query-gain", type=float, default=DEFAULT_GAIN, metavar="A",
                        help=f"with --q auto-query: q = max(floor, 1 - A * m * min(1, D/df)) (default {DEFAULT_GAIN:g})")
    parser.add_argument("--auto-query-floor", type=float, default=DEFAULT_Q_FLOOR, metavar="Q",
                        help=f"with --q auto-query: the lowest q a query may get (default {DEFAULT_Q_FLOOR:g})")


def query_rule_from_args(args: argparse.Namespace) -> QueryRuleSettings:
    """The per-query rule that :func:`add_auto_query_arguments`'s options describe (``--auto-step`` rounds it too)."""
    try:
        return QueryRuleSettings(rare_df=args.auto_query_rare_df, gain=args.auto_query_gain,
                                 q_floor=args.auto_query_floor, step=args.auto_step)
    except QLogError as e:  # name the option the user typed, not the setting's field
        message = str(e)
        for field, option in _QUERY_RULE_OPTIONS.items():
            message = message.replace(f"illegal {field} value", f"illegal --{option} value")
        raise QLogError(message) from None


_QUERY_RULE_OPTIONS = {"rare_df": "auto-query-rare-df", "gain": "auto-query-gain", "q_floor": "auto-query-floor",
                       "step": "auto-step"}


def q_or_auto(text: str) -> float | str:
    """A ``--q`` value as it enters (an argparse ``type``): a q, checked, or a label-free mode, 'auto' (the
    corpus rule), 'auto-query' (a q per query) or 'auto-files' (the files rule of an instance set); anything else
    is one error line naming it."""
    if is_auto(text):
        return AUTO
    if is_auto_query(text):
        return AUTO_QUERY
    if is_auto_files(text):
        return AUTO_FILES
    return check_q(text)
