"""The benchmark's figures as markdown: :func:`format_markdown` renders what :func:`qlog_pyserini.bench.run.run_benchmark` returns."""

from __future__ import annotations

from typing import Any

import numpy as np

from qlog_pyserini.bench.run import PATH_NOTES, PRUNING_K
from qlog_pyserini.eval.report import markdown_table

# ---------------------------------------------------------------------------- markdown


def _gib(n: float | None) -> str:
    return "?" if n is None else f"{n / 2**30:.1f} GiB"


def _mib(n: float) -> str:
    return f"{n / 2**20:.1f} MiB"


def _summary(spreads: Any) -> str:
    spreads = list(spreads)
    med = float(np.median([s["median"] for s in spreads]))
    return f"{med:.3f} (pairs {min(s['min'] for s in spreads):.3f}-{max(s['max'] for s in spreads):.3f})"


def format_markdown(result: dict[str, Any]) -> str:
    """The benchmark as a markdown report: machine, versions, command, index, then one section per measurement."""
    out = ["# q-log BM25 vs Lucene BM25: query-time benchmark", ""]
    for section in (_setup_section, _method_section, _latency_section, _ratio_section, _path_section, _pruning_section,
                    _check_section, _sweep_section, _python_section):
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
    rows = [[r["path"], r["k"], r["threads"], r["similarity"], r["passes"], f"{r['p50_ms']:.3f}", f"{r['p95_ms']:.3f}",
             f"{r['p99_ms']:.3f}", f"{r['qps_median']:.0f} [{r['qps_min']:.0f}-{r['qps_max']:.0f}]",
             "-" if r["cpu_ms_per_query"] is None else f"{r['cpu_ms_per_query']:.3f}"] for r in result["latency"]]
    out += markdown_table(rows, ["path", "k", "threads", "similarity", "passes", "p50 ms", "p95 ms", "p99 ms",
                                 "QPS median [min-max]", "CPU ms/query"]).splitlines()
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

    out += markdown_table([[r["path"], r["k"], r["threads"], f"{r['q']:g}", *cells(r["qps"]), *cells(r["cpu"]), r["pairs"]]
                           for r in result["ratios"]],
                          ["path", "k", "threads", "q", "QPS ratio median", "IQR", "min-max", "CPU ratio median", "IQR",
                           "min-max", "pairs"]).splitlines()
    out += ["", "Summary by q (median of the per-configuration medians; min-max over all pairs):", ""]
    for q in st["qs"]:
        rows = [r for r in result["ratios"] if r["q"] == q]
        line = f"- q = {q:g}: QPS ratio {_summary(r['qps'] for r in rows)}"
        if all(r["cpu"] for r in rows):
            line += f"; CPU ratio {_summary(r['cpu'] for r in rows)}"
        out.append(line)
    return out


def _path_section(result: dict[str, Any]) -> list[str]:
    """Each search path's throughput against the first path's, when more than one path was timed."""
    rows = result.get("path_ratios") or []
    if not rows:
        return []
    base = rows[0]["base"]
    out = ["", f"## Search paths against `{base}`", "",
           f"QPS ratio = wall(`{base}`) / wall(path) of the passes at the same k, threads and similarity in the "
           "same round (the paths run one after the other in each round); > 1 means the path is faster. "
           "Spread over the rounds: median, IQR, min-max.", ""]
    out += markdown_table([[r["path"], r["k"], r["threads"], r["similarity"], f"{r['qps']['median']:.3f}",
                            f"{r['qps']['q1']:.3f}-{r['qps']['q3']:.3f}", f"{r['qps']['min']:.3f}-{r['qps']['max']:.3f}",
                            r["pairs"]] for r in rows],
                          ["path", "k", "threads", "similarity", "QPS ratio median", "IQR", "min-max", "pairs"]).splitlines()
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
    out += markdown_table([[r["path"], r["threshold"], r["similarity"], f"{r['pruned_queries']}/{r['queries']}",
                            f"{r['matches_mean']:.0f}", f"{r['collected_mean']:.0f}", f"{100 * r['collected_fraction']:.2f}%"]
                           for r in result["pruning"]],
                          ["path", "threshold", "similarity", "pruned queries", "matches/query", "collected/query",
                           "collected / matches"]).splitlines()
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
    out += markdown_table([[r["similarity"], r["k"], r["checked"], r["mismatches"], r["first_mismatch"] or "-"]
                           for r in result["check"]],
                          ["similarity", "k", "queries checked", "mismatches", "first mismatch"]).splitlines()
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
    out += markdown_table([[f"{q:g}", f"{s:.3f}"] for q, s in zip(sw["qs"], sw["seconds_per_point"])],
                          ["q", "seconds"]).splitlines()
    return out


PYTHON_SIDES = {
    "lucene": "Lucene top-k in the JVM, queries parsed beforehand (the limit)",
    "batch": "`QLogSearcher.batch_search` from Python (analysis, Anserini's order, arrays across the bridge)",
    "batch, q per query": "`batch_search` with each query at its own label-free q (`--q auto-query`): the "
                          "term statistics read, the q chosen, one pass at mixed q values",
    "run": "the search verb's loop: every query searched and its TREC run written (no JVM start)",
    "sweep point": "one grid point as a pass of its own: the pass, its metrics and Recall@8K-tokens computed "
                   "from the arrays, no run file",
    "sweep grid, 10 points": "what the sweep verb runs: q = 0.1, 0.2, ..., 1 in one sweep over the topics, each "
                             "query's postings read once for all ten, every point measured as above",
    "sweep grid, 10 points, per point": "the grid's time over its ten points",
    "bm25s": "bm25s numba backend on the same documents and queries (its index built beforehand)",
}


def _python_section(result: dict[str, Any]) -> list[str]:
    """The Python path next to Lucene's in-JVM top-k, as ratios of one run's side-by-side rounds."""
    pp = result.get("python_path")
    if not pp:
        return []
    out = ["", "## The Python path next to Lucene's top-k", "",
           f"q-log BM25 at q = {pp['q']:g}, {pp['queries']:,} queries, {pp['threads']} threads; wall time of the "
           "whole query list per side, the sides alternated in every round (order reversed every other round); "
           "ratio = side / Lucene of the same round, median over rounds."
           + ("" if pp["evaluated"] else " No qrels given: the sweep point is searched and written, not evaluated.")
           + ("" if pp["bm25s"] else " bm25s is not installed (`pip install .[bench]`): no bm25s row."), ""]
    for name in PYTHON_SIDES:
        if any(name in row["sides"] for row in pp["rows"]):
            out.append(f"- {name}: {PYTHON_SIDES[name]}")
    out.append("")
    header = ["side"] + [f"k = {row['k']}: seconds" for row in pp["rows"]] + [f"k = {row['k']}: x Lucene"
                                                                             for row in pp["rows"]]
    lines = []
    for name in PYTHON_SIDES:
        if not any(name in row["sides"] for row in pp["rows"]):
            continue
        cells = [name]
        for key in ("median_s", "ratio"):
            for row in pp["rows"]:
                side = row["sides"].get(name)
                cells.append("" if side is None else (f"{side[key]:.3f}" if key == "median_s" else f"{side[key]:.2f}"))
        lines.append(cells)
    out += markdown_table(lines, header).splitlines()
    out += ["", f"Peak RSS of the benchmark process (JVM included): {_mib(pp['peak_rss_bytes'])}.", ""]
    return out

