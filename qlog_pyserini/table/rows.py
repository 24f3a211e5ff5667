"""Gather sweeps into one results table (markdown and CSV).

    python -m qlog_pyserini.table --sweeps work/sweeps/csn-ruby work/sweeps/cosqa work/sweeps/cacm \\
        --output work/sweeps.md --csv work/sweeps.csv

One row per sweep folder (its ``summary.json``, written by :mod:`qlog_pyserini.sweep`): corpus,
documents, queries, BM25; the cross-validated choice (values chosen, metric, gain, two-sided p);
the oracle (value, metric, gain, two-sided p); the label-free q and its metric; Recall@K-tokens of
BM25 and of the oracle run. The CSV also has the t-test p and the bootstrap reversal share. The markdown ends with the
command, date and versions of this table and of each sweep.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.report import cell, markdown_table
from qlog_pyserini.eval.significance import format_p
from qlog_pyserini.sweep.results import SUMMARY
from qlog_pyserini.sweep.results import read as read_result


def load_summary(folder: str | os.PathLike) -> dict:
    """A sweep folder's ``summary.json``, or a clear error."""
    path = Path(folder) / SUMMARY
    summary = dict(read_result(folder))
    # A hand-edited or truncated summary must fail here, with its name, not as a KeyError in the table.
    missing = [k for k in _REQUIRED if k not in summary]
    if not missing and not isinstance(summary["comparison"], dict):
        missing = ["comparison"]
    missing += [f"comparison.{k}" for k in _REQUIRED_COMPARISON
                if not missing and k not in summary["comparison"]]
    if missing:
        raise QLogError(f"{path}: not a complete sweep summary (missing or malformed: {', '.join(missing)})")
    return summary


_REQUIRED = ("name", "docs", "judged_queries", "metric", "baseline_score", "parameter", "oracle_value",
             "oracle_score", "comparison")
_REQUIRED_COMPARISON = ("diff", "rel_diff", "p_bootstrap", "reversals", "resamples")


def budget_label(budget: str) -> str:
    """``8192`` -> ``8K``; a budget that is not a multiple of 1,024 tokens is shown as is (``123``)."""
    value = int(budget)
    return f"{value // 1024}K" if value % 1024 == 0 else f"{value:,}"


def current_auto(summary: dict, folder: str | os.PathLike) -> dict | None:
    """The label-free q of the CURRENT default rule for a q-log sweep, scored from the sweep's own per-query data.

    A sweep records the q its rule gave when it ran; after the rule changes, this recomputes q for the
    sweep's index (:func:`qlog_pyserini.predict.rule.predict_q`) and, when that q is a point of the
    sweep (the rule rounds to the 0.05 grid), reads its score and compares its per-query scores with
    BM25's by the sweep's paired tests. None for other models; score n/a when q is off the grid.
    """
    if summary.get("similarity", "qlog") != "qlog" or summary.get("parameter") != "q":
        return None
    from dataclasses import asdict

    from qlog_pyserini.eval.significance import compare_scores
    from qlog_pyserini.predict.rule import predict_q

    pred = asdict(predict_q(summary["index"]))
    per_query = pd.read_csv(Path(folder) / "per_query.csv", index_col=0)
    column = f"q{pred['q']:g}"
    if column not in per_query.columns or "q1" not in per_query.columns:
        return {**pred, "score": None, "comparison": {}}
    resamples = summary["comparison"]["resamples"]
    comparison = compare_scores(per_query["q1"], per_query[column], resamples=resamples, seed=0)
    return {**pred, "score": summary["scores"][f"{pred['q']:g}"], "comparison": asdict(comparison)}


