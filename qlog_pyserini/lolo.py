"""``python -m qlog_pyserini.lolo``: the command line over :mod:`qlog_pyserini.qpred.lolo`."""

from __future__ import annotations

import json
import math
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Sequence

from qlog_pyserini.cli import ArgumentParser, run_cli
from qlog_pyserini.errors import QLogError
from qlog_pyserini.experiments.provenance import command_line, provenance, provenance_markdown
from qlog_pyserini.formats.trec import atomic_output
from qlog_pyserini.qpred.lolo import DEFAULT_VARIANTS, SearchEvaluator, format_markdown, read_sweep, run_lolo
from qlog_pyserini.qpred.rule import DEFAULT_Q_MIN, PAPER_C
from qlog_pyserini.qpred.statistics import DEFAULT_SAMPLE_DOCS, FEATURES


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="python -m qlog_pyserini.lolo",
        description="Leave-one-language-out evaluation of the label-free q rule q = clip(1 - c * h, q_min, 1): "
                    "for each corpus, c is fitted on the other corpora (least squares of 1 - q_opt on h through "
                    "the origin), its q predicted, M(q_pred) looked up on the sweep's grid or measured by searching, "
                    "and recovery = (M(q_pred) - M(1)) / (M(q_opt) - M(1)) reported per corpus and averaged; "
                    "also with the paper's fixed c = 7.28. Prints a Markdown report.")
    parser.add_argument("--sweeps", nargs="+", required=True, metavar="DIR",
                        help="sweep folders of python -m qlog_pyserini.sweep (each with summary.json), one per corpus")
    parser.add_argument("--variant", action="append", metavar="V",
                        help=f"feature h, repeatable, or 'all' (default: {' and '.join(DEFAULT_VARIANTS)}); "
                             f"one of {', '.join(FEATURES)}")
    parser.add_argument("--c", type=float, default=PAPER_C, help=f"the fixed c (default {PAPER_C:g}, the paper's)")
    parser.add_argument("--q-min", type=float, default=DEFAULT_Q_MIN, help=f"lowest predicted q (default {DEFAULT_Q_MIN:g})")
    parser.add_argument("--sample-docs", type=int, default=DEFAULT_SAMPLE_DOCS,
                        help=f"documents in the sample of the sample-* variants (default {DEFAULT_SAMPLE_DOCS})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    parser.add_argument("--threads", type=int, default=1, help="search threads for off-grid q_pred (default 1)")
    parser.add_argument("--output", metavar="MD", help="also write the report here (its folder must exist)")
    parser.add_argument("--json", metavar="PATH", help="also write every number as JSON")
    args = parser.parse_args(argv)

    variants = list(dict.fromkeys(args.variant or DEFAULT_VARIANTS))
    if "all" in variants:
        variants = list(FEATURES)
    unknown = [v for v in variants if v not in FEATURES]
    if unknown:
        raise QLogError(f"unknown variant {unknown[0]!r}; known: {', '.join(FEATURES)} or 'all'")
    for name, value in (("--c", args.c), ("--q-min", args.q_min)):
        if not math.isfinite(value):
            raise QLogError(f"{name} must be finite, got {value}")
    if args.q_min > 1:
        raise QLogError(f"--q-min must be at most 1, got {args.q_min}")
    if args.threads < 1:
        raise QLogError(f"--threads must be at least 1, got {args.threads}")
    for out in (args.output, args.json):
        parent = Path(out).parent if out else None
        if parent is not None and not (parent if str(parent) else Path(".")).is_dir():
            raise QLogError(f"output folder {str(parent)!r} does not exist")
    sweeps = [read_sweep(d) for d in args.sweeps]
    names = [s.name for s in sweeps]
    if len(set(names)) != len(names):
        raise QLogError(f"sweep names must be unique, got {names}")
    metrics = {s.metric for s in sweeps}
    if len(metrics) != 1:
        raise QLogError(f"all sweeps must use one metric, got {sorted(metrics)}")
    if len(sweeps) < 2:
        print("warning: one sweep: only the fixed-c rule can be evaluated", file=sys.stderr)

    evaluator = SearchEvaluator(threads=args.threads)
    try:
        results, notes = run_lolo(sweeps, variants, evaluator, fixed_c=args.c, q_min=args.q_min,
                                  sample_docs=args.sample_docs, seed=args.seed)
    finally:
        evaluator.close()
    notes = notes + evaluator.warnings
    for w in evaluator.warnings:
        print(f"warning: {w}", file=sys.stderr)
    report = format_markdown(results, metrics.pop(), notes)
    report += "\n" + provenance_markdown(provenance(command_line("qlog_pyserini.lolo", argv)))
    print(report, end="")
    if args.output:
        with atomic_output(args.output) as f:
            f.write(report)
    if args.json:
        payload = [{"variant": r.variant, "mode": r.mode, "c_all": r.c_all, "q_min": r.q_min,
                    "mean_recovery": r.mean_recovery, "rows": [asdict(row) for row in r.rows]} for r in results]
        with atomic_output(args.json) as f:
            json.dump({"results": payload, "notes": notes}, f, indent=2)
    return 0


if __name__ == "__main__":
    run_cli(main)
