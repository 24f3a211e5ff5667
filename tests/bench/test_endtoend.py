"""bench --end-to-end's measurement of a command: its own peak RSS, not the benchmark's."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from qlog_pyserini.bench.endtoend import measure_command

MIB = 2**20


def _naive_peak(cmd: list[str]) -> int:
    """What a plain Popen + wait4 reports for ``cmd`` (the way bench measured before the launcher)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return usage.ru_maxrss * 1024


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss carried across exec is Linux's")
def test_a_small_child_reports_a_small_peak_while_the_parent_holds_a_large_one():
    held = np.ones(600 * MIB // 8)  # touched: 600 MiB resident in this process
    small = [sys.executable, "-S", "-c", "pass"]
    # the failure being fixed: a directly forked child reports the parent's high-water mark
    assert _naive_peak(small) > 500 * MIB
    m = measure_command(small)
    assert m.peak_rss_bytes < 60 * MIB, m
    assert m.wall_s > 0
    # and a child that does hold memory is measured at its own peak
    big = [sys.executable, "-S", "-c", "b = bytearray(200 * 2**20)\nfor i in range(0, len(b), 4096): b[i] = 1"]
    m = measure_command(big)
    assert 200 * MIB < m.peak_rss_bytes < 300 * MIB, m
    assert held[-1] == 1.0  # the allocation was held throughout


def test_a_failing_command_is_an_error_naming_it():
    with pytest.raises(RuntimeError, match="failed \\(3\\).*boom"):
        measure_command([sys.executable, "-c", "import sys; sys.stderr.write('boom'); sys.exit(3)"])
    with pytest.raises(RuntimeError, match="cannot run"):
        measure_command(["/nonexistent/program"])


@pytest.mark.jvm
def test_lucene_alone_searches_every_topic_once_per_pass_in_a_fresh_jvm(stdlib_index, stdlib_code):
    from qlog_pyserini.bench.endtoend import lucene_alone
    from qlog_pyserini.formats.topics import read_topics

    _, topics = stdlib_code
    cmd = lucene_alone(stdlib_index, topics, k=100, threads=2, passes=3, k1=0.9, b=0.4, q=0.5)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"{len(read_topics(topics))} queries, 3 passes: ")
    bad = subprocess.run(cmd[:-1], capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "usage: SearchBenchmark" in bad.stderr


def test_end_to_end_ratios_read_the_rows_they_name():
    from qlog_pyserini.bench.endtoend import end_to_end_ratios, lucene_pass_seconds

    row = lambda s, mib: {"median_s": s, "peak_rss_bytes": mib * MIB, "values_s": [s]}  # noqa: E731
    result = {"passes": 10, "once": "search verb, 100x queries",
              "rows": {"search verb": row(4.0, 200), "search verb, 100x queries": row(90.0, 210),
                       "bm25s script": row(16.0, 300), "sweep verb": row(12.0, 400),
                       "Lucene alone, 10 passes": row(6.0, 250)}}
    ratios = dict(end_to_end_ratios(result, lucene_pass_s=0.3))
    assert ratios == {"sweep verb / 10 Lucene passes in a warm JVM": pytest.approx(4.0),
                      "sweep verb / Lucene alone, 10 passes from a fresh JVM": pytest.approx(2.0),
                      "search verb / bm25s script": pytest.approx(0.25),
                      "peak RSS, search verb, 100x queries / search verb": pytest.approx(1.05)}
    assert len(end_to_end_ratios(result, lucene_pass_s=None)) == 3
    timed = {"python_path": {"queries": 1000, "rows": [{"k": 10, "sides": {"lucene": {"median_s": 0.1}}},
                                                       {"k": 1000, "sides": {"lucene": {"median_s": 0.3}}}]}}
    assert lucene_pass_seconds(timed, 1000, 1000) == 0.3
    assert lucene_pass_seconds(timed, 1000, 200) is None  # a pass over other queries is no yardstick
    assert lucene_pass_seconds({}, 1000, 1000) is None
