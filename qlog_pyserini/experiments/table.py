"""Gather sweeps into one results table (markdown and CSV).

    python -m qlog_pyserini.table --sweeps sweeps/csn-ruby sweeps/cosqa sweeps/cacm \\
        --output results/sweeps.md --csv results/sweeps.csv

One row per sweep folder (its ``summary.json``, written by :mod:`qlog_pyserini.sweep`): corpus,
documents, queries, BM25, best parameter, metric there, absolute and relative gain, bootstrap p
and sign reversals, and Recall@K-tokens of BM25 and of the best run. The markdown ends with the
command, date and versions of this table and of each sweep.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Sequence

import pandas as pd

from qlog_pyserini.errors import QLogError


def load_summary(folder: str | os.PathLike) -> dict:
    """A sweep folder's ``summary.json``, or a clear error."""
    path = Path(folder) / "summary.json"
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise QLogError(f"{str(folder)!r} is not a sweep folder (no summary.json)") from None
    except (OSError, ValueError) as e:
        raise QLogError(f"cannot read {path}: {e}") from None


def table_rows(summaries: Sequence[dict], budget: str = "8192") -> pd.DataFrame:
    """One row per sweep, the columns of the paper's main table."""
    rows = []
    for s in summaries:
        c, p = s["comparison"], s["parameter"]
        recall = s.get("recall_at_tokens", {})
        rows.append({
            "corpus": s["name"], "docs": s["docs"], "queries": s["judged_queries"], "metric": s["metric"],
            "idf_form": s.get("idf_form"), "bm25": s["baseline_score"], "parameter": p, "best": s["oracle_value"],
            "at_best": s["oracle_score"], "gain": c["diff"], "rel_gain": c["rel_diff"],
            "p_bootstrap": c["p_bootstrap"], "reversals": c["reversals"], "resamples": c["resamples"],
            f"recall@{budget}_bm25": recall.get("bm25", {}).get(budget),
            f"recall@{budget}_best": recall.get("oracle", {}).get(budget),
            "sweep_seconds": s.get("seconds"),
        })
    return pd.DataFrame(rows)


def _pct(x: float | None) -> str:
    return "n/a" if x is None or x != x else f"{x:.1%}"


def format_markdown(table: pd.DataFrame, budget: str = "8192") -> str:
    head = (f"| corpus | docs | queries | BM25 | best | at best | gain | bootstrap p (reversals) | "
            f"Recall@{int(budget) // 1024}K BM25 → best |\n|---|---:|---:|---:|---:|---:|---:|---|---|\n")
    lines = []
    for r in table.to_dict("records"):
        rel = "n/a" if r["rel_gain"] is None or r["rel_gain"] != r["rel_gain"] else f"{r['rel_gain']:+.1%}"
        p = (f"p <= 1/{r['resamples']}" if r["reversals"] == 0 else f"p = {r['p_bootstrap']:.4g}")
        lines.append(f"| {r['corpus']} | {r['docs']:,} | {r['queries']:,} | {r['bm25']:.4f} | {r['parameter']} = "
                     f"{r['best']:g} | {r['at_best']:.4f} | {r['gain']:+.4f} ({rel}) | {p} ({r['reversals']}) | "
                     f"{_pct(r[f'recall@{budget}_bm25'])} → {_pct(r[f'recall@{budget}_best'])} |\n")
    return head + "".join(lines)
