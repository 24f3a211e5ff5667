"""The benchmark's passes summarized: latency percentiles, throughput and the q-log / BM25 ratios per A-B pair.

:mod:`qlog_pyserini.bench.run` measures; this module turns its passes into rows; :mod:`qlog_pyserini.bench.report`
renders them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Pass:
    """One timed pass: per-query latencies, wall time and search-thread CPU time (-1 if unmeasured), in ns."""

    latency: list[int]
    wall: int
    cpu: int


def label(kind: str, q: float | None) -> str:
    """The name of a pass in the tables: BM25, or q-log with its q."""
    return "BM25" if kind == "bm25" else f"q-log q={q:g}"


def _spread(values: np.ndarray) -> dict[str, Any]:
    q1, q3 = np.percentile(values, [25, 75])
    return {"values": values.tolist(), "median": float(np.median(values)), "min": float(values.min()),
            "max": float(values.max()), "q1": float(q1), "q3": float(q3)}


def latency_rows(passes: dict[tuple, list[Pass]], n: int) -> list[dict[str, Any]]:
    """Per (path, k, threads, similarity): latency percentiles over all its timed passes, QPS and CPU per pass."""
    rows = []
    for (path, k, t, kind, q), runs in passes.items():
        lat_ms = np.concatenate([np.asarray(r.latency, dtype=float) for r in runs]) / 1e6
        qps = np.array([n / (r.wall / 1e9) for r in runs])
        cpu_ms = np.array([r.cpu / 1e6 / n for r in runs if r.cpu >= 0])
        p50, p95, p99 = np.percentile(lat_ms, [50, 95, 99])
        rows.append({"path": path, "k": k, "threads": t, "similarity": label(kind, q), "q": q,
                     "passes": len(runs), "p50_ms": float(p50), "p95_ms": float(p95), "p99_ms": float(p99),
                     "mean_ms": float(lat_ms.mean()), "qps_median": float(np.median(qps)),
                     "qps_min": float(qps.min()), "qps_max": float(qps.max()),
                     "cpu_ms_per_query": float(np.median(cpu_ms)) if cpu_ms.size else None})
    # BM25's passes are pooled over every pair it took part in; list it first in each configuration.
    return sorted(rows, key=lambda r: (r["path"], r["k"], r["threads"], r["q"] is not None, -(r["q"] or 0)))


def ratio_rows(passes: dict[tuple, list[Pass]], configs: list[tuple[str, int, int]],
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


def path_ratio_rows(passes: dict[tuple, list[Pass]], paths: list[str]) -> list[dict[str, Any]]:
    """Each path's throughput against the first path's, at the same k, threads and similarity: QPS ratio =
    wall(first path) / wall(path), pass by pass (the n-th pass of each comes from the same round, where the
    paths run one after the other); median, min-max and IQR over the rounds."""
    base, rows = paths[0], []
    for (path, k, t, kind, q), runs in passes.items():
        if path == base:
            continue
        ref = passes[(base, k, t, kind, q)]
        wall = np.array([x.wall for x in ref], dtype=float) / np.array([x.wall for x in runs], dtype=float)
        rows.append({"path": path, "base": base, "k": k, "threads": t, "similarity": label(kind, q), "q": q,
                     "pairs": len(runs), "qps": _spread(wall)})
    return sorted(rows, key=lambda r: (paths.index(r["path"]), r["k"], r["threads"], r["q"] is not None, -(r["q"] or 0)))
