"""The benchmark CLI on a small real index: report format and the pruned-equals-exhaustive check.

Correctness only: nothing here asserts on a timing, which depends on the machine and its load.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from qlog_pyserini.bench import __main__ as bench_cli
from qlog_pyserini.errors import QLogError
from qlog_pyserini.bench import run as bench

pytestmark = pytest.mark.jvm  # every test here starts the JVM or runs Java

SECTIONS = ("## Machine and versions", "## Command", "## Index and queries", "## Method",
            "## Latency and throughput", "## Throughput ratio q-log / BM25", "## Pruning (k = 10)",
            "## Pruned top-k equals exhaustive scoring", "## 3-point q sweep")
KS, THREADS, QS = (10, 50), (1, 2), (1.0, 0.5, 0.05)


@pytest.fixture(scope="module")
def cli_report(stdlib_index, stdlib_code, tmp_path_factory) -> tuple[str, str, int, dict]:
    """(stdout, written report, exit code, written JSON) of one small CLI run: both paths, two k, two thread counts."""
    folder = tmp_path_factory.mktemp("bench")
    out, js = folder / "bench.md", folder / "bench.json"
    argv = ["--index", str(stdlib_index), "--topics", str(stdlib_code[1]), "--k", "10,50", "--threads", "1,2",
            "--repeats", "2", "--warmup", "1", "--q", "1,0.5,0.05", "--max-queries", "120",
            "--check-queries", "40", "--sweep-points", "3", "--quiet", "--output", str(out), "--json", str(js)]
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = bench_cli.main(argv)
    return stdout.getvalue(), out.read_text(), code, json.loads(js.read_text())


def _table_rows(text: str, heading: str) -> list[list[str]]:
    """Cells of the first markdown table after ``heading`` (header and separator rows dropped)."""
    table: list[list[str]] = []
    for line in text.split(heading, 1)[1].splitlines():
        if line.startswith("|"):
            table.append([c.strip() for c in line.strip("|").split("|")])
        elif table:
            break
    return table[2:]


def test_report_has_every_section_and_the_command(cli_report):
    stdout, written, code, data = cli_report
    assert code == 0
    assert written.strip() == stdout.strip()
    assert data["command"] in stdout and data["check_passed"] is True
    positions = [stdout.index(s) for s in SECTIONS]
    assert positions == sorted(positions), "sections out of order"
    assert "python -m qlog_pyserini.bench --index" in stdout
    assert re.search(r"Lucene \d+\.\d+\.\d+", stdout)
    assert re.search(r"\d+ logical cores", stdout)
    assert re.search(r"[\d,]+ documents, [\d.]+ MiB on disk", stdout)


def test_ratio_table_parses_as_numbers(cli_report):
    rows = _table_rows(cli_report[0], "## Throughput ratio q-log / BM25")
    assert len(rows) == len(bench.DEFAULT_PATHS) * len(KS) * len(THREADS) * len(QS)
    for path, k, threads, q, *spreads, pairs in rows:
        assert path in bench.PATHS and int(k) in KS and int(threads) in THREADS and float(q) in QS
        for median, iqr, minmax in (spreads[:3], spreads[3:]):  # QPS ratio, then CPU-time ratio
            lo, hi = (float(x) for x in minmax.split("-"))
            q1, q3 = (float(x) for x in iqr.split("-"))
            assert 0 < lo <= q1 <= float(median) <= q3 <= hi
        assert int(pairs) == 2
    ratio = r"([\d.]+) \(pairs ([\d.]+)-([\d.]+)\)"
    summary = re.findall(rf"^- q = ([\d.]+): QPS ratio {ratio}; CPU ratio {ratio}$", cli_report[0], re.MULTILINE)
    assert [float(q) for q, *_ in summary] == list(QS)


def test_latency_and_pruning_tables_parse(cli_report):
    latency = _table_rows(cli_report[0], "## Latency and throughput")
    assert len(latency) == len(bench.DEFAULT_PATHS) * len(KS) * len(THREADS) * (1 + len(QS))
    for row in latency:
        p50, p95, p99 = (float(x) for x in row[5:8])
        assert 0 < p50 <= p95 <= p99
        assert float(row[9]) > 0  # CPU ms per query
    pruning = _table_rows(cli_report[0], "## Pruning (k = 10)")
    assert {r[2] for r in pruning} == {"BM25", "q-log q=1", "q-log q=0.5", "q-log q=0.05"}
    for _path, _threshold, _sim, pruned, matches, collected, _fraction in pruning:
        done, total = (int(x) for x in pruned.split("/"))
        assert 0 <= done <= total == 120
        assert 0 <= float(collected) <= float(matches)


def test_paths_table_compares_every_path_with_the_first(cli_report):
    rows = _table_rows(cli_report[0], "## Search paths against `top-k`")
    others = bench.DEFAULT_PATHS[1:]
    assert len(rows) == len(others) * len(KS) * len(THREADS) * (1 + len(QS))
    assert {r[0] for r in rows} == set(others) and {int(r[1]) for r in rows} == set(KS)
    for _path, _k, _threads, _sim, median, _iqr, minmax, pairs in rows:
        lo, hi = (float(x) for x in minmax.split("-"))
        assert 0 < lo <= float(median) <= hi and int(pairs) >= 2


def test_term_at_a_time_and_routed_paths_return_what_anserini_order_returns(stdlib_index, stdlib_code):
    """The two paths of the batch search's large-k route, timed against Lucene's pruned pass: same hits per pass
    (their documents and scores are checked against Lucene's in the Java tests), one ratio row per setting."""
    paths, ks = ["anserini-order", "term-at-a-time", "routed"], [10, 200]
    result = bench.run_benchmark(stdlib_index, stdlib_code[1], ks=ks, threads=[2], repeats=1, warmup=0, qs=[0.5],
                                 paths=paths, max_queries=100, sweep_points=1, check_queries=10, python_q=None)
    rows = result["path_ratios"]
    assert sorted((r["path"], r["k"], r["similarity"]) for r in rows) == sorted(
        (p, k, s) for p in paths[1:] for k in ks for s in ("BM25", "q-log q=0.5"))
    assert all(r["base"] == "anserini-order" and r["qps"]["min"] > 0 for r in rows)

    from qlog_pyserini.formats.topics import read_topics
    from qlog_pyserini.jvm.bridge import java_list
    from qlog_pyserini.search.similarities import make_similarity

    texts = list(read_topics(stdlib_code[1]).values())
    searcher = bench.search_benchmark().open(str(stdlib_index), java_list(texts))
    try:
        sim = make_similarity("qlog", 0.9, 0.4, q=0.5, idf_form="lucene")
        for k in (10, 200, 5000):
            hits = {p: searcher.run(sim, k, 1, p).hitsReturned() for p in paths}
            assert len(set(hits.values())) == 1 and hits["routed"] > 0, (k, hits)
        with pytest.raises(Exception, match="no pruning evidence for path routed"):
            searcher.pruning(sim, 10, 10, "routed")
    finally:
        searcher.close()


def test_pruned_topk_equals_exhaustive_in_report(cli_report):
    stdout = cli_report[0]
    assert "Result: **PASSED**" in stdout
    rows = _table_rows(stdout, "## Pruned top-k equals exhaustive scoring")
    assert len(rows) == 2 * (1 + len(QS))  # k = 10 and 50, BM25 and each q
    assert all(r[2] == "40" and r[3] == "0" for r in rows)


def test_api_check_is_exhaustive_and_q1_prunes_like_bm25(stdlib_index, stdlib_code):
    result = bench.run_benchmark(stdlib_index, stdlib_code[1], ks=[10], threads=[1], repeats=1, warmup=0,
                                 qs=[1.0, 0.05], paths=["top-k"], max_queries=80, sweep_points=2,
                                 check_queries=80)
    assert result["check_passed"] is True
    assert all(r["checked"] == 80 and r["mismatches"] == 0 and r["first_mismatch"] is None for r in result["check"])
    by_sim = {(r["similarity"], r["threshold"]): r for r in result["pruning"]}
    # q = 1 is BM25 to the bit, so Lucene must skip exactly the same documents.
    for threshold in (10, bench.LUCENE_THRESHOLD):
        bm25, q1 = by_sim[("BM25", threshold)], by_sim[("q-log q=1", threshold)]
        assert (bm25["pruned_queries"], bm25["collected_mean"]) == (q1["pruned_queries"], q1["collected_mean"])
    # At threshold k, queries matching more than k documents must come back with a lower-bound total.
    assert by_sim[("q-log q=0.05", 10)]["pruned_queries"] > 0
    assert len(result["sweep"]["seconds_per_point"]) == 2 and result["sweep"]["qs"] == [0.5, 1.0]


@pytest.mark.parametrize("args, message", [
    (["--k", "0"], "--k values must be integers >= 1"),
    (["--k", "ten"], "comma-separated integers"),
    (["--paths", "sorted"], "--paths must be among"),
    (["--q", "1,nan"], "finite"),
    (["--repeats", "0"], "--repeats must be at least 1"),
])
def test_bad_arguments_are_one_line_errors(stdlib_index, stdlib_code, args, message):
    with pytest.raises(QLogError, match=re.escape(message)):
        bench_cli.main(["--index", str(stdlib_index), "--topics", str(stdlib_code[1]), "--quiet", *args])


def test_missing_output_folder_fails_before_running(stdlib_index, stdlib_code, tmp_path: Path):
    with pytest.raises(QLogError, match="output folder"):
        bench_cli.main(["--index", str(stdlib_index), "--topics", str(stdlib_code[1]),
                    "--output", str(tmp_path / "absent" / "bench.md")])