def current_auto_query(summary: dict, folder: str | os.PathLike, corpus_rule: Any = None) -> dict | None:
    """The CURRENT default per-query rule (``--q auto-query``) for a q-log sweep, scored from its per-query data.

    Each query's q (:mod:`qlog_pyserini.predict.query_rule`, from its term statistics in the sweep's
    index and the current corpus rule) is a 0.05 grid point, so its score is read from ``per_query.csv``;
    compared with BM25 by the sweep's paired tests. None for other models, or when a q is off the grid.
    ``corpus_rule`` (a :class:`qlog_pyserini.predict.rule.RuleSettings`) replaces the default corpus rule.
    """
    if summary.get("similarity", "qlog") != "qlog" or summary.get("parameter") != "q":
        return None
    from dataclasses import asdict

    from qlog_pyserini.eval.significance import compare_scores
    from qlog_pyserini.formats.topics import read_topics
    from qlog_pyserini.lucene.searcher import QLogSearcher
    from qlog_pyserini.predict.per_query import query_doc_freqs
    from qlog_pyserini.predict.query_rule import QueryRuleSettings, corpus_move, distribution, query_qs
    from qlog_pyserini.predict.rule import RuleSettings, predict_with

    rule = QueryRuleSettings()
    prediction = predict_with(summary["index"], RuleSettings() if corpus_rule is None else corpus_rule)
    topics = read_topics(summary["topics"])
    with QLogSearcher(summary["index"]) as searcher:
        chosen = dict(zip(topics, query_qs(query_doc_freqs(searcher, list(topics.values())), prediction, rule)))
    per_query = pd.read_csv(Path(folder) / "per_query.csv", index_col=0)
    per_query.index = per_query.index.astype(str)
    columns = [f"q{chosen[qid]:g}" for qid in per_query.index]
    if "q1" not in per_query.columns or any(c not in per_query.columns for c in columns):
        return None
    scores = pd.Series([per_query.at[qid, c] for qid, c in zip(per_query.index, columns)], index=per_query.index)
    comparison = compare_scores(per_query["q1"], scores, resamples=summary["comparison"]["resamples"], seed=0)
    return {"rule": asdict(rule), "corpus_q": prediction.q, "corpus_move": corpus_move(prediction),
            "score": float(scores.mean()), "comparison": asdict(comparison),
            "q_distribution": distribution([chosen[qid] for qid in per_query.index])}


def table_rows(summaries: Sequence[dict], budget: str = "8192") -> pd.DataFrame:
    """One row per sweep: BM25, the cross-validated choice, the oracle, the label-free q, Recall@K-tokens.

    Sweeps written before cross-validation and the label-free q were reported have n/a there.
    """
    rows = []
    for s in summaries:
        c, p = s["comparison"], s["parameter"]
        cv, auto, auto_query = s.get("cv") or {}, s.get("auto") or {}, s.get("auto_query") or {}
        cvc, autoc, aqc = cv.get("comparison") or {}, auto.get("comparison") or {}, auto_query.get("comparison") or {}
        recall = s.get("recall_at_tokens", {})
        rows.append({
            "corpus": s["name"], "docs": s["docs"], "queries": s["judged_queries"], "metric": s["metric"],
            "idf_form": s.get("idf_form"), "similarity": s.get("similarity", "qlog"), "bm25": s["baseline_score"],
            "parameter": p,
            "cv": cv.get("score"), "cv_values": "/".join(f"{v:g}" for v in sorted(set(cv.get("chosen", [])))) or None,
            "cv_gain": cvc.get("diff"), "cv_rel_gain": cvc.get("rel_diff"), "cv_p": cvc.get("p_randomization"),
            "folds": cv.get("folds"),
            "best": s["oracle_value"], "at_best": s["oracle_score"], "gain": c["diff"], "rel_gain": c["rel_diff"],
            "p": c.get("p_randomization"), "p_ttest": c.get("p_ttest"),
            "reversal_share": c["p_bootstrap"], "reversals": c["reversals"], "resamples": c["resamples"],
            "auto": auto.get("q"), "at_auto": auto.get("score"), "auto_rel_gain": autoc.get("rel_diff"),
            "auto_p": autoc.get("p_randomization"),
            "at_auto_query": auto_query.get("score"), "auto_query_rel_gain": aqc.get("rel_diff"),
            "auto_query_p": aqc.get("p_randomization"),
            "auto_query_qs": " ".join(f"{q}:{n}" for q, n in (auto_query.get("q_distribution") or {}).items()) or None,
            "at_per_query_oracle": s.get("per_query_oracle_score"),
            f"recall@{budget}_bm25": recall.get("bm25", {}).get(budget),
            f"recall@{budget}_best": recall.get("oracle", {}).get(budget),
            "sweep_seconds": s.get("seconds"),
            **_tuned_columns(s.get("tuned") or {}),
        })
    return pd.DataFrame(rows)


def _tuned_columns(tuned: dict) -> dict[str, Any]:
    """Tuned BM25 beside q-log (:func:`qlog_pyserini.sweep.run.run_sweep` with k1 and b grids); None without it."""
    def chosen(family: str) -> str | None:
        texts = (tuned.get(family) or {}).get("chosen_text")
        # each choice is itself "k1/b" or "b/q": distinct choices are listed with commas
        return ", ".join(dict.fromkeys(t.split(" = ", 1)[1] for t in texts)) if texts else None

    def get(*keys: str) -> Any:
        value: Any = tuned
        for k in keys:
            value = (value or {}).get(k)
        return value

    return {"engine_bm25": get("engine", "score"), "tuned_values": chosen("bm25"), "tuned_cv": get("bm25", "score"),
            "tuned_p": get("bm25", "comparison", "p_randomization"),
            "qlog_vs_tuned": get("qlog_vs_tuned", "diff"), "qlog_vs_tuned_p": get("qlog_vs_tuned", "p_randomization"),
            "joint_values": chosen("joint"), "joint_cv": get("joint", "score"),
            "joint_vs_tuned": get("joint_vs_tuned", "diff"),
            "joint_vs_tuned_p": get("joint_vs_tuned", "p_randomization")}


