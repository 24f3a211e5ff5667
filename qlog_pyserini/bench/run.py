"""Query-time cost of q-log BM25 against Lucene's BM25, side by side on one open index.

    python -m qlog_pyserini.bench --index DIR --topics T [--k 10,1000] [--threads 1,N] [--repeats R]
                                  [--q 1,0.5,0.05] [--max-queries N] [--output results/bench.md]

One JVM, one open index, the same parsed queries. Every timed pass runs the whole query list inside
Java (``io.qlog.bench.SearchBenchmark``), timing each query with ``System.nanoTime``; Python only
starts passes and summarizes them. The protocol, per search configuration (path, k, threads):

* warm-up: ``--warmup`` passes of every similarity, not recorded;
* ``--repeats`` rounds of alternating blocks: for each q, one Lucene ``BM25Similarity(k1, b)`` pass (A)
  and one ``QLogBM25Similarity(k1, b, q)`` pass (B) back to back, A B in even rounds and B A in odd
  rounds (counterbalanced). Each pair gives a throughput ratio QPS(B) / QPS(A) = wall(A) / wall(B)
  and a CPU-time ratio cpu(A) / cpu(B) (search threads only; steadier on a shared machine);
  a ratio of 1 means q-log costs nothing.

It also records the pruning evidence (Lucene's total-hits relation and the documents actually scored
at k = 10, BM25 against q-log), checks that pruned top-k equals exhaustive scoring on a sample of
queries, and times a 20-point q sweep (one search pass per point, same open index).

:func:`run_benchmark` returns everything as a dict; :func:`format_markdown` renders it; the CLI
prints the markdown and writes it to ``--output``.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from qlog_pyserini.bench.evaluate import Pass, label, latency_rows, path_ratio_rows, ratio_rows
from qlog_pyserini.errors import QLogError
from qlog_pyserini.system.provenance import jvm_versions, load_average, machine
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1, check_q
from qlog_pyserini.build.jar import bench_jar
from qlog_pyserini.jvm.bridge import is_java_exception, jar_class, java_error, java_list
from qlog_pyserini.search.searcher import check_index_dir
from qlog_pyserini.search.similarities import make_similarity

BENCH_CLASS = "io.qlog.bench.SearchBenchmark"
PATHS = ("top-k", "anserini-sort", "anserini-order", "term-at-a-time", "routed")
DEFAULT_PATHS = PATHS[:3]
DEFAULT_QS = (1.0, 0.5, 0.05)
SWEEP_POINTS = 20
PRUNING_K = 10
LUCENE_THRESHOLD = 1000  # IndexSearcher.search(query, k) counts hits exactly up to here before it prunes
PATH_NOTES = {
    "top-k": "Lucene's plain `IndexSearcher.search(query, k)` (TopScoreDocCollector, block-max WAND/MaxScore pruning)",
    "anserini-sort": "Anserini's `SimpleSearcher` call, `search(query, k, Sort(score, id), true)` "
                     "(TopFieldCollector, ties by docid; what Pyserini's searcher runs)",
    "anserini-order": "the same order in one pruned top-k pass (`AnseriniTopK`: ties by the place of their docid "
                      "in id order; what `qlog_pyserini.search` runs below k = 100)",
    "term-at-a-time": "the same order and scores, every bag-of-words query scored term at a time "
                      "(`TermAtATimeTopK`) at any k and any number of postings; other queries as anserini-order",
    "routed": "what `qlog_pyserini.search` runs at every k: term at a time where k >= 100 and the query's terms "
              "hold at most 64 postings per hit wanted, else anserini-order",
}


# ---------------------------------------------------------------------------- the measurement


def search_benchmark() -> Any:
    """The Java class ``SearchBenchmark`` (:data:`BENCH_CLASS`), from the bench jar, which is built on first use."""
    return jar_class(bench_jar(), BENCH_CLASS)


def run_benchmark(index_dir: str | os.PathLike, topics: str | os.PathLike, ks: Sequence[int] = (10, 1000),
                  threads: Sequence[int] | None = None, repeats: int = 5, qs: Sequence[float] = DEFAULT_QS,
                  max_queries: int | None = None, paths: Sequence[str] = DEFAULT_PATHS, warmup: int = 2,
                  sweep_points: int = SWEEP_POINTS, check_queries: int = 200, seed: int = 42,
                  k1: float = DEFAULT_K1, b: float = DEFAULT_B, python_q: float | None = 0.5,
                  qrels: str | os.PathLike | None = None,
                  progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the whole benchmark on one open index and return its figures as plain Python data.

    Args:
        index_dir: a Lucene index built by Anserini/Pyserini (``contents`` field, Anserini's analyzer).
        topics: queries in any format :func:`qlog_pyserini.formats.topics.read_topics` reads.
        ks: result depths to time.
        threads: search-thread counts to time (default: 1 and all cores).
        repeats: A-B rounds per configuration and q (the ratios' spread is over these).
        qs: q values of the q-log passes (B); BM25 (A) is Lucene's own ``BM25Similarity``.
        max_queries: use only the first N topics.
        paths: search calls to time, among :data:`PATHS` (:data:`PATH_NOTES` says what each runs); each
            path after the first is also compared with the first, round by round (``path_ratios``)
        warmup: untimed passes of every similarity per configuration before the timed rounds.
        sweep_points: q values of the sweep, evenly spaced on (0, 1]: 0.05, 0.10, ..., 1.0 for 20.
        check_queries: size of the seeded query sample of the pruned-equals-exhaustive check.
        seed: seed of that sample.
        k1, b: BM25 parameters of both sides.
        python_q: q of the Python-path rounds (:mod:`qlog_pyserini.bench.loop`: the batch call, a
            written run, a sweep point and bm25s next to Lucene's top-k); None skips them.
        qrels: judgments of the topics, so the sweep point is evaluated as a sweep evaluates it.
        progress: called with a one-line status before each stage (e.g. ``print`` to stderr).

    Returns:
        a dict with ``machine``, ``versions``, ``index``, ``queries``, ``settings``, ``latency``,
        ``ratios``, ``pruning``, ``check``, ``check_passed``, ``sweep`` and ``python_path``
        (see :func:`qlog_pyserini.bench.report.format_markdown`).
    """
    say = progress or (lambda _msg: None)
    index_path = check_index_dir(index_dir)
    threads = list(threads) if threads else sorted({1, os.cpu_count() or 1})
    # Duplicates would time a configuration twice and misalign the A-B pairs.
    ks, threads = list(dict.fromkeys(int(k) for k in ks)), list(dict.fromkeys(int(t) for t in threads))
    qs, paths = list(dict.fromkeys(check_q(q) for q in qs)), list(dict.fromkeys(paths))
    _check_settings(ks, threads, repeats, paths, warmup, sweep_points, check_queries)
    chosen = _query_texts(topics, max_queries)
    texts = list(chosen.values())
    if python_q is not None:
        python_q = check_q(python_q)

    started = time.perf_counter()
    try:
        bench = search_benchmark().open(str(index_path), java_list(texts))
    except Exception as e:  # a corrupt index: one error line, not Lucene's stack
        if not is_java_exception(e):
            raise
        raise QLogError(f"cannot open index {str(index_path)!r}: {java_error(e)}") from None
    try:
        bm25 = make_similarity("bm25", k1, b)
        qlog = {q: _qlog(k1, b, q) for q in qs}
        result = _describe(bench, index_path, topics, texts, bm25, qlog)
        result["settings"].update(ks=ks, threads=threads, repeats=repeats, qs=qs, paths=paths, warmup=warmup,
                                  k1=k1, b=b, seed=seed, check_queries=check_queries, sweep_points=sweep_points)
        configs = [(path, k, t) for path in paths for k in ks for t in threads]
        passes = _timed_rounds(bench, bm25, qlog, configs, repeats, warmup, say)
        result["latency"] = latency_rows(passes, len(texts))
        result["ratios"] = ratio_rows(passes, configs, qs)
        result["path_ratios"] = path_ratio_rows(passes, paths)
        _measure_pruning(result, bench, bm25, qlog, say)
        # The sweep runs what a real sweep runs: Anserini's search at the deepest k on all threads.
        sweep_path = "anserini-sort" if "anserini-sort" in paths else paths[0]
        say(f"{sweep_points}-point q sweep: {sweep_path} k={max(ks)} threads={max(threads)}")
        result["sweep"] = _sweep(bench, k1, b, sweep_points, max(ks), max(threads), sweep_path)
        result["sweep"]["queries"] = len(texts)
        if python_q is not None:
            from qlog_pyserini.bench.loop import measure_loop

            result["python_path"] = measure_loop(bench, index_path, chosen, ks, max(threads), python_q, k1, b,
                                                 repeats, qrels, _qlog(k1, b, python_q), say)
    finally:
        bench.close()
    result["elapsed_seconds"] = time.perf_counter() - started
    result["load_average_after"] = load_average()
    return result


