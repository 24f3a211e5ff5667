"""The program of :mod:`qlog_pyserini.bench.issue_timing` (its docstring is the usage): benchmark programs live in
qlog_pyserini.bench; this file keeps the command the reproduce stages and docs name."""

from __future__ import annotations

import os

from qlog_pyserini.bench.issue_timing import main
from qlog_pyserini.cli.parser import run_cli

if __name__ == "__main__":
    os.environ.setdefault("QLOG_PROGRESS", "0")
    run_cli(main)
