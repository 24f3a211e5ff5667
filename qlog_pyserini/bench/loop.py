"""What a Python caller pays, next to Lucene's own top-k, measured side by side in one run.

On the index and queries :func:`qlog_pyserini.bench.run.run_benchmark` has open, alternating in
every round (A B C ... then reversed in the next), wall time for the whole query list of:

* ``lucene``: Lucene's ``IndexSearcher.search(query, k)`` inside the JVM, queries parsed
  beforehand, q-log BM25 at ``q`` (``io.qlog.bench.SearchBenchmark``, the limit);
* ``batch``: :meth:`QLogSearcher.batch_search <qlog_pyserini.lucene.searcher.QLogSearcher.batch_search>`
  from Python (query analysis, Anserini's order, the arrays across the bridge);
* ``batch, q per query``: the same with each query at its own label-free q (``--q auto-query``: its
  terms' document frequencies read, its q chosen, one pass at mixed q values);
* ``run``: the search verb's loop without the JVM start, every query searched and its TREC run
  written (:func:`qlog_pyserini.lucene.batch.write_topics_run`);
* ``sweep point``: one grid point of a sweep as the sweep verb measures it by default
  (:class:`qlog_pyserini.sweep.measure.PointScorer`: the pass, its metrics and Recall@8K-tokens from the
  arrays, no run written; the token counts, kept once per sweep, are warm after the first round), at
  the deepest k; without qrels, the pass and its run written;
* ``sweep grid, 10 points``: what the sweep verb runs instead of a pass per point, at the deepest k
  with qrels: q = 0.1, 0.2, ..., 1.0 in one sweep over the topics
  (:meth:`qlog_pyserini.sweep.measure.PointScorer.score_grid`: each query's postings read once for all
  ten, every point measured), and ``sweep grid, per point``, its time over ten;
* ``bm25s``: bm25s's numba backend on the same documents (their stored text) and queries, when
  bm25s is installed (the ``bench`` extra); its index is built once, untimed.

Each ratio is per round (side / lucene of the same round), reported as the median over rounds.
"""

from __future__ import annotations

import os
import resource
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from qlog_pyserini.formats.trec import read_qrels
from qlog_pyserini.lucene.batch import write_topics_run
from qlog_pyserini.lucene.searcher import QLogSearcher


