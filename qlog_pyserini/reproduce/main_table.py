"""The main stage of ``reproduce``: every corpus swept for both odds forms (``main.md`` / ``.csv``, ``ndcg_vs_q.png``)."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import pandas as pd

from qlog_pyserini.eval.report import cell, markdown_table
from qlog_pyserini.eval.significance import format_p
from qlog_pyserini.reproduce.cache import Config, PreparedCorpus
from qlog_pyserini.reproduce.report import footer, mode, write_csv
from qlog_pyserini.reproduce.sweeps import sweep
from qlog_pyserini.system.outputs import atomic_output


def main_rows(corpora: Sequence[PreparedCorpus], cfg: Config) -> pd.DataFrame:
    """The per-corpus, per-form table: BM25, cross-validated q, oracle q, label-free q."""
    rows = []
    for corpus in corpora:
        for form in cfg.forms:
            s = sweep(corpus, cfg, form)
            c, cv, auto = s["comparison"], s["cv"], s["auto"]
            rows.append({
                "corpus": corpus.name, "kind": corpus.kind, "language": corpus.language, "idf_form": form,
                "docs": s["docs"], "queries": s["judged_queries"], "bm25": s["baseline_score"],
                "cv": cv["score"], "cv_gain": cv["comparison"]["diff"], "cv_rel_gain": cv["comparison"]["rel_diff"],
                "cv_p": cv["comparison"]["p_randomization"], "cv_resamples": cv["comparison"]["resamples"],
                "cv_q": "/".join(f"{v:g}" for v in sorted(set(cv["chosen"]))),
                "q_opt": s["oracle_value"], "at_q_opt": s["oracle_score"],
                "gain": c["diff"], "rel_gain": c["rel_diff"], "p": c["p_randomization"], "p_ttest": c["p_ttest"],
                "reversal_share": c["p_bootstrap"], "reversals": c["reversals"], "resamples": c["resamples"],
                "q_auto": auto["q"], "at_q_auto": auto["score"], "auto_rel": auto["comparison"]["rel_diff"],
                "recall8k_bm25": s["recall_at_tokens"]["bm25"]["8192"],
                "recall8k_qlog": s["recall_at_tokens"]["oracle"]["8192"], "sweep_seconds": s["seconds"],
            })
    return pd.DataFrame(rows)


def main_markdown(table: pd.DataFrame) -> str:
    rows = [[r["corpus"], r["idf_form"], f"{r['docs']:,}", f"{r['queries']:,}", f"{r['bm25']:.4f}", r["cv_q"],
             f"{r['cv']:.4f}", f"{r['cv_gain']:+.4f} ({cell(r['cv_rel_gain'], '+.1%')})",
             format_p(r["cv_p"], r["cv_resamples"]), f"{r['q_opt']:g}", f"{r['at_q_opt']:.4f}",
             f"{r['gain']:+.4f} ({cell(r['rel_gain'], '+.1%')})", format_p(r["p"], r["resamples"]),
             f"{r['q_auto']:.2f}", f"{r['at_q_auto']:.4f} ({cell(r['auto_rel'], '+.1%')})",
             f"{r['recall8k_bm25']:.1%} → {r['recall8k_qlog']:.1%}"] for r in table.to_dict("records")]
    return markdown_table(rows, ["corpus", "form", "docs", "queries", "BM25", "CV q", "CV NDCG@10", "CV gain", "CV p",
                                 "q_opt", "at q_opt", "oracle gain", "oracle p", "q_auto", "at q_auto",
                                 "Recall@8K BM25 → q-log"], "llrrrlrrlrrrlrrl")


def plot_curves(corpora: Sequence[PreparedCorpus], cfg: Config, path: Path) -> None:
    """NDCG@10 against q, one line per corpus (lucene form)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    for corpus in corpora:
        s = sweep(corpus, cfg, "lucene")
        qs = sorted(float(q) for q in s["scores"])
        ax.plot(qs, [s["scores"][f"{q:g}"] for q in qs], marker="o", ms=2.5, label=corpus.name)
    ax.axvline(1.0, color="grey", ls="--", lw=1)
    ax.set_xlabel("q (q = 1 is BM25)")
    ax.set_ylabel("NDCG@10")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    with atomic_output(path, "wb") as f:
        fig.savefig(f, format="png")
    plt.close(fig)


def run(cfg: Config, corpora: Sequence[PreparedCorpus]) -> pd.DataFrame:
    """Write the main table and the NDCG@10-against-q plot to ``--out``; returns the table."""
    main = main_rows(corpora, cfg)
    with atomic_output(cfg.out / "main.md") as f:
        f.write(f"# Main table ({mode(cfg)})\n\nNDCG@10 (trec_eval), Anserini default English analyzer, k1 = 0.9, "
                f"b = 0.4; q_opt = best q on the grid {cfg.grid}; bootstrap over queries, {cfg.resamples} resamples; "
                f"CV = 5-fold cross-validated q over queries (each query scored at the q chosen on the other folds; "
                f"CV q lists the q's the folds chose); p = two-sided paired randomization test against BM25; "
                f"q_auto = the label-free rule (qlog_pyserini.predict defaults).\n\n" + main_markdown(main) + footer(cfg))
    write_csv(main, cfg.out / "main.csv")
    plot_curves(corpora, cfg, cfg.out / "ndcg_vs_q.png")
    return main