def _query_texts(topics: str | os.PathLike, max_queries: int | None) -> dict[str, str]:
    """The topics (``{qid: text}``), the first ``max_queries`` of them when given."""
    texts = read_topics(topics)
    if max_queries is not None:
        if max_queries < 1:
            raise QLogError(f"--max-queries must be at least 1, got {max_queries}")
        texts = dict(list(texts.items())[:max_queries])
    if not texts:
        raise QLogError(f"topics file {str(topics)!r} holds no queries")
    return texts


def _describe(bench: Any, index_path: Path, topics: str | os.PathLike, texts: list[str], bm25: Any,
              qlog: dict[float, Any]) -> dict[str, Any]:
    """What was measured on what: machine, versions, index, queries and the similarities compared."""
    term_counts = list(bench.queryTermCounts())
    return {
        "machine": machine(),
        "versions": jvm_versions(),
        "command": None,
        "index": {"path": str(index_path), "documents": int(bench.numDocs()), "size_bytes": _folder_bytes(index_path)},
        "queries": {"topics": str(topics), "count": len(texts),
                    "without_terms": sum(1 for c in term_counts if c == 0),
                    "mean_terms": float(np.mean(term_counts))},
        "settings": {"bm25": str(bm25.toString()), "qlog": {q: str(s.toString()) for q, s in qlog.items()}},
    }


