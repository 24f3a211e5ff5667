"""``python -m qlog_pyserini.table``: the command line over :mod:`qlog_pyserini.table.rows`."""

from __future__ import annotations

from typing import Sequence

from qlog_pyserini.cli.parser import run_cli, verb_parser
from qlog_pyserini.errors import QLogError
from qlog_pyserini.system.provenance import command_line, provenance, provenance_markdown
from qlog_pyserini.table.rows import (NOTE, current_auto, current_auto_query, format_markdown, format_tuned_markdown,
                                     load_summary, table_rows)
from qlog_pyserini.system.outputs import atomic_output, report_stream
from qlog_pyserini.system.outputs import check_output_files


def main(argv: Sequence[str] | None = None) -> int:
    parser = verb_parser(
        "table",
        "Gather sweep folders (python -m qlog_pyserini.sweep --out DIR) into one table: corpus, "
        "documents, queries, BM25, the cross-validated choice (its metric, gain and two-sided p), the "
        "oracle beside it, the label-free q and its metric, Recall@K-tokens of BM25 and of the oracle.")
    parser.add_argument("--sweeps", nargs="+", required=True, metavar="DIR", help="sweep output folders")
    parser.add_argument("--budget", default="8192", help="which token budget's recall to show (default 8192)")
    parser.add_argument("--output", metavar="MD", help="write the markdown table here (atomically)")
    parser.add_argument("--csv", metavar="CSV", help="write the table as CSV here (atomically)")
    parser.add_argument("--auto", choices=("sweep", "current"), default="sweep",
                        help="the label-free q shown (auto and auto-query): the ones each sweep recorded (default), or "
                             "the current default rules', recomputed for each sweep's index and scored from its "
                             "per-query data")
    args = parser.parse_args(argv)
    if not args.budget.isdigit() or int(args.budget) < 1:
        raise QLogError(f"--budget must be a positive number of tokens, got {args.budget!r}")
    check_output_files({"--output": args.output, "--csv": args.csv}, inputs=args.sweeps)
    summaries = [load_summary(d) for d in args.sweeps]
    if args.auto == "current":
        for s, folder in zip(summaries, args.sweeps):
            if (auto := current_auto(s, folder)) is not None:
                s["auto"] = auto
            if (auto_query := current_auto_query(s, folder)) is not None:
                s["auto_query"] = auto_query
    table = table_rows(summaries, args.budget)
    md = format_markdown(table, args.budget) + "\n" + NOTE + "\n"
    tuned = format_tuned_markdown(table)
    if tuned:
        md += "\nTuned BM25 beside q-log:\n\n" + tuned
    md += "\n" + provenance_markdown(provenance(command_line("qlog_pyserini.table", argv)))
    for s in summaries:
        info = s.get("provenance")
        if info:
            md += f"\n- {s['name']} ({s['seconds']:.0f} s): " + provenance_markdown(info)
    print(md, file=report_stream(args.output, args.csv))
    if args.output:
        with atomic_output(args.output) as f:
            f.write(md)
    if args.csv:
        with atomic_output(args.csv) as f:
            table.to_csv(f, index=False)
    return 0


if __name__ == "__main__":
    run_cli(main)
