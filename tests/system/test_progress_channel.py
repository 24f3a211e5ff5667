"""One progress channel: a bar with counts and an ETA on a terminal, one line per stage in a log, nothing with --quiet.

The verb is ``corpus`` (pure Python, a real multi-file stage); the terminal is a real pseudo-terminal.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from conftest import ROOT

PY = 'def f{i}(x):\n    """Compute the answer number {i} for a caller."""\n    return x + {i}\n'


@pytest.fixture
def source(tmp_path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for i in range(30):
        (src / f"m{i}.py").write_text(PY.format(i=i))
    return src


def corpus(source: Path, out: Path, *flags: str, terminal: bool) -> str:
    """Run the corpus verb with stderr on a pseudo-terminal or a pipe; its stderr."""
    env = {k: v for k, v in os.environ.items() if k != "QLOG_PROGRESS"}
    env["PYTHONPATH"] = str(ROOT)
    cmd = [sys.executable, "-m", "qlog_pyserini.corpus", "--source", str(source), "--out", str(out), *flags]
    if not terminal:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
        assert proc.returncode == 0, proc.stderr
        return proc.stderr
    leader, follower = pty.openpty()
    # a terminal of 100 columns: a fresh pseudo-terminal reports 0, where a bar has no room at all
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=follower, stdin=subprocess.DEVNULL, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:  # the terminal closed: the child is done
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    assert proc.wait(timeout=300) == 0
    return b"".join(chunks).decode("utf-8", "replace")


def test_a_terminal_gets_a_bar_with_counts_and_an_eta(source, tmp_path):
    out = corpus(source, tmp_path / "b", terminal=True)
    assert re.search(r"parsing: .*\b30/30\b", out), out  # tqdm's count of the stage
    assert re.search(r"\[\d\d:\d\d<\d\d:\d\d", out), out  # elapsed<remaining: the ETA
    assert "documents" in out  # the summary line follows the bar


def test_a_log_gets_one_line_per_stage(source, tmp_path):
    err = corpus(source, tmp_path / "b", terminal=False)
    lines = err.splitlines()
    stage = [line for line in lines if line.startswith("parsing: ")]
    assert len(stage) == 1 and re.fullmatch(r"parsing: 30 file in \d+\.\d s", stage[0]), err
    assert "\r" not in err and "it/s" not in err  # no bar redraws in a log
    assert "30 documents" in lines[-1]


def test_quiet_prints_no_progress_only_the_result_line(source, tmp_path):
    for folder, terminal in (("b", False), ("c", True)):
        err = corpus(source, tmp_path / folder, "--quiet", terminal=terminal).strip()
        # the verb's one result line (what it wrote) stays; no bar, no stage line
        assert "\n" not in err and err.endswith("30 files parsed)") and "parsing" not in err, err