def _measure_pruning(result: dict[str, Any], bench: Any, bm25: Any, qlog: dict[float, Any],
                     say: Callable[[str], None]) -> None:
    """Pruning evidence at k = 10, and pruned top-k against exhaustive scoring on a seeded query sample."""
    st, n = result["settings"], result["queries"]["count"]
    say(f"pruning at k={PRUNING_K}")
    result["pruning"] = _pruning_rows(bench, bm25, qlog, st["paths"])
    say(f"pruned top-k vs exhaustive scoring on {min(st['check_queries'], n)} queries")
    sample = sorted(random.Random(st["seed"]).sample(range(n), min(st["check_queries"], n)))
    result["check"] = _check_rows(bench, bm25, qlog, sorted({PRUNING_K, *st["ks"]}), sample)
    result["check_passed"] = all(row["mismatches"] == 0 for row in result["check"])



def _timed_rounds(bench: Any, bm25: Any, qlog: dict[float, Any], configs: list[tuple[str, int, int]],
                  repeats: int, warmup: int, say: Callable[[str], None]) -> dict[tuple, list[Pass]]:
    """Warm-up, then the A-B rounds; ``{(path, k, threads, kind, q): [pass, ...]}`` in run order."""
    for path, k, t in configs:
        say(f"warm-up: {path} k={k} threads={t}")
        for _ in range(warmup):
            for sim in (bm25, *qlog.values()):
                bench.run(sim, k, t, path)
    passes: dict[tuple, list[Pass]] = {}
    for r in range(repeats):
        for path, k, t in configs:
            say(f"round {r + 1}/{repeats}: {path} k={k} threads={t}")
            for q, sim_b in qlog.items():
                # A and B back to back, so slow drift (other load, heat) hits both sides of a pair alike;
                # B goes first in odd rounds, so any cost of being first or second cancels over rounds.
                pair = [(("bm25", None), bm25), (("qlog", q), sim_b)]
                for key, sim in (pair if r % 2 == 0 else pair[::-1]):
                    p = bench.run(sim, k, t, path)
                    passes.setdefault((path, k, t, *key), []).append(
                        Pass(list(p.latencyNanos()), int(p.wallNanos()), int(p.cpuNanos())))
    return passes


