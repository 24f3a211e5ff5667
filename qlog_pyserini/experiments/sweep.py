"""Sweep q (or another model's parameter) on one open index: a run and metrics per point, the oracle.

    python -m qlog_pyserini.sweep --index DIR --topics T --qrels Q \\
        --q-grid 0.05,0.1,...,1.0,1.25,1.5 --out sweeps/csn-ruby

One JVM and one open index: each grid point only installs a new similarity and makes one search
pass. The oracle is the grid point with the best mean metric (ties go to the point closest to the
BM25-equivalent value, so a flat curve reports no change). The oracle is compared with BM25 by
:func:`qlog_pyserini.compare.compare_runs` (paired bootstrap, randomization test, t-test).

Written to ``--out``: ``runs/`` (one TREC run per point), ``sweep.csv`` (metrics per point),
``per_query.csv`` (the sweep metric per query and point), ``summary.json`` (everything a table
needs), ``comparison.md`` and ``sweep.png`` (metric against the parameter, BM25 as a reference
line, the oracle marked).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Sequence

import pandas as pd
from tqdm import tqdm

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.budget import recall_at_budgets, recall_at_token_budgets
from qlog_pyserini.eval.comparison import compare_runs, format_markdown
from qlog_pyserini.eval.trec_eval import DEFAULT_METRICS, trec_eval
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.formats.trec import atomic_output, read_qrels, write_run
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1, check_form
from qlog_pyserini.safety import check_output_dir, publish_dir, staging_dir
from qlog_pyserini.search.batch import search_topics
from qlog_pyserini.search.searcher import QLogSearcher, check_index_dir
from qlog_pyserini.search.similarities import model

DEFAULT_GRID = "0.05,0.1,...,1.0,1.25,1.5"
BM25_EQUIVALENT = {"q": 1.0, "gamma": 1.0}  # the parameter value at which the model is BM25


def parse_grid(text: str) -> list[float]:
    """``"0.05,0.1,...,0.3,0.5"`` -> [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.5].

    ``...`` continues the arithmetic progression of the two values before it up to the value after
    it. Values are rounded to 10 decimals so a progression lands exactly on its end points.
    """
    parts = [p.strip() for p in text.split(",") if p.strip()]
    values: list[float] = []
    i = 0
    while i < len(parts):
        if parts[i] == "...":
            if len(values) < 2 or i + 1 >= len(parts):
                raise QLogError(f"grid {text!r}: '...' needs two values before it and one after")
            step, end = values[-1] - values[-2], _number(parts[i + 1], text)
            if step <= 0 or end < values[-1]:
                raise QLogError(f"grid {text!r}: '...' needs an increasing progression up to its end")
            while values[-1] + step < end - 1e-9:
                values.append(round(values[-1] + step, 10))
            i += 1
            continue
        values.append(_number(parts[i], text))
        i += 1
    if not values:
        raise QLogError("empty grid")
    return sorted(set(values))


def _number(token: str, text: str) -> float:
    try:
        value = float(token)
    except ValueError:
        raise QLogError(f"grid {text!r}: {token!r} is not a number") from None
    if not math.isfinite(value):
        raise QLogError(f"grid {text!r}: {token!r} is not finite")
    return round(value, 10)


def point_label(parameter: str, value: float) -> str:
    return f"{parameter}{value:g}"


def choose_oracle(scores: dict[float, float], reference: float | None) -> float:
    """The grid value with the highest score; ties go to the value closest to ``reference``."""
    best = max(scores.values())
    tied = [v for v, s in scores.items() if s >= best - 1e-12]
    if reference is None:
        return tied[0]
    return min(tied, key=lambda v: (abs(v - reference), v))


def run_sweep(index_dir: str | os.PathLike, topics_path: str | os.PathLike, qrels_path: str | os.PathLike,
              out_dir: str | os.PathLike, grid: Sequence[float], similarity: str = "qlog",
              metric: str = "ndcg_cut.10", idf_form: str = "lucene", k1: float = DEFAULT_K1,
              b: float = DEFAULT_B, hits: int = 1000, threads: int = 1, budgets: Sequence[int] = (8192,),
              resamples: int = 10000, seed: int = 0, name: str | None = None, progress: bool = True,
              overwrite: bool = False, extra: dict[str, Any] | None = None,
              prediction: Any = None) -> dict[str, Any]:
    """Run the sweep and write its folder (atomically: built beside ``out_dir``, renamed at the end).

    ``prediction`` (a :class:`qlog_pyserini.predict.Prediction`, from ``--q-grid ...,auto``) adds the
    label-free q to the grid and records it, with its score, as ``q_pred`` in the summary.
    """
    started = time.perf_counter()
    spec = model(similarity)
    if spec.sweep_parameter is None:
        raise QLogError(f"similarity {similarity!r} has no parameter to sweep")
    parameter = spec.sweep_parameter
    idf_form = check_form(idf_form)
    metrics = list(dict.fromkeys([metric, *DEFAULT_METRICS]))
    index_dir = check_index_dir(index_dir)
    topics = read_topics(topics_path)
    qrels = read_qrels(qrels_path)
    judged = [q for q in topics if q in qrels]
    if not judged:
        raise QLogError(f"no query of {topics_path} has judgments in {qrels_path}")
    # Only ever replace a sweep folder this tool wrote, never '.' or a parent of an input (safety).
    out = check_output_dir(out_dir, "sweep", inputs=[index_dir, topics_path, qrels_path], overwrite=overwrite)

    reference = BM25_EQUIVALENT.get(parameter)
    grid = sorted(set(grid) | ({reference} if reference is not None else set())
                  | ({round(prediction.q, 10)} if prediction is not None else set()))
    searcher = QLogSearcher(index_dir, k1=k1, b=b, idf_form=idf_form)
    stage = staging_dir(out, "sweep")
    try:
        (stage / "runs").mkdir()
        runs: dict[float, Path] = {}
        rows, per_query = [], {}
        for value in tqdm(grid, desc=f"sweep {parameter}", unit="pt", file=sys.stderr, disable=not progress):
            searcher.set_similarity(similarity, **{parameter: value, "idf_form": idf_form, "k1": k1, "b": b})
            results = search_topics(searcher, topics, hits=hits, threads=threads, progress=False)
            run_path = stage / "runs" / f"run.{point_label(parameter, value)}.txt"
            write_run(run_path, results, tag=f"{similarity}-{point_label(parameter, value)}", qids=list(topics))
            runs[value] = run_path
            ev = trec_eval(qrels_path, run_path, metrics=metrics, per_query=True, complete=True)
            rows.append({parameter: value, **ev.aggregate})
            per_query[value] = ev.per_query[metric]
        table = pd.DataFrame(rows)
        scores = {v: float(s) for v, s in zip(table[parameter], table[metric])}
        oracle = choose_oracle(scores, reference)

        # BM25 itself (identical to the reference point for qlog and idf-gamma; a separate run otherwise).
        if reference is not None:
            bm25_run = runs[reference]
        else:
            searcher.set_similarity("bm25", k1=k1, b=b)
            bm25_run = stage / "runs" / "run.bm25.txt"
            write_run(bm25_run, search_topics(searcher, topics, hits=hits, threads=threads, progress=False),
                      tag="bm25", qids=list(topics))
        bm25_score = trec_eval(qrels_path, bm25_run, metrics=[metric], per_query=False).aggregate[metric]
        comparison = compare_runs(qrels_path, bm25_run, runs[oracle], metric=metric, resamples=resamples, seed=seed)

        budget_recall = _budget_recall(searcher, {"bm25": bm25_run, "oracle": runs[oracle]}, qrels, budgets)
        seconds = time.perf_counter() - started
        summary = {
            "name": name or index_dir.name, "index": str(index_dir.resolve()), "topics": str(Path(topics_path).resolve()),
            "qrels": str(Path(qrels_path).resolve()), "similarity": similarity, "parameter": parameter,
            "idf_form": idf_form, "k1": k1, "b": b, "metric": metric, "grid": grid,
            "scores": {f"{v:g}": s for v, s in scores.items()}, "baseline_value": reference,
            "baseline_score": bm25_score, "oracle_value": oracle, "oracle_score": scores[oracle],
            "comparison": asdict(comparison), "p_bootstrap_text": comparison.p_bootstrap_text(),
            "recall_at_tokens": budget_recall, "docs": searcher.num_docs, "queries": len(topics),
            "judged_queries": len(judged), "hits": hits, "seconds": round(seconds, 2),
            "similarity_string": searcher.similarity, **(extra or {}),
            **({"q_pred": {**asdict(prediction), "score": scores[round(prediction.q, 10)]}} if prediction else {}),
        }
        with atomic_output(stage / "sweep.csv") as f:
            table.to_csv(f, index=False)
        with atomic_output(stage / "per_query.csv") as f:
            pd.DataFrame({point_label(parameter, v): s for v, s in per_query.items()}).to_csv(f)
        with atomic_output(stage / "summary.json") as f:
            json.dump(summary, f, indent=2)
        with atomic_output(stage / "comparison.md") as f:
            f.write(format_markdown(comparison, metric, "bm25", f"{similarity} {parameter}={oracle:g}", seed=seed))
        plot_sweep(table, parameter, metric, bm25_score, oracle, stage / "sweep.png", title=summary["name"])
        publish_dir(stage, out, "sweep", overwrite=overwrite)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        searcher.close()
    return summary


def _budget_recall(searcher: QLogSearcher, runs: dict[str, Path], qrels: dict, budgets: Sequence[int]) -> dict:
    """Recall@K-tokens of each run, texts read from the index's stored documents (each once)."""
    from qlog_pyserini.formats.trec import read_run

    texts: dict[str, str] = {}

    def text(docid: str) -> str:
        if docid not in texts:
            texts[docid] = searcher.doc_text(docid)
        return texts[docid]

    out = {}
    for label, path in runs.items():
        table = recall_at_token_budgets(read_run(path), qrels, text, budgets=budgets)
        out[label] = {str(k): float(v) for k, v in recall_at_budgets(table).items()}
    return out


def plot_sweep(table: pd.DataFrame, parameter: str, metric: str, bm25_score: float, oracle: float,
               path: str | os.PathLike, title: str = "") -> None:
    """Metric against the swept parameter, BM25 as a dashed line, the oracle marked; PNG, atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4), dpi=120)
    ax.plot(table[parameter], table[metric], marker="o", ms=3, label="q-log BM25" if parameter == "q" else parameter)
    ax.axhline(bm25_score, color="grey", ls="--", lw=1, label=f"BM25 = {bm25_score:.4f}")
    best = float(table.loc[table[parameter] == oracle, metric].iloc[0])
    ax.scatter([oracle], [best], color="red", zorder=3, label=f"oracle {parameter} = {oracle:g}: {best:.4f}")
    ax.set_xlabel(parameter)
    ax.set_ylabel(metric)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    with atomic_output(path, "wb") as f:
        fig.savefig(f, format="png")
    plt.close(fig)