def format_tuned_markdown(table: pd.DataFrame) -> str:
    """Tuned BM25 beside q-log, one row per sweep that measured it (empty when none did): BM25, the engines'
    default, tuned BM25 (k1, b), q-log and the joint (b, q) choice, all cross-validated on the same folds."""
    if "tuned_cv" not in table.columns or table["tuned_cv"].isna().all():
        return ""
    rows = [[r["corpus"], f"{r['bm25']:.4f}", f"{r['engine_bm25']:.4f}", f"{r['tuned_values']}", f"{r['tuned_cv']:.4f}",
             f"{r['cv']:.4f}", f"{r['qlog_vs_tuned']:+.4f}", format_p(r["qlog_vs_tuned_p"], r["resamples"]),
             f"{r['joint_values']}", f"{r['joint_cv']:.4f}", f"{r['joint_vs_tuned']:+.4f}",
             format_p(r["joint_vs_tuned_p"], r["resamples"])]
            for r in table.to_dict("records") if not _missing(r.get("tuned_cv"))]
    return markdown_table(rows, ["corpus", "BM25", "BM25 (k1 1.2, b 0.75)", "tuned BM25: k1/b chosen", "tuned BM25 (CV)",
                                 "q-log (CV)", "q-log − tuned", "p", "joint: b/q chosen", "joint (b, q) (CV)",
                                 "joint − tuned", "p"], "lrrlrrlllrll") + "\n" + TUNED_NOTE + "\n"


TUNED_NOTE = ("Tuned BM25 = BM25 with k1 and b chosen by the same cross-validation (same folds, same metric) as q; "
              "joint = b and q chosen together at the sweep's k1; BM25 (k1 1.2, b 0.75) = the engines' default "
              "(Lucene's BM25Similarity(), Elasticsearch, OpenSearch, Solr); p = two-sided paired randomization "
              "test against tuned BM25. A q-log gain is claimed over tuned BM25 only where that p is below 0.05.")


def _missing(x: object) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def format_markdown(table: pd.DataFrame, budget: str = "8192") -> str:
    """The markdown table: cross-validated first, the oracle beside it, then the label-free q."""
    lines = []
    for r in table.to_dict("records"):
        par = r["parameter"]
        cv_gain = "n/a" if _missing(r["cv_gain"]) else f"{r['cv_gain']:+.4f} ({cell(r['cv_rel_gain'], '+.1%')})"
        auto = "n/a" if _missing(r["auto"]) else f"{par} = {r['auto']:g}"
        at_auto = "n/a" if _missing(r["at_auto"]) else f"{r['at_auto']:.4f} ({cell(r['auto_rel_gain'], '+.1%')})"
        values = "n/a" if _missing(r["cv_values"]) else f"{par} = {r['cv_values']}"
        at_aq = ("n/a" if _missing(r["at_auto_query"])
                 else f"{r['at_auto_query']:.4f} ({cell(r['auto_query_rel_gain'], '+.1%')}, {format_p(r['auto_query_p'], r['resamples'])})")
        recall = " → ".join(cell(r[f"recall@{budget}_{side}"], ".1%") for side in ("bm25", "best"))
        lines.append([r["corpus"], f"{r['docs']:,}", f"{r['queries']:,}", f"{r['bm25']:.4f}", values, cell(r["cv"]), cv_gain,
                      format_p(r["cv_p"], r["resamples"]), f"{par} = {r['best']:g}", f"{r['at_best']:.4f}",
                      f"{r['gain']:+.4f} ({cell(r['rel_gain'], '+.1%')})", format_p(r["p"], r["resamples"]), auto, at_auto,
                      at_aq, cell(r["at_per_query_oracle"]), recall])
    return markdown_table(lines, ["corpus", "docs", "queries", "BM25", "CV: value(s) chosen", "CV", "CV gain", "CV p",
                                  "oracle", "at oracle", "oracle gain", "oracle p", "auto", "at auto", "at auto-query",
                                  "per-query oracle", f"Recall@{budget_label(budget)} BM25 → oracle"],
                          "lrrrlrlllrllrllrl")


NOTE = ("CV = k-fold cross-validation over queries (each query scored at the value chosen on the other folds; "
        "the honest estimate); oracle = the best grid value on all queries (optimistic); p = two-sided paired "
        "randomization test against BM25; auto = the label-free q (--q auto); auto-query = each query at its own "
        "label-free q (--q auto-query); per-query oracle = each query at its own best grid value (the ceiling "
        "of any per-query choice).")
