"""The error boundary: bad input is one ``error:`` line and exit 2 where it enters; any other exception is a bug
and keeps its traceback (QLogError subclasses ValueError, so catching ValueError around a verb's work would print
a numpy or pandas bug as bad input)."""

from __future__ import annotations

import pytest
from conftest import run_verb
from reliability.reliability_helpers import assert_one_error


@pytest.mark.jvm
def test_a_bug_inside_the_sweep_is_a_traceback_not_bad_input(tmp_path, monkeypatch):
    import qlog_pyserini.sweep.__main__ as sweep_main

    def broken(*args, **kwargs):
        raise ValueError("operands could not be broadcast together with shapes (3,) (4,)")

    monkeypatch.setattr(sweep_main, "run_sweep", broken)
    (tmp_path / "topics.tsv").write_text("q1\tparse config\n")
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    with pytest.raises(ValueError, match="could not be broadcast"):
        run_verb("sweep", "--index", tmp_path / "index", "--topics", tmp_path / "topics.tsv", "--qrels",
                 tmp_path / "qrels.txt", "--out", tmp_path / "sw", "--no-auto", "--q-grid", "0.5")


@pytest.mark.parametrize("q, needle", [("abc", "argument --q: illegal q value: 'abc', must be a number"),
                                       ("5", "argument --q: illegal q value: 5.0"),
                                       ("nan", "argument --q: illegal q value: NaN")])
def test_search_reads_q_as_a_number_or_an_auto_mode_where_it_enters(tmp_path, q, needle):
    proc = run_verb("search", "--index", tmp_path / "index", "--topics", tmp_path / "t.tsv", "--output",
                    tmp_path / "run.txt", "--q", q)
    assert_one_error(proc, needle)


SIGNAL_DURING_FORK = """
import os, signal, sys
from qlog_pyserini.cli.parser import run_cli
from qlog_pyserini.system.processes import popen, reaped

# a SIGTERM that reaches the process while it forks: CPython runs the handler in the at-fork callbacks, as a
# group SIGTERM during prepare did in logging's _afterFork
os.register_at_fork(after_in_parent=lambda: signal.raise_signal(signal.SIGTERM))

def main(argv):
    proc = popen(["sleep", "30"])
    with reaped(proc):
        proc.wait()
    return 0

run_cli(main)
"""


def test_a_signal_during_a_fork_is_one_error_line():
    import subprocess
    import sys

    from conftest import ROOT

    proc = subprocess.run([sys.executable, "-c", SIGNAL_DURING_FORK], capture_output=True, text=True, timeout=60,
                          env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert proc.stderr == "error: terminated by SIGTERM; nothing half-written was kept\n", proc.stderr
    assert proc.returncode != 0
