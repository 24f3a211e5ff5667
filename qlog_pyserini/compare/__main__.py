"""``python -m qlog_pyserini.compare``: the command line over :mod:`qlog_pyserini.compare.comparison`."""

from __future__ import annotations

import sys
from typing import Sequence

import pandas as pd

from qlog_pyserini.cli.parser import ArgumentParser, run_cli, verb_parser
from qlog_pyserini.errors import QLogError
from qlog_pyserini.compare.comparison import DEFAULT_METRIC, compare_runs, format_markdown, result_record
from qlog_pyserini.system.outputs import atomic_output, report_stream, write_text
from qlog_pyserini.formats.trec import read_qrels, read_run
from qlog_pyserini.system.outputs import check_output_files
from qlog_pyserini.eval.significance import check_resamples
from qlog_pyserini.eval.trec_eval import check_single_metric


def build_parser() -> ArgumentParser:
    p = verb_parser(
        "compare",
        "Compare two TREC runs on one metric, query by query, and say whether the difference "
        "is real: mean of each run, mean difference B - A with its 95% bootstrap interval, "
        "bootstrap p (share of resamples that reverse the sign), two-sided randomization and "
        "paired t-test p-values, and wins/ties/losses of B. Every query in the qrels counts; "
        "a query a run does not answer scores 0 (trec_eval -c). Prints a markdown table.",
        epilog="example: python -m qlog_pyserini.compare --qrels qrels.test.txt "
               "--runs runs/bm25.txt runs/qlog-q1.5.txt --metric recip_rank --markdown cmp.md")
    p.add_argument("--qrels", required=True, metavar="PATH", help="TREC qrels file ('qid 0 docid grade')")
    p.add_argument("--runs", required=True, nargs=2, metavar=("A", "B"),
                   help="the baseline run A and the system run B, TREC run files")
    p.add_argument("--metric", default=DEFAULT_METRIC,
                   help="one trec_eval measure that gives one value per query (default: %(default)s)")
    p.add_argument("--resamples", type=int, default=10000,
                   help="bootstrap and randomization resamples (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the resampling (default: %(default)s)")
    p.add_argument("--markdown", metavar="OUT.md", help="also write the markdown report here (atomically)")
    p.add_argument("--csv", metavar="OUT.csv",
                   help="also write the result as a one-row CSV (metric, run_a, run_b and every statistic)")
    return p


def _answered_differently(qrels: str, run_a: dict, run_b: dict) -> str | None:
    """A warning when the two runs answer different sets of the judged queries, else None."""
    judged = set(read_qrels(qrels))
    a, b = judged & set(run_a), judged & set(run_b)
    if a == b:
        return None
    return (f"warning: the runs answer different queries: A {len(a)}, B {len(b)} of the {len(judged)} judged "
            f"({len(a - b)} only in A, {len(b - a)} only in B); an unanswered query scores 0, so the "
            "difference partly measures coverage, not ranking")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # Checked before any work, so a bad second output cannot leave only the first written.
    check_output_files({"--markdown": args.markdown, "--csv": args.csv}, inputs=[*args.runs, args.qrels])
    if args.seed < 0:
        raise QLogError(f"--seed must be 0 or more, got {args.seed}")
    check_resamples(args.resamples)
    check_single_metric(args.metric)  # before trec_eval runs, not after
    name_a, name_b = (str(r) for r in args.runs)
    # trec_eval accepts a score of 'nan' or '1.2.3'; the strict reader names the file and line.
    warning = _answered_differently(args.qrels, read_run(name_a), read_run(name_b))
    if warning:
        print(warning, file=sys.stderr)
    result = compare_runs(args.qrels, name_a, name_b, metric=args.metric, resamples=args.resamples, seed=args.seed)
    report = format_markdown(result, args.metric, name_a, name_b, seed=args.seed)
    print(report, end="", file=report_stream(args.markdown, args.csv))
    if args.markdown:
        write_text(args.markdown, report)
    if args.csv:
        with atomic_output(args.csv) as f:
            pd.DataFrame([result_record(result, args.metric, name_a, name_b)]).to_csv(f, index=False, lineterminator="\n")
    return 0


if __name__ == "__main__":
    run_cli(main)
