"""Score a TREC run with trec_eval: ``python -m qlog_pyserini.eval --qrels QRELS --run RUN``.

A thin CLI over :func:`qlog_pyserini.eval.trec_eval.trec_eval`; see that module for how metric
names map to trec_eval's and why absent queries score 0."""

from __future__ import annotations

from typing import Sequence

import pandas as pd

from qlog_pyserini.cli.parser import ArgumentParser, run_cli, verb_parser
from qlog_pyserini.eval.trec_eval import DEFAULT_METRICS, SUMMARY_QID, parse_metrics, trec_eval
from qlog_pyserini.system.outputs import atomic_output, report_stream
from qlog_pyserini.formats.trec import read_run
from qlog_pyserini.system.outputs import check_output_file


def build_parser() -> ArgumentParser:
    p = verb_parser(
        "eval",
        "Evaluate a TREC run against TREC qrels with the trec_eval binary shipped in "
        "Pyserini's Anserini jar, and print one value per metric (and per query on request). "
        "Every query in the qrels counts: a query the run does not answer scores 0 (trec_eval -c).",
        epilog="example: python -m qlog_pyserini.eval --qrels qrels.test.txt --run runs/bm25.txt "
               "--metrics ndcg_cut.10,recip_rank --per-query --output bm25.csv")
    p.add_argument("--qrels", required=True, metavar="PATH",
                   help="TREC qrels file, one 'qid 0 docid grade' line per judgement")
    p.add_argument("--run", required=True, metavar="PATH",
                   help="TREC run file, one 'qid Q0 docid rank score tag' line per retrieved document")
    p.add_argument("--metrics", default=",".join(DEFAULT_METRICS), metavar="LIST",
                   help="comma-separated trec_eval measures, each 'name' or 'name.params' as given to "
                        "trec_eval -m; a measure's own parameter list may follow it (P.5,10). "
                        "Default: %(default)s")
    p.add_argument("--per-query", action="store_true",
                   help="also print (and write) one row per query, in qrels order")
    p.add_argument("--no-complete", action="store_true",
                   help="average only over the queries the run answers (trec_eval without -c)")
    p.add_argument("--output", metavar="CSV",
                   help="also write the table as CSV (columns qid and one per metric; the summary row has "
                        "qid 'all'); written atomically, the folder must exist")
    return p


def result_table(aggregate: dict[str, float], per_query: pd.DataFrame | None) -> pd.DataFrame:
    """Per-query rows (if any) followed by the summary row ``all``, one column per metric."""
    summary = pd.DataFrame([aggregate], index=pd.Index([SUMMARY_QID], name="qid"))
    if per_query is None or per_query.empty:
        return summary
    return pd.concat([per_query, summary])


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.output:
        check_output_file(args.output, "--output", inputs=[args.run, args.qrels])  # before evaluating, not after
    # trec_eval itself accepts a score of 'nan' or '1.2.3' and reports a wrong metric; our reader does not.
    read_run(args.run)
    result = trec_eval(args.qrels, args.run, metrics=parse_metrics(args.metrics),
                       per_query=args.per_query, complete=not args.no_complete)
    table = result_table(result.aggregate, result.per_query if args.per_query else None)
    if args.per_query:
        print(table.to_string(float_format="{:.4f}".format), file=report_stream(args.output))
    else:
        width = max(len(m) for m in result.aggregate)
        for metric, value in result.aggregate.items():
            print(f"{metric:<{width}}  {value:.4f}", file=report_stream(args.output))
    if args.output:
        with atomic_output(args.output) as f:
            table.to_csv(f, float_format="%.4f", lineterminator="\n")
    return 0


if __name__ == "__main__":
    run_cli(main)