def measure_loop(bench: Any, index_path: Path, topics: dict[str, str], ks: Sequence[int], threads: int, q: float,
                 k1: float, b: float, repeats: int, qrels: str | os.PathLike | None, model: Any,
                 say: Callable[[str], None]) -> dict[str, Any]:
    """The rows of the "Python path" table: per k, each side's median seconds and ratio to ``lucene``.

    ``topics`` are the queries ``bench`` holds, in its order; ``model`` the q-log similarity at ``q``.
    """
    qids, texts = list(topics), list(topics.values())
    searcher = QLogSearcher(index_path, k1=k1, b=b, q=q)
    bm25s_side = _bm25s(searcher, texts, k1, b, threads, say)
    q_of = _auto_query_q(searcher, index_path)
    scorer = None
    if qrels is not None:
        from qlog_pyserini.eval.budget import DEFAULT_BUDGETS
        from qlog_pyserini.eval.trec_eval import DEFAULT_METRICS
        from qlog_pyserini.sweep.measure import PointScorer

        scorer = PointScorer(searcher, topics, read_qrels(qrels), qrels, DEFAULT_METRICS, max(ks), threads)
    rows = []
    with tempfile.TemporaryDirectory(prefix="qlog-bench-") as tmp:
        run_path = Path(tmp) / "run.txt"

        def write_run(k: int) -> Any:
            return write_topics_run(searcher, topics, run_path, "bench", hits=k, threads=threads, progress=False,
                                    batch_size=512)
        for k in ks:
            sides: dict[str, Callable[[], Any]] = {
                "lucene": lambda k=k: bench.run(model, k, threads, "top-k"),
                "batch": lambda k=k: searcher.batch_search(texts, qids, k=k, threads=threads),
                "batch, q per query": lambda k=k: searcher.batch_search(texts, qids, k=k, threads=threads,
                                                                        q=q_of(texts)),
                "run": lambda k=k: write_run(k),
            }
            if k == max(ks):
                sides["sweep point"] = ((lambda: scorer.score_pass(budgets=DEFAULT_BUDGETS)) if scorer is not None
                                        else (lambda k=k: write_run(k)))
                if scorer is not None:
                    grid = [searcher.make_similarity("qlog", q=v / GRID_POINTS) for v in range(1, GRID_POINTS + 1)]
                    sides[GRID_SIDE] = lambda grid=grid: scorer.score_grid(grid, budgets=DEFAULT_BUDGETS)
            if bm25s_side is not None:
                sides["bm25s"] = lambda k=k: bm25s_side(k)
            row = _rounds(sides, k, threads, repeats, say)
            if GRID_SIDE in row["sides"]:
                row["sides"][GRID_SIDE + ", per point"] = _per_point(row["sides"][GRID_SIDE], row["sides"]["lucene"])
            rows.append(row)
    searcher.close()
    return {"q": q, "threads": threads, "queries": len(texts), "rows": rows, "evaluated": scorer is not None,
            "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            "bm25s": bm25s_side is not None}


GRID_POINTS = 10
GRID_SIDE = f"sweep grid, {GRID_POINTS} points"


def _per_point(grid: dict[str, Any], lucene: dict[str, Any]) -> dict[str, Any]:
    """The grid side's figures over its number of points (ratios per round, as every side's)."""
    values = [v / GRID_POINTS for v in grid["values_s"]]
    return {"median_s": float(np.median(values)), "values_s": values,
            "ratio": float(np.median(np.array(values) / np.array(lucene["values_s"])))}


def _rounds(sides: dict[str, Callable[[], None]], k: int, threads: int, repeats: int,
            say: Callable[[str], None]) -> dict[str, Any]:
    """One warm-up of every side, then ``repeats`` rounds, the order reversed every other round."""
    names = list(sides)
    for name in names:
        sides[name]()
    seconds: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeats):
        say(f"python path: round {r + 1}/{repeats}, k={k}, threads={threads}")
        for name in (names if r % 2 == 0 else names[::-1]):
            t0 = time.perf_counter()
            sides[name]()
            seconds[name].append(time.perf_counter() - t0)
    lucene = np.array(seconds["lucene"])
    return {"k": k, "threads": threads,
            "sides": {name: {"median_s": float(np.median(v)), "values_s": v,
                             "ratio": float(np.median(np.array(v) / lucene))} for name, v in seconds.items()}}


def _auto_query_q(searcher: QLogSearcher, index_path: Path) -> Callable[[list[str]], list[float]]:
    """``--q auto-query``'s choice of a q per query (the corpus rule's statistics read once, untimed)."""
    from qlog_pyserini.predict.per_query import AutoQueryQ
    from qlog_pyserini.predict.rule import RuleSettings, predict_with

    return AutoQueryQ(searcher, predict_with(index_path, RuleSettings()))


def _bm25s(searcher: QLogSearcher, texts: Sequence[str], k1: float, b: float, threads: int,
           say: Callable[[str], None]) -> Callable[[int], Any] | None:
    """bm25s (numba backend) over the index's stored documents, or None when bm25s or numba is absent."""
    try:
        import bm25s
        import numba  # noqa: F401  (the backend bm25s is timed with)
    except ImportError:
        return None
    say("bm25s: indexing the stored documents (untimed)")
    ids = searcher.docids.ids
    corpus = [searcher.doc_text(d) for d in ids.tolist()]
    model = bm25s.BM25(k1=k1, b=b, method="lucene", backend="numba")
    model.index(bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False)
    query_tokens = bm25s.tokenize(list(texts), stopwords="en", show_progress=False)

    def retrieve(k: int) -> Any:
        return model.retrieve(query_tokens, k=min(k, len(corpus)), n_threads=threads, backend_selection="numba",
                              show_progress=False)
    return retrieve
