"""Leave-one-family-out, the report: markdown tables and the JSON payload of ``python -m qlog_pyserini.lolo``."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Sequence

from qlog_pyserini.eval.report import cell, markdown_table
from qlog_pyserini.jvm.provenance import provenance
from qlog_pyserini.lolo.evaluate import SearchEvaluator
from qlog_pyserini.lolo.fit import (
    FIT_FLOOR,
    RECOVERY_TOLERANCE,
    AutoRow,
    LoloOptions,
    RuleParams,
    RuleResult,
    ShrinkSelection,
    Sweep,
    apply_rule,
    auto_summary,
    candidate_grid,
    collect_evidence,
    fit_rule,
    load_sweeps,
    run_lolo,
    select_shrinkage,
)
from qlog_pyserini.predict.rule import DEFAULT_C, DEFAULT_Q_MIN, DEFAULT_SHRINK_DOCS, DEFAULT_STEP, DEFAULT_VARIANT
from qlog_pyserini.system.provenance import provenance_markdown

PAPER_RECOVERY = 0.72
TITLE = "Label-free q: leave-one-family-out"


def rule_title(result: RuleResult) -> str:
    how = (f"c fitted on the other corpora (c on all corpora: {result.c_all:.4g})" if result.mode == "fit"
           else f"fixed c = {result.c_all:g}")
    return f"h = {result.variant}, {how}"


def format_markdown(results: Sequence[RuleResult], metric: str, notes: Sequence[str] = (),
                    title: str = "Per-feature rules, one corpus held out at a time") -> str:
    """The per-feature report: one table per rule, then a summary of mean recoveries beside the paper's."""
    lines = [f"# {title}", "",
             f"q_pred = clip(1 - c * h, q_min, 1); M = {metric}; recovery = (M(q_pred) - M(1)) / (M(q_opt) - M(1)), "
             "n/a (and left out of the mean) when M(q_opt) <= M(1). "
             "M(q_pred) marked * was measured by searching at q_pred (off the sweep's grid).", ""]
    for r in results:
        rows = [[row.name, f"{row.h:.4f}", f"{row.q_opt:g}", f"{row.c:.3f}", f"{row.q_pred:.3f}", f"{row.m_base:.4f}",
                 f"{row.m_opt:.4f}", f"{row.m_pred:.4f}{'*' if row.measured else ''}", f"{row.m_pred - row.m_base:+.4f}",
                 cell(row.recovery, ".3f")] for row in r.rows]
        lines += [f"## {rule_title(r)}", "",
                  markdown_table(rows, ["corpus", "h", "q_opt", "c", "q_pred", "M(1)", "M(q_opt)", "M(q_pred)",
                                        "M(q_pred) - M(1)", "recovery"], "l" + "r" * 9).rstrip("\n"),
                  "", f"mean recovery: {cell(r.mean_recovery, '.3f')} over {r.counted} of {len(r.rows)} corpora "
                      f"(paper: {PAPER_RECOVERY})", ""]
    summary = [[r.variant, "leave-one-out fit" if r.mode == "fit" else f"{r.c_all:g}", cell(r.mean_recovery, ".3f"),
                f"{r.counted}/{len(r.rows)}"] for r in results]
    summary.append(["paper (h_tok)", "leave-one-out fit", f"{PAPER_RECOVERY}", ""])
    lines += ["## Summary", "",
              markdown_table(summary, ["h", "c", "mean recovery", "corpora counted"], "llrr").rstrip("\n")]
    if notes:
        lines += ["", "Notes:", ""] + [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"


def format_auto_markdown(title: str, rows: Sequence[AutoRow], metric: str, show_params: bool) -> str:
    """One table: per corpus BM25, q_opt, oracle, q_auto, M at auto, relative change, recovery."""
    s = auto_summary(rows)
    headers = (["corpus", "kind", "docs", "h"] + (["rule fitted without this corpus's family"] if show_params else [])
               + ["BM25", "q_opt", f"{metric} at q_opt", "q_auto", f"{metric} at q_auto", "vs BM25", "recovery"])
    table = [[r.name, r.kind, f"{r.docs:,}", f"{r.h:.4f}"]
             + ([f"c = {r.params.c:g}, q_min = {r.params.q_min:g}, n0 = {r.params.shrink_docs}"] if show_params else [])
             + [f"{r.m_base:.4f}", f"{r.q_opt:g}", f"{r.m_opt:.4f}", f"{r.q_auto:g}",
                f"{r.m_auto:.4f}{'*' if r.measured else ''}", f"{r.rel_change:+.2%}", cell(r.recovery, ".3f")]
             for r in rows]
    lines = [f"## {title}", "", markdown_table(table, headers).rstrip("\n")]
    worst = "n/a" if s["worst_rel_change"] is None else f"{s['worst_rel_change']:+.2%} ({s['worst_corpus']})"
    lines += ["", f"Worst change against BM25: {worst}; corpora more than 0.5% below BM25: "
                  f"{', '.join(s['below_floor']) or 'none'}. Mean recovery on code corpora: "
                  f"{cell(s['mean_recovery_code'], '.3f')} over {s['code_counted']} with a gain to recover "
                  f"({cell(s['mean_recovery_code_full_size'], '.3f')} over the {s['full_size_counted']} full-size ones).", ""]
    return "\n".join(lines)


def format_selection_markdown(selection: ShrinkSelection) -> str:
    table = []
    for n0, rows in selection.outcomes.items():
        s = auto_summary(rows)
        mark = " (chosen)" if n0 == selection.chosen else ""
        table.append([f"{n0}{mark}", f"{s['worst_rel_change']:+.2%} ({s['worst_corpus']})",
                      ", ".join(s["below_floor"]) or "none", cell(s["mean_recovery_code"], ".3f"),
                      cell(s["mean_recovery_code_full_size"], ".3f")])
    return ("## Choosing the shrinkage n0 by leave-one-family-out\n\n"
            + markdown_table(table, ["n0", "worst change vs BM25 (corpus)", "corpora > 0.5% below BM25",
                                     "mean recovery, code", "mean recovery, full-size code"], "rllrr"))


def _rows(rows: Sequence[AutoRow]) -> list[dict[str, Any]]:
    return [{**asdict(r), "rel_change": r.rel_change, "recovery": r.recovery} for r in rows]


def rule_report(sweeps: Sequence[Sweep], metric: str, options: LoloOptions,
                evaluator: SearchEvaluator) -> tuple[str, dict]:
    """The leave-one-family-out table, the default rule's table, and the rule fitted on all corpora."""
    evidence = collect_evidence(sweeps, text=options.text, sample_docs=options.sample_docs, seed=options.seed)
    candidates = candidate_grid(variants=options.fit_variants, shrinks=(0,))
    default = RuleParams(DEFAULT_VARIANT, DEFAULT_C, DEFAULT_Q_MIN, DEFAULT_SHRINK_DOCS, DEFAULT_STEP)
    families = {e.family for e in evidence}
    selection = select_shrinkage(evidence, candidates, evaluator, options.shrinks) if len(families) >= 2 else None
    held_out = selection.outcomes[selection.chosen] if selection else []
    n0 = selection.chosen if selection else DEFAULT_SHRINK_DOCS
    on_all = fit_rule(evidence, [RuleParams(c.variant, c.c, c.q_min, n0, c.step, c.h0) for c in candidates], evaluator)
    default_rows = apply_rule(evidence, default, evaluator)
    parts = [f"# {TITLE}", "",
             f"M = {metric}. Rule: q = 1 - w * (1 - clip(1 - c * h, q_min, 1)), w = N / (N + n0), rounded up to a "
             f"multiple of {DEFAULT_STEP:g}. A family is a corpus with its nested size subsamples; each family is "
             f"held out in turn. Fitting picks, among {len(candidates)} candidates (features "
             f"{', '.join(options.fit_variants)}), c and q_min with the best mean recovery on the training code corpora "
             f"(the most cautious within {RECOVERY_TOLERANCE:g} of it) subject to every training corpus staying above "
             f"{FIT_FLOOR:.2%} against BM25; n0 is chosen by comparing the held-out outcomes of each fixed n0: the largest "
             "whose held-out rows all stay within 0.5% of BM25 with a mean held-out recovery on code of at least 0.5. "
             "Recovery = (M(q_auto) - M(1)) / (M(q_opt) - M(1)), n/a when M(q_opt) <= M(1). "
             "A value marked * was measured by searching at q_auto (off the sweep's grid).", ""]
    if selection:
        parts.append(format_selection_markdown(selection))
        parts.append(format_auto_markdown(f"Held out (n0 = {n0}): the rule fitted without the corpus's family", held_out,
                                          metric, show_params=True))
    parts.append(format_auto_markdown(f"The default rule ({default.label()}) on every corpus (in-sample: its "
                                      "constants were chosen on these corpora)", default_rows, metric,
                                      show_params=False))
    parts.append(f"Rule fitted on all {len(evidence)} corpora: {on_all.label()}.\n")
    payload = {"loco": _rows(held_out), "loco_summary": auto_summary(held_out) if held_out else None,
               "default": {"params": asdict(default), "rows": _rows(default_rows), "summary": auto_summary(default_rows)},
               "fitted_on_all": asdict(on_all), "shrink_docs_chosen": n0,
               "shrink_selection": {str(k): auto_summary(v) for k, v in selection.outcomes.items()} if selection else None}
    return "\n".join(parts), payload


def variant_report(sweeps: Sequence[Sweep], metric: str, options: LoloOptions,
                   evaluator: SearchEvaluator) -> tuple[str, list, list[str]]:
    """The per-feature report of ``--variant``: c alone of q = clip(1 - c * h, q_min, 1), per feature."""
    results, notes = run_lolo(sweeps, options.variants, evaluator, fixed_c=options.c, q_min=options.q_min,
                              sample_docs=options.sample_docs, seed=options.seed)
    payload = [{"variant": r.variant, "mode": r.mode, "c_all": r.c_all, "q_min": r.q_min,
                "mean_recovery": r.mean_recovery, "rows": [asdict(row) for row in r.rows]} for r in results]
    return format_markdown(results, metric, notes), payload, notes


def lolo_report(folders: Sequence[str], options: LoloOptions, command: str) -> tuple[str, dict, list[str]]:
    """The whole evaluation of the sweeps in ``folders``: (markdown ending in provenance, JSON payload, warnings).

    ``options`` is checked and the sweeps read before any search starts; ``command`` is what the
    provenance records as the command that made the report.
    """
    options = options.check()
    sweeps, metric = load_sweeps(folders)
    evaluator = SearchEvaluator(threads=options.threads)
    try:
        report, payload = ("", {}) if options.auto_query_only else rule_report(sweeps, metric, options, evaluator)
        from qlog_pyserini.lolo.per_query import per_query_report

        text, payload["auto_query"] = per_query_report(sweeps, metric, options.text)
        report += text.lstrip("\n") if options.auto_query_only else text
        if options.variants and not options.auto_query_only:
            text, per_variant, notes = variant_report(sweeps, metric, options, evaluator)
            report += "\n" + text
            payload.update({"per_variant": per_variant, "notes": notes})
    finally:
        evaluator.close()
    if evaluator.warnings:
        report += "\nWarnings:\n\n" + "".join(f"- {w}\n" for w in evaluator.warnings)
    report += "\n" + provenance_markdown(provenance(command))
    return report, payload, list(evaluator.warnings)
