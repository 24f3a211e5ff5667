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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from qlog_pyserini.errors import QLogError
from qlog_pyserini.system.provenance import jvm_versions, load_average, machine
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1, check_q
from qlog_pyserini.jvm.bridge import java_list, jclass
from qlog_pyserini.search.searcher import check_index_dir
from qlog_pyserini.search.similarities import make_similarity

BENCH_CLASS = "io.qlog.bench.SearchBenchmark"
PATHS = ("top-k", "anserini-sort")
DEFAULT_QS = (1.0, 0.5, 0.05)
SWEEP_POINTS = 20
PRUNING_K = 10
LUCENE_THRESHOLD = 1000  # IndexSearcher.search(query, k) counts hits exactly up to here before it prunes
PATH_NOTES = {
    "top-k": "Lucene's plain `IndexSearcher.search(query, k)` (TopScoreDocCollector, block-max WAND/MaxScore pruning)",
    "anserini-sort": "Anserini's `SimpleSearcher` call, `search(query, k, Sort(score, id), true)` "
                     "(TopFieldCollector, ties by docid; what `qlog_pyserini.search` runs)",
}


# ---------------------------------------------------------------------------- the measurement


def run_benchmark(index_dir: str | os.PathLike, topics: str | os.PathLike, ks: Sequence[int] = (10, 1000),
                  threads: Sequence[int] | None = None, repeats: int = 5, qs: Sequence[float] = DEFAULT_QS,
                  max_queries: int | None = None, paths: Sequence[str] = PATHS, warmup: int = 2,
                  sweep_points: int = SWEEP_POINTS, check_queries: int = 200, seed: int = 42,
                  k1: float = DEFAULT_K1, b: float = DEFAULT_B,
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
        paths: ``top-k`` (Lucene's plain search) and/or ``anserini-sort`` (Anserini's sorted search).
        warmup: untimed passes of every similarity per configuration before the timed rounds.
        sweep_points: q values of the sweep, evenly spaced on (0, 1]: 0.05, 0.10, ..., 1.0 for 20.
        check_queries: size of the seeded query sample of the pruned-equals-exhaustive check.
        seed: seed of that sample.
        k1, b: BM25 parameters of both sides.
        progress: called with a one-line status before each stage (e.g. ``print`` to stderr).

    Returns:
        a dict with ``machine``, ``versions``, ``index``, ``queries``, ``settings``, ``latency``,
        ``ratios``, ``pruning``, ``check``, ``check_passed`` and ``sweep`` (see :func:`format_markdown`).
    """
    say = progress or (lambda _msg: None)
    index_path = check_index_dir(index_dir)
    threads = list(threads) if threads else sorted({1, os.cpu_count() or 1})
    # Duplicates would time a configuration twice and misalign the A-B pairs.
    ks, threads = list(dict.fromkeys(int(k) for k in ks)), list(dict.fromkeys(int(t) for t in threads))
    qs, paths = list(dict.fromkeys(check_q(q) for q in qs)), list(dict.fromkeys(paths))
    _check_settings(ks, threads, repeats, paths, warmup, sweep_points, check_queries)
    texts = _query_texts(topics, max_queries)

    started = time.perf_counter()
    try:
        bench = jclass(BENCH_CLASS).open(str(index_path), java_list(texts))
    except Exception as e:  # a corrupt index: one error line, not Lucene's stack
        if type(e).__name__ != "JavaException":
            raise
        first = (str(getattr(e, "innermessage", None) or e).strip().splitlines() or [type(e).__name__])[0]
        raise QLogError(f"cannot open index {str(index_path)!r}: {first}") from None
    try:
        bm25 = make_similarity("bm25", k1, b)
        qlog = {q: _qlog(k1, b, q) for q in qs}
        result = _describe(bench, index_path, topics, texts, bm25, qlog)
        result["settings"].update(ks=ks, threads=threads, repeats=repeats, qs=qs, paths=paths, warmup=warmup,
                                  k1=k1, b=b, seed=seed, check_queries=check_queries, sweep_points=sweep_points)
        configs = [(path, k, t) for path in paths for k in ks for t in threads]
        passes = _timed_rounds(bench, bm25, qlog, configs, repeats, warmup, say)
        result["latency"] = _latency_rows(passes, len(texts))
        result["ratios"] = _ratio_rows(passes, configs, qs)
        _measure_pruning(result, bench, bm25, qlog, say)
        # The sweep runs what a real sweep runs: Anserini's search at the deepest k on all threads.
        sweep_path = "anserini-sort" if "anserini-sort" in paths else paths[0]
        say(f"{sweep_points}-point q sweep: {sweep_path} k={max(ks)} threads={max(threads)}")
        result["sweep"] = _sweep(bench, k1, b, sweep_points, max(ks), max(threads), sweep_path)
        result["sweep"]["queries"] = len(texts)
    finally:
        bench.close()
    result["elapsed_seconds"] = time.perf_counter() - started
    result["load_average_after"] = load_average()
    return result


def _query_texts(topics: str | os.PathLike, max_queries: int | None) -> list[str]:
    """The topics' texts, the first ``max_queries`` of them when given."""
    texts = list(read_topics(topics).values())
    if max_queries is not None:
        if max_queries < 1:
            raise QLogError(f"--max-queries must be at least 1, got {max_queries}")
        texts = texts[:max_queries]
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


@dataclass(frozen=True)
class _Pass:
    """One timed pass: per-query latencies, wall time and search-thread CPU time (-1 if unmeasured), in ns."""

    latency: list[int]
    wall: int
    cpu: int


def _timed_rounds(bench: Any, bm25: Any, qlog: dict[float, Any], configs: list[tuple[str, int, int]],
                  repeats: int, warmup: int, say: Callable[[str], None]) -> dict[tuple, list[_Pass]]:
    """Warm-up, then the A-B rounds; ``{(path, k, threads, kind, q): [pass, ...]}`` in run order."""
    for path, k, t in configs:
        say(f"warm-up: {path} k={k} threads={t}")
        for _ in range(warmup):
            for sim in (bm25, *qlog.values()):
                bench.run(sim, k, t, path)
    passes: dict[tuple, list[_Pass]] = {}
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
                        _Pass(list(p.latencyNanos()), int(p.wallNanos()), int(p.cpuNanos())))
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