def _sweep(bench: Any, k1: float, b: float, points: int, k: int, threads: int, path: str) -> dict[str, Any]:
    """Time one search pass per q = 1/points, 2/points, ..., 1, all on the already open index."""
    qs = [round((i + 1) / points, 6) for i in range(points)]
    sims = java_list(_qlog(k1, b, q) for q in qs)
    t0 = time.perf_counter()
    walls = list(bench.sweep(sims, k, threads, path))
    outer = time.perf_counter() - t0
    return {"qs": qs, "path": path, "k": k, "threads": threads, "seconds_per_point": [w / 1e9 for w in walls],
            "seconds_total": sum(walls) / 1e9, "seconds_total_from_python": outer}


def _check_settings(ks: list[int], threads: list[int], repeats: int, paths: list[str], warmup: int,
                    sweep_points: int, check_queries: int) -> None:
    for name, values in (("--k", ks), ("--threads", threads)):
        if not values or any(v < 1 for v in values):
            raise QLogError(f"{name} values must be integers >= 1, got {values}")
    for name, value, low in (("--repeats", repeats, 1), ("--warmup", warmup, 0),
                             ("--sweep-points", sweep_points, 1), ("--check-queries", check_queries, 1)):
        if value < low:
            raise QLogError(f"{name} must be at least {low}, got {value}")
    bad = [p for p in paths if p not in PATHS]
    if bad or not paths:
        raise QLogError(f"--paths must be among {', '.join(PATHS)}, got {paths}")


def _qlog(k1: float, b: float, q: float) -> Any:
    return make_similarity("qlog", k1, b, q=q, idf_form="lucene")



def _pruning_rows(bench: Any, bm25: Any, qlog: dict[float, Any], paths: list[str]) -> list[dict[str, Any]]:
    """At k = 10: total-hits relation and documents collected, per similarity, path and total-hits threshold."""
    settings = [("top-k", PRUNING_K), ("top-k", LUCENE_THRESHOLD)]
    if "anserini-sort" in paths:
        settings.append(("anserini-sort", LUCENE_THRESHOLD))
    rows = []
    for path, threshold in settings:
        for kind, q, sim in (("bm25", None, bm25), *(("qlog", q, s) for q, s in qlog.items())):
            p = bench.pruning(sim, PRUNING_K, threshold, path)
            matches = np.asarray(list(p.matches()), dtype=float)
            collected = np.asarray(list(p.collected()), dtype=float)
            exact = list(p.totalHitsExact())
            rows.append({"similarity": label(kind, q), "q": q, "path": path, "k": PRUNING_K,
                         "threshold": threshold, "queries": len(exact),
                         "pruned_queries": sum(1 for e in exact if not e),
                         "matches_mean": float(matches.mean()), "collected_mean": float(collected.mean()),
                         "collected_fraction": float(collected.sum() / matches.sum()) if matches.sum() else 0.0})
    return rows


def _check_rows(bench: Any, bm25: Any, qlog: dict[float, Any], ks: list[int], sample: list[int]) -> list[dict[str, Any]]:
    """Pruned top-k (total-hits threshold = k, the most pruning) against exhaustive scoring, per similarity and k."""
    rows = []
    for k in ks:
        for kind, q, sim in (("bm25", None, bm25), *(("qlog", q, s) for q, s in qlog.items())):
            c = bench.exhaustiveCheck(sim, k, k, sample)
            rows.append({"similarity": label(kind, q), "q": q, "k": k, "threshold": k,
                         "checked": int(c.checked()), "mismatches": int(c.mismatches()),
                         "first_mismatch": c.firstMismatch(), "passed": bool(c.passed())})
    return rows


def _folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


