"""Is run B better than run A? ``python -m qlog_pyserini.compare --qrels QRELS --runs A B``.

Both runs are scored per query by trec_eval (:mod:`qlog_pyserini.eval.trec_eval`, with ``-c``)
over every query in the qrels, a query a run does not answer scoring 0, and the paired
differences B - A go through :func:`qlog_pyserini.eval.significance.compare_scores`: bootstrap
interval and reversals, randomization test, paired t-test, wins/ties/losses.
"""

from __future__ import annotations

import dataclasses
import os

import pandas as pd

from qlog_pyserini.eval.report import markdown_table
from qlog_pyserini.eval.significance import ComparisonResult, compare_scores, format_p
from qlog_pyserini.eval.trec_eval import per_query_scores

DEFAULT_METRIC = "ndcg_cut.10"


def paired_scores(qrels: str | os.PathLike, run_a: str | os.PathLike, run_b: str | os.PathLike,
                  metric: str = DEFAULT_METRIC) -> pd.DataFrame:
    """Per-query ``metric`` of both runs, columns ``a`` and ``b``, one row per qrels query (absent = 0)."""
    a = per_query_scores(qrels, run_a, metric)
    b = per_query_scores(qrels, run_b, metric)
    # Both are indexed by the same qrels queries (trec_eval -c plus our 0-fill); align anyway.
    return pd.DataFrame({"a": a, "b": b.reindex(a.index)})


def compare_runs(qrels: str | os.PathLike, run_a: str | os.PathLike, run_b: str | os.PathLike,
                 metric: str = DEFAULT_METRIC, resamples: int = 10000, seed: int = 0) -> ComparisonResult:
    """Paired comparison of baseline ``run_a`` and system ``run_b`` on ``metric`` over all qrels queries."""
    scores = paired_scores(qrels, run_a, run_b, metric)
    return compare_scores(scores["a"], scores["b"], resamples=resamples, seed=seed)


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|")


#: the comparison table's columns (:func:`comparison_cells` fills a row) and their alignment, one letter each
COMPARISON_HEADERS = ("metric", "A", "B", "B - A", "rel.", "95% CI", "p (two-sided randomization)",
                      "t-test (two-sided)", "bootstrap reversals", "W/T/L", "queries")
COMPARISON_ALIGN = "lrrrrlllllr"


def comparison_cells(result: ComparisonResult, metric: str) -> list[str]:
    """One row of the comparison table (:data:`COMPARISON_HEADERS`) for a comparison on ``metric``."""
    rel = "n/a" if result.rel_diff is None else f"{result.rel_diff:+.1%}"
    return [_cell(metric), f"{result.mean_a:.4f}", f"{result.mean_b:.4f}", f"{result.diff:+.4f}", rel,
            f"[{result.ci_low:+.4f}, {result.ci_high:+.4f}]", format_p(result.p_randomization, result.resamples),
            format_p(result.p_ttest), f"{result.p_bootstrap:.4g} ({result.reversals}/{result.resamples})",
            f"{result.wins}/{result.ties}/{result.losses}", f"{result.n_queries}"]


def comparison_table(result: ComparisonResult, metric: str) -> str:
    """The one-row markdown table of a comparison on ``metric``."""
    return markdown_table([comparison_cells(result, metric)], COMPARISON_HEADERS, COMPARISON_ALIGN)


def format_markdown(result: ComparisonResult, metric: str, name_a: str, name_b: str, seed: int | None = None) -> str:
    """A markdown report: which run is which, how it was tested, and the one-row table (two-sided p first)."""
    seeded = "" if seed is None else f", seed {seed}"
    return (f"A (baseline): `{name_a}`  \nB (system): `{name_b}`\n\n"
            f"Paired over {result.n_queries} qrels queries (a query a run lacks scores 0); "
            f"95% CI, bootstrap reversals and randomization p from {result.resamples} resamples{seeded}; "
            f"p = two-sided paired randomization (sign-flip) test, the headline p; t-test two-sided; "
            f"bootstrap reversals = share of resamples whose mean B - A does not keep the observed sign "
            f"(one-sided, about half a two-sided p, so not reported as p); W/T/L counted for B.\n\n"
            + comparison_table(result, metric))


def result_record(result: ComparisonResult, metric: str, name_a: str, name_b: str) -> dict[str, object]:
    """The comparison as a flat record (one CSV row): metric, run_a, run_b, then every result field."""
    return {"metric": metric, "run_a": name_a, "run_b": name_b, **dataclasses.asdict(result)}