def _label(kind: str, q: float | None) -> str:
    return "BM25" if kind == "bm25" else f"q-log q={q:g}"


def _spread(values: np.ndarray) -> dict[str, Any]:
    q1, q3 = np.percentile(values, [25, 75])
    return {"values": values.tolist(), "median": float(np.median(values)), "min": float(values.min()),
            "max": float(values.max()), "q1": float(q1), "q3": float(q3)}


def _latency_rows(passes: dict[tuple, list[_Pass]], n: int) -> list[dict[str, Any]]:
    """Per (path, k, threads, similarity): latency percentiles over all its timed passes, QPS and CPU per pass."""
    rows = []
    for (path, k, t, kind, q), runs in passes.items():
        lat_ms = np.concatenate([np.asarray(r.latency, dtype=float) for r in runs]) / 1e6
        qps = np.array([n / (r.wall / 1e9) for r in runs])
        cpu_ms = np.array([r.cpu / 1e6 / n for r in runs if r.cpu >= 0])
        p50, p95, p99 = np.percentile(lat_ms, [50, 95, 99])
        rows.append({"path": path, "k": k, "threads": t, "similarity": _label(kind, q), "q": q,
                     "passes": len(runs), "p50_ms": float(p50), "p95_ms": float(p95), "p99_ms": float(p99),
                     "mean_ms": float(lat_ms.mean()), "qps_median": float(np.median(qps)),
                     "qps_min": float(qps.min()), "qps_max": float(qps.max()),
                     "cpu_ms_per_query": float(np.median(cpu_ms)) if cpu_ms.size else None})
    # BM25's passes are pooled over every pair it took part in; list it first in each configuration.
    return sorted(rows, key=lambda r: (r["path"], r["k"], r["threads"], r["q"] is not None, -(r["q"] or 0)))


