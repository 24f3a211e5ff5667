"""``python -m qlog_pyserini.lolo``: the command line over :mod:`qlog_pyserini.lolo.report`."""

from __future__ import annotations

import sys
from typing import Sequence

from qlog_pyserini.cli.options import add_threads_option
from qlog_pyserini.cli.parser import ArgumentParser, run_cli, verb_parser
from qlog_pyserini.errors import QLogError
from qlog_pyserini.lolo.fit import DEFAULT_SHRINKS, LoloOptions
from qlog_pyserini.lolo.report import lolo_report
from qlog_pyserini.predict.rule import DEFAULT_VARIANT, PAPER_C, PAPER_Q_MIN
from qlog_pyserini.stats.flags import add_sample_options
from qlog_pyserini.stats.statistics import FEATURES
from qlog_pyserini.system.outputs import atomic_output, check_output_files, report_stream, write_json
from qlog_pyserini.system.provenance import command_line


def build_parser() -> ArgumentParser:
    parser = verb_parser(
        "lolo",
        "Leave-one-family-out evaluation of the label-free q rule (--q auto). A family is a corpus "
        "with its nested size subsamples (the family each sweep's summary.json records). For each "
        "family, the rule's constants (feature, c, q_min, shrinkage n0) are fitted on the corpora of "
        "the OTHER families: the candidate with the best mean recovery on the training code corpora "
        "among those that keep every training corpus within 0.25% of BM25. The held-out corpora are "
        "then scored at the q that rule gives them: per corpus BM25, q_opt, the oracle, q_auto, the "
        "metric at q_auto, the change against BM25 and recovery = (M(q_auto) - M(1)) / (M(q_opt) - M(1)). "
        "Then the default rule on every corpus. With --variant, also the per-feature report of the paper's rule "
        "(q = clip(1 - c * h, q_min, 1), c fitted with one corpus held out, and the paper's fixed c).")
    parser.add_argument("--sweeps", nargs="+", required=True, metavar="DIR",
                        help="sweep folders of python -m qlog_pyserini.sweep (each with summary.json), one per corpus")
    parser.add_argument("--text", action="append", default=[], metavar="NAME",
                        help="a natural-language corpus (or family); repeatable; the others count as code")
    parser.add_argument("--fit-variant", action="append", metavar="V",
                        help=f"features the rule fit may choose from, repeatable (default {DEFAULT_VARIANT})")
    parser.add_argument("--shrink-docs", default=",".join(map(str, DEFAULT_SHRINKS)), metavar="N,N,...",
                        help="shrinkage constants n0 to choose from by leave-one-family-out: the largest whose held-out "
                             "rows are all within 0.5%% of BM25 and whose mean held-out recovery on code is at least "
                             "0.5 (default %(default)s)")
    parser.add_argument("--variant", action="append", metavar="V",
                        help=f"also the per-feature report for V, repeatable, or 'all'; one of {', '.join(FEATURES)}")
    parser.add_argument("--c", type=float, default=PAPER_C, help=f"per-feature report: the fixed c (default {PAPER_C:g})")
    parser.add_argument("--q-min", type=float, default=PAPER_Q_MIN,
                        help=f"per-feature report: lowest predicted q (default {PAPER_Q_MIN:g})")
    add_sample_options(parser)
    add_threads_option(parser, "search threads for an off-grid q")
    parser.add_argument("--auto-query-only", action="store_true",
                        help="only the per-query rule's report (--q auto-query), read from the sweeps' per_query.csv "
                             "without any search; skips the corpus rule's fit")
    parser.add_argument("--output", metavar="MD", help="also write the report here (its folder must exist)")
    parser.add_argument("--json", metavar="PATH", help="also write every number as JSON")
    return parser


def _integers(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise QLogError(f"--shrink-docs {text!r} must be comma-separated integers") from None


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    options = LoloOptions(text=args.text, fit_variants=args.fit_variant or (), shrinks=_integers(args.shrink_docs),
                          variants=args.variant or (), c=args.c, q_min=args.q_min, sample_docs=args.sample_docs,
                          seed=args.seed, threads=args.threads, auto_query_only=args.auto_query_only).check()
    check_output_files({"--output": args.output, "--json": args.json}, inputs=args.sweeps)
    report, payload, warnings = lolo_report(args.sweeps, options, command_line("qlog_pyserini.lolo", argv))
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    print(report, end="", file=report_stream(args.output, args.json))
    if args.output:
        with atomic_output(args.output) as f:
            f.write(report)
    if args.json:
        write_json(args.json, payload)
    return 0


if __name__ == "__main__":
    run_cli(main)
