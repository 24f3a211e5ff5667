"""``python -m qlog_pyserini.predict``: the command line over :mod:`qlog_pyserini.qpred.rule`."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from typing import Sequence

from qlog_pyserini.cli import ArgumentParser, run_cli
from qlog_pyserini.qpred.rule import (
    DEFAULT_Q_MIN,
    DEFAULT_VARIANT,
    PAPER_C,
    check_variant,
    describe,
    predict_from_stats,
    q_from_h,
)
from qlog_pyserini.qpred.statistics import DEFAULT_FIELD, FEATURES, H_TOK_VARIANTS, corpus_stats, features


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="python -m qlog_pyserini.predict",
        description="Predict q-log BM25's q for a Lucene index without relevance labels, from its hapax "
                    "density: q = clip(1 - c * h_tok, q_min, 1) (c = 7.28, the paper's). Prints JSON with the "
                    "prediction and, for comparison, the q every h_tok variant would give.")
    parser.add_argument("--index", required=True, metavar="DIR", help="Lucene index built by qlog_pyserini.index or Anserini")
    parser.add_argument("--variant", default=DEFAULT_VARIANT, metavar="V",
                        help=f"h_tok variant (default {DEFAULT_VARIANT}); one of {', '.join(FEATURES)}")
    parser.add_argument("--c", type=float, default=None, help=f"c of the rule (default {PAPER_C:g} for h_tok variants)")
    parser.add_argument("--q-min", type=float, default=DEFAULT_Q_MIN, help=f"lowest q (default {DEFAULT_Q_MIN:g})")
    parser.add_argument("--field", default=DEFAULT_FIELD, help=f"indexed field (default {DEFAULT_FIELD})")
    args = parser.parse_args(argv)
    check_variant(args.variant)
    stats = corpus_stats(args.index, field=args.field)
    pred = predict_from_stats(stats, c=args.c, q_min=args.q_min, variant=args.variant)
    others = {v: q_from_h(h, PAPER_C, args.q_min) for v, h in features(stats).items()
              if v in H_TOK_VARIANTS and h is not None}
    print(describe(pred), file=sys.stderr)
    print(json.dumps({"index": stats["index"], **asdict(pred), "q_by_variant_at_paper_c": others}, indent=2))
    return 0


if __name__ == "__main__":
    run_cli(main)