def _ratio_rows(passes: dict[tuple, list[_Pass]], configs: list[tuple[str, int, int]],
                qs: list[float]) -> list[dict[str, Any]]:
    """Per A-B pair: QPS ratio q-log / BM25 = wall(A) / wall(B), and CPU-time ratio cpu(A) / cpu(B);
    median, min-max and IQR over the repeats."""
    rows = []
    for path, k, t in configs:
        # A passes are stored in pair order: round r, q index i is A pass r * len(qs) + i.
        a_all = passes[(path, k, t, "bm25", None)]
        for i, q in enumerate(qs):
            a, b = a_all[i::len(qs)], passes[(path, k, t, "qlog", q)]
            wall = np.array([x.wall for x in a], dtype=float) / np.array([x.wall for x in b], dtype=float)
            row = {"path": path, "k": k, "threads": t, "q": q, "pairs": len(b), "qps": _spread(wall), "cpu": None}
            if all(x.cpu > 0 for x in (*a, *b)):
                row["cpu"] = _spread(np.array([x.cpu for x in a], dtype=float) / np.array([x.cpu for x in b], dtype=float))
            rows.append(row)
    return rows


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
            rows.append({"similarity": _label(kind, q), "q": q, "path": path, "k": PRUNING_K,
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
            rows.append({"similarity": _label(kind, q), "q": q, "k": k, "threshold": k,
                         "checked": int(c.checked()), "mismatches": int(c.mismatches()),
                         "first_mismatch": c.firstMismatch(), "passed": bool(c.passed())})
    return rows


def _folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


# ---------------------------------------------------------------------------- markdown


def _gib(n: float | None) -> str:
    return "?" if n is None else f"{n / 2**30:.1f} GiB"


def _mib(n: float) -> str:
    return f"{n / 2**20:.1f} MiB"


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def _summary(spreads: Any) -> str:
    spreads = list(spreads)
    med = float(np.median([s["median"] for s in spreads]))
    return f"{med:.3f} (pairs {min(s['min'] for s in spreads):.3f}-{max(s['max'] for s in spreads):.3f})"


def format_markdown(result: dict[str, Any]) -> str:
    """The benchmark as a markdown report: machine, versions, command, index, then one section per measurement."""
    out = ["# q-log BM25 vs Lucene BM25: query-time benchmark", ""]
    for section in (_setup_section, _method_section, _latency_section, _ratio_section, _pruning_section,
                    _check_section, _sweep_section):
        out += section(result)
    out += ["", f"Benchmark wall time: {result['elapsed_seconds']:.0f} s.", ""]
    return "\n".join(out)


def _setup_section(result: dict[str, Any]) -> list[str]:
    """Machine, versions, command, index and queries."""
    m, v, ix, qs, st = result["machine"], result["versions"], result["index"], result["queries"], result["settings"]
    out: list[str] = []
    out += ["## Machine and versions", "",
            f"- machine: {m['cpu']}, {m['cores']} logical cores, {_gib(m['ram_bytes'])} RAM; {m['os']}",
            f"- Java: {v['java']} (max heap {_gib(v['jvm_max_heap_bytes'])}); Lucene {v['lucene']}; "
            f"Anserini {v['anserini_jar']}; Pyserini {v['pyserini']}",
            f"- qlog-pyserini: git {v['qlog_pyserini']}, {v['similarity_jar']}",
            f"- load average (1, 5, 15 min): {m['load_average']} before, {result.get('load_average_after')} after", ""]
    out += ["## Command", "", "```", result.get("command") or "(Python API: run_benchmark)", "```", ""]
    out += ["## Index and queries", "",
            f"- index: `{ix['path']}`, {ix['documents']:,} documents, {_mib(ix['size_bytes'])} on disk",
            f"- queries: {qs['count']:,} from `{qs['topics']}`, {qs['mean_terms']:.1f} terms on average after "
            f"analysis, {qs['without_terms']} without any term",
            f"- BM25 (A): `{st['bm25']}`; q-log (B): " + ", ".join(f"`{s}`" for s in st["qlog"].values()), ""]
    return out


def _method_section(result: dict[str, Any]) -> list[str]:
    """How the timing was done."""
    st = result["settings"]
    out: list[str] = []
    out += ["## Method", "",
            "Timing is inside the JVM (`io.qlog.bench.SearchBenchmark`): `System.nanoTime` around each "
            "search call, queries parsed beforehand, one open index and one `IndexSearcher` whose similarity "
            "is set per pass. Per configuration: "
            f"warm-up passes of every similarity ({st['warmup']}), then rounds of alternating "
            f"blocks ({st['repeats']}; in each, for each q: a BM25 pass A and a q-log pass B back to back, "
            "A B in even rounds and B A in odd ones, so that going first or second cancels out). "
            "Multi-thread passes use a fixed "
            "pool taking queries from a shared counter. Paths:", ""]
    out += [f"- `{p}`: {PATH_NOTES[p]}" for p in st["paths"]]
    return out


def _latency_section(result: dict[str, Any]) -> list[str]:
    """Latency percentiles and QPS per configuration and similarity."""
    out: list[str] = []
    out += ["", "## Latency and throughput", "",
            "Per-query latency percentiles over all timed passes of a similarity (BM25 is timed once per "
            "A-B pair, so it has len(q) times more passes); QPS = queries / pass wall time, median [min-max] "
            "over passes; CPU = search-thread CPU time per query, median over passes.", ""]
    out += _table(["path", "k", "threads", "similarity", "passes", "p50 ms", "p95 ms", "p99 ms",
                   "QPS median [min-max]", "CPU ms/query"],
                  [[r["path"], r["k"], r["threads"], r["similarity"], r["passes"], f"{r['p50_ms']:.3f}",
                    f"{r['p95_ms']:.3f}", f"{r['p99_ms']:.3f}",
                    f"{r['qps_median']:.0f} [{r['qps_min']:.0f}-{r['qps_max']:.0f}]",
                    "-" if r["cpu_ms_per_query"] is None else f"{r['cpu_ms_per_query']:.3f}"] for r in result["latency"]])
    return out


def _ratio_section(result: dict[str, Any]) -> list[str]:
    """The A-B throughput and CPU-time ratios, per configuration and summarized by q."""
    st = result["settings"]
    out: list[str] = []
    out += ["", "## Throughput ratio q-log / BM25", "",
            "Per A-B pair, QPS ratio = QPS(q-log) / QPS(BM25) = wall(BM25) / wall(q-log), and CPU ratio = "
            "CPU time(BM25) / CPU time(q-log) of the search threads; > 1 means q-log is cheaper. The CPU ratio "
            "does not move when other processes take the cores, so on a shared machine it is the steadier "
            "of the two. Spread over the repeats: median, IQR, min-max. q = 1 does exactly BM25's work "
            "(same scores, same documents scored), so its spread around 1 is the noise floor.", ""]

    def cells(sp: dict[str, Any] | None) -> list[str]:
        if sp is None:
            return ["-", "-", "-"]
        return [f"{sp['median']:.3f}", f"{sp['q1']:.3f}-{sp['q3']:.3f}", f"{sp['min']:.3f}-{sp['max']:.3f}"]

    out += _table(["path", "k", "threads", "q", "QPS ratio median", "IQR", "min-max",
                   "CPU ratio median", "IQR", "min-max", "pairs"],
                  [[r["path"], r["k"], r["threads"], f"{r['q']:g}", *cells(r["qps"]), *cells(r["cpu"]), r["pairs"]]
                   for r in result["ratios"]])
    out += ["", "Summary by q (median of the per-configuration medians; min-max over all pairs):", ""]
    for q in st["qs"]:
        rows = [r for r in result["ratios"] if r["q"] == q]
        line = f"- q = {q:g}: QPS ratio {_summary(r['qps'] for r in rows)}"
        if all(r["cpu"] for r in rows):
            line += f"; CPU ratio {_summary(r['cpu'] for r in rows)}"
        out.append(line)
    return out


def _pruning_section(result: dict[str, Any]) -> list[str]:
    """Total-hits relation and documents scored at k = 10."""
    out: list[str] = []
    out += ["", f"## Pruning (k = {PRUNING_K})", "",
            "`pruned` = queries whose total hits came back as a lower bound (relation GREATER_THAN_OR_EQUAL_TO: "
            "the collector stopped counting and let the scorer skip blocks); `collected` = documents the scorer "
            "scored and offered to the collector; `matches` = documents matching any query term "
            "(`IndexSearcher.count`). Threshold = Lucene's total-hits threshold (1000 is what "
            "`IndexSearcher.search(query, k)` uses; k is the most pruning allowed).", ""]
    out += _table(["path", "threshold", "similarity", "pruned queries", "matches/query", "collected/query", "collected / matches"],
                  [[r["path"], r["threshold"], r["similarity"], f"{r['pruned_queries']}/{r['queries']}",
                    f"{r['matches_mean']:.0f}", f"{r['collected_mean']:.0f}", f"{100 * r['collected_fraction']:.2f}%"]
                   for r in result["pruning"]])
    return out


def _check_section(result: dict[str, Any]) -> list[str]:
    """Pruned top-k against exhaustive scoring."""
    out: list[str] = []
    verdict = "PASSED" if result["check_passed"] else "FAILED"
    out += ["", "## Pruned top-k equals exhaustive scoring", "",
            f"Result: **{verdict}**. On a seeded sample of queries, the top k of a pruned search "
            "(TopScoreDocCollector, total-hits threshold = k) is compared with scoring every matching "
            "document (ScoreMode.COMPLETE, no skipping) sorted by score desc, doc id asc: same documents, "
            "same order, same float scores.", ""]
    out += _table(["similarity", "k", "queries checked", "mismatches", "first mismatch"],
                  [[r["similarity"], r["k"], r["checked"], r["mismatches"], r["first_mismatch"] or "-"]
                   for r in result["check"]])
    return out


def _sweep_section(result: dict[str, Any]) -> list[str]:
    """The timed q sweep on one open index."""
    out: list[str] = []
    sw = result["sweep"]
    per = np.asarray(sw["seconds_per_point"])
    out += ["", f"## {len(sw['qs'])}-point q sweep", "",
            f"q = {sw['qs'][0]:g}, {sw['qs'][1] if len(sw['qs']) > 1 else sw['qs'][0]:g}, ..., {sw['qs'][-1]:g}; "
            f"each point installs `QLogBM25Similarity(q)` on the same open index and runs one search pass over "
            f"all {sw['queries']:,} queries (path `{sw['path']}`, k = {sw['k']}, threads = {sw['threads']}); "
            "no reindexing, no new JVM, no reopening.", "",
            f"- total: {sw['seconds_total']:.2f} s ({sw['seconds_total_from_python']:.2f} s seen from Python)",
            f"- per point: median {np.median(per):.3f} s, min {per.min():.3f} s, max {per.max():.3f} s", ""]
    out += _table(["q", "seconds"], [[f"{q:g}", f"{s:.3f}"] for q, s in zip(sw["qs"], sw["seconds_per_point"])])
    return out




# ---------------------------------------------------------------------------- CLI
