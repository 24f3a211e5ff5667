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
