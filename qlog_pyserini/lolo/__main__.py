"""``python -m qlog_pyserini.lolo``: the command line over :mod:`qlog_pyserini.lolo.evaluation`."""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Sequence

from qlog_pyserini.cli.parser import ArgumentParser, run_cli
from qlog_pyserini.errors import QLogError
from qlog_pyserini.system.provenance import command_line, provenance, provenance_markdown
from qlog_pyserini.system.outputs import atomic_output
from qlog_pyserini.lolo.evaluation import (
    FIT_FLOOR,
    RECOVERY_TOLERANCE,
    RuleParams,
    SearchEvaluator,
    Sweep,
    apply_rule,
    auto_summary,
    candidate_grid,
    collect_evidence,
    fit_rule,
    format_auto_markdown,
    format_markdown,
    format_selection_markdown,
    read_sweep,
    run_lolo,
    select_shrinkage,
)
from qlog_pyserini.predict.rule import DEFAULT_C, DEFAULT_Q_MIN, DEFAULT_SHRINK_DOCS, DEFAULT_STEP, DEFAULT_VARIANT, PAPER_C, PAPER_Q_MIN
from qlog_pyserini.stats.statistics import DEFAULT_SAMPLE_DOCS, FEATURES


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="python -m qlog_pyserini.lolo",
        description="Leave-one-corpus-out evaluation of the label-free q rule (--q auto). For each corpus, the "
                    "rule's constants (feature, c, q_min, shrinkage n0) are fitted on the corpora of the OTHER "
                    "families (a corpus and its nested size subsamples, named NAME-500, NAME-2k, ..., are one "
                    "family): the candidate with the best mean recovery on the training code corpora among those "
                    "that keep every training corpus within 0.25% of BM25. The held-out corpus is then scored at "
                    "the q that rule gives it: per corpus BM25, q_opt, the oracle, q_auto, the metric at q_auto, "
                    "the change against BM25 and recovery = (M(q_auto) - M(1)) / (M(q_opt) - M(1)). Then the "
                    "default rule on every corpus. With --variant, also the older per-feature report "
                    "(q = clip(1 - c * h, q_min, 1), c fitted leave-one-out and the paper's fixed c).")
    parser.add_argument("--sweeps", nargs="+", required=True, metavar="DIR",
                        help="sweep folders of python -m qlog_pyserini.sweep (each with summary.json), one per corpus")
    parser.add_argument("--text", action="append", default=[], metavar="NAME",
                        help="a natural-language corpus (or family); repeatable; the others count as code")
    parser.add_argument("--fit-variant", action="append", metavar="V",
                        help=f"features the rule fit may choose from, repeatable (default {DEFAULT_VARIANT})")
    parser.add_argument("--shrink-docs", default="0,1000,2000,3000,5000,10000", metavar="N,N,...",
                        help="shrinkage constants n0 to choose from by leave-one-corpus-out: the largest whose held-out "
                             "rows are all within 0.5%% of BM25 and whose mean held-out recovery on code is at least "
                             "0.5 (default 0,1000,2000,3000,5000,10000)")
    parser.add_argument("--variant", action="append", metavar="V",
                        help=f"also the per-feature report for V, repeatable, or 'all'; one of {', '.join(FEATURES)}")
    parser.add_argument("--c", type=float, default=PAPER_C, help=f"per-feature report: the fixed c (default {PAPER_C:g})")
    parser.add_argument("--q-min", type=float, default=PAPER_Q_MIN,
                        help=f"per-feature report: lowest predicted q (default {PAPER_Q_MIN:g})")
    parser.add_argument("--sample-docs", type=int, default=DEFAULT_SAMPLE_DOCS,
                        help=f"documents in the sample of the sample-* features (default {DEFAULT_SAMPLE_DOCS})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    parser.add_argument("--threads", type=int, default=1, help="search threads for an off-grid q (default 1)")
    parser.add_argument("--output", metavar="MD", help="also write the report here (its folder must exist)")
    parser.add_argument("--json", metavar="PATH", help="also write every number as JSON")
    return parser


def check_args(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """Validate the options before any work; returns (per-feature report variants, fit variants)."""
    variants = list(dict.fromkeys(args.variant or []))
    if "all" in variants:
        variants = list(FEATURES)
    fit_variants = list(dict.fromkeys(args.fit_variant or [DEFAULT_VARIANT]))
    unknown = [v for v in variants + fit_variants if v not in FEATURES]
    if unknown:
        raise QLogError(f"unknown variant {unknown[0]!r}; known: {', '.join(FEATURES)} or 'all'")
    for name, value in (("--c", args.c), ("--q-min", args.q_min)):
        if not math.isfinite(value):
            raise QLogError(f"{name} must be finite, got {value}")
    if args.q_min > 1:
        raise QLogError(f"--q-min must be at most 1, got {args.q_min}")
    if args.threads < 1:
        raise QLogError(f"--threads must be at least 1, got {args.threads}")
    try:
        args.shrinks = sorted({int(x) for x in args.shrink_docs.split(",") if x.strip()})
    except ValueError:
        raise QLogError(f"--shrink-docs {args.shrink_docs!r} must be comma-separated integers") from None
    if not args.shrinks or min(args.shrinks) < 0:
        raise QLogError(f"--shrink-docs {args.shrink_docs!r} must list integers >= 0")
    for out in (args.output, args.json):
        parent = Path(out).parent if out else None
        if parent is not None and not (parent if str(parent) else Path(".")).is_dir():
            raise QLogError(f"output folder {str(parent)!r} does not exist")
    return variants, fit_variants


def load_sweeps(folders: Sequence[str]) -> tuple[list[Sweep], str]:
    """The sweeps, checked to have unique names and one metric; returns them and the metric."""
    sweeps = [read_sweep(d) for d in folders]
    names = [s.name for s in sweeps]
    if len(set(names)) != len(names):
        raise QLogError(f"sweep names must be unique, got {names}")
    metrics = {s.metric for s in sweeps}
    if len(metrics) != 1:
        raise QLogError(f"all sweeps must use one metric, got {sorted(metrics)}")
    return sweeps, metrics.pop()


def rule_report(sweeps: Sequence[Sweep], metric: str, args: argparse.Namespace, fit_variants: Sequence[str],
                evaluator: SearchEvaluator) -> tuple[str, dict]:
    """The leave-one-family-out table, the default rule's table, and the rule fitted on all corpora."""
    evidence = collect_evidence(sweeps, text=args.text, sample_docs=args.sample_docs, seed=args.seed)
    candidates = candidate_grid(variants=fit_variants, shrinks=(0,))
    default = RuleParams(DEFAULT_VARIANT, DEFAULT_C, DEFAULT_Q_MIN, DEFAULT_SHRINK_DOCS, DEFAULT_STEP)
    families = {e.family for e in evidence}
    selection = select_shrinkage(evidence, candidates, evaluator, args.shrinks) if len(families) >= 2 else None
    loco = selection.outcomes[selection.chosen] if selection else []
    n0 = selection.chosen if selection else DEFAULT_SHRINK_DOCS
    on_all = fit_rule(evidence, [RuleParams(c.variant, c.c, c.q_min, n0, c.step, c.h0) for c in candidates], evaluator)
    default_rows = apply_rule(evidence, default, evaluator)
    parts = ["# Label-free q: leave-one-corpus-out", "",
             f"M = {metric}. Rule: q = 1 - w * (1 - clip(1 - c * h, q_min, 1)), w = N / (N + n0), rounded up to a "
             f"multiple of {DEFAULT_STEP:g}. Fitting picks, among {len(candidates)} candidates (features "
             f"{', '.join(fit_variants)}), c and q_min with the best mean recovery on the training code corpora (the most "
             f"cautious within {RECOVERY_TOLERANCE:g} of it) subject to every training corpus staying above "
             f"{FIT_FLOOR:.2%} against BM25; n0 is chosen by comparing the held-out outcomes of each fixed n0: the largest "
             "whose held-out rows all stay within 0.5% of BM25 with a mean held-out recovery on code of at least 0.5. "
             "Held-out families are a corpus with its "
             "nested size subsamples. Recovery = (M(q_auto) - M(1)) / (M(q_opt) - M(1)), n/a when M(q_opt) <= M(1). "
             "A value marked * was measured by searching at q_auto (off the sweep's grid).", ""]
    if selection:
        parts.append(format_selection_markdown(selection))
        parts.append(format_auto_markdown(f"Held out (n0 = {n0}): the rule fitted without the corpus's family", loco,
                                          metric, show_params=True))
    parts.append(format_auto_markdown(f"The default rule ({default.label()}) on every corpus (in-sample: its "
                                      "constants were chosen on these corpora)", default_rows, metric,
                                      show_params=False))
    parts.append(f"Rule fitted on all {len(evidence)} corpora: {on_all.label()}.\n")
    payload = {"loco": [{**asdict(r), "rel_change": r.rel_change, "recovery": r.recovery} for r in loco],
               "loco_summary": auto_summary(loco) if loco else None,
               "default": {"params": asdict(default), "rows": [{**asdict(r), "rel_change": r.rel_change,
                                                                 "recovery": r.recovery} for r in default_rows],
                           "summary": auto_summary(default_rows)},
               "fitted_on_all": asdict(on_all), "shrink_docs_chosen": n0,
               "shrink_selection": {str(k): auto_summary(v) for k, v in selection.outcomes.items()} if selection else None}
    return "\n".join(parts), payload


def variant_report(sweeps: Sequence[Sweep], metric: str, args: argparse.Namespace, variants: Sequence[str],
                   evaluator: SearchEvaluator) -> tuple[str, list, list[str]]:
    """The older per-feature report (q = clip(1 - c * h, q_min, 1))."""
    results, notes = run_lolo(sweeps, variants, evaluator, fixed_c=args.c, q_min=args.q_min,
                              sample_docs=args.sample_docs, seed=args.seed)
    payload = [{"variant": r.variant, "mode": r.mode, "c_all": r.c_all, "q_min": r.q_min,
                "mean_recovery": r.mean_recovery, "rows": [asdict(row) for row in r.rows]} for r in results]
    return format_markdown(results, metric, notes), payload, notes


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    variants, fit_variants = check_args(args)
    sweeps, metric = load_sweeps(args.sweeps)
    evaluator = SearchEvaluator(threads=args.threads)
    try:
        report, payload = rule_report(sweeps, metric, args, fit_variants, evaluator)
        if variants:
            text, per_variant, notes = variant_report(sweeps, metric, args, variants, evaluator)
            report += "\n" + text.replace("# Leave-one-language-out: label-free q", "# Per-feature rules", 1)
            payload.update({"per_variant": per_variant, "notes": notes})
    finally:
        evaluator.close()
    for w in evaluator.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if evaluator.warnings:
        report += "\nWarnings:\n\n" + "".join(f"- {w}\n" for w in evaluator.warnings)
    report += "\n" + provenance_markdown(provenance(command_line("qlog_pyserini.lolo", argv)))
    print(report, end="")
    if args.output:
        with atomic_output(args.output) as f:
            f.write(report)
    if args.json:
        with atomic_output(args.json) as f:
            json.dump(payload, f, indent=2)
    return 0


if __name__ == "__main__":
    run_cli(main)
