"""``python -m qlog_pyserini.predict``: the command line over :mod:`qlog_pyserini.predict.rule`."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from typing import Sequence

from qlog_pyserini.cli.options import add_index_option
from qlog_pyserini.cli.parser import run_cli, verb_parser
from qlog_pyserini.predict.rule import (
    DEFAULT_C,
    DEFAULT_Q_MIN,
    DEFAULT_SHRINK_DOCS,
    DEFAULT_STEP,
    DEFAULT_VARIANT,
    PAPER_C,
    PAPER_Q_MIN,
    check_variant,
    describe,
    predict_from_stats,
    q_from_h,
)
from qlog_pyserini.stats.flags import add_field_option
from qlog_pyserini.stats.statistics import FEATURES, H_TOK_VARIANTS, corpus_stats, features


def main(argv: Sequence[str] | None = None) -> int:
    parser = verb_parser(
        "predict",
        "Predict q-log BM25's q for a Lucene index without relevance labels (the --q auto rule): "
        "q = 1 - w * (1 - clip(1 - c * h, q_min, 1)), h the df-slope excess on a 1,000-document sample, "
        "w = N / (N + n0) shrinking small corpora toward BM25, rounded up to a multiple of 0.05. Prints "
        "JSON with the prediction and, for comparison, the q of the paper's rule "
        "clip(1 - 7.28 * h_tok, 0.05, 1) for every h_tok variant.")
    add_index_option(parser)
    parser.add_argument("--variant", default=DEFAULT_VARIANT, metavar="V",
                        help=f"feature h (default {DEFAULT_VARIANT}); one of {', '.join(FEATURES)}")
    parser.add_argument("--c", type=float, default=None,
                        help=f"c of the rule (default {DEFAULT_C:g} for {DEFAULT_VARIANT}, {PAPER_C:g} for h_tok variants)")
    parser.add_argument("--q-min", type=float, default=DEFAULT_Q_MIN, help=f"lowest q (default {DEFAULT_Q_MIN:g})")
    parser.add_argument("--shrink-docs", type=int, default=DEFAULT_SHRINK_DOCS,
                        help=f"n0 of the shrinkage N / (N + n0) (default {DEFAULT_SHRINK_DOCS}; 0 = none)")
    parser.add_argument("--step", type=float, default=DEFAULT_STEP,
                        help=f"round q up to a multiple of this (default {DEFAULT_STEP:g}; 0 = no rounding)")
    add_field_option(parser)
    args = parser.parse_args(argv)
    check_variant(args.variant)
    stats = corpus_stats(args.index, field=args.field)
    pred = predict_from_stats(stats, c=args.c, q_min=args.q_min, variant=args.variant, shrink_docs=args.shrink_docs,
                              step=args.step)
    others = {v: q_from_h(h, PAPER_C, PAPER_Q_MIN) for v, h in features(stats).items()
              if v in H_TOK_VARIANTS and h is not None}
    slopes = stats.get("df_slope", {})
    print(describe(pred) + f"; df slope s = {_number(slopes.get('sample'))} on the sample, "
          f"{_number(slopes.get('full'))} on the full index (Zipf(1) text: s = 2)", file=sys.stderr)
    record = asdict(pred)
    # The Prediction field is called h_tok for history; here it is named for the feature it holds.
    record = {"feature": record.pop("variant"), "feature_value": record.pop("h_tok"), **record}
    print(json.dumps({"index": stats["index"], **record, "df_slope": slopes, "q_by_variant_at_paper_c": others},
                     indent=2))
    return 0


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4g}"


if __name__ == "__main__":
    run_cli(main)
