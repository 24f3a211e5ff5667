"""The program of :mod:`qlog_pyserini.bench.locate_cost` (its docstring is the usage): benchmark programs live in
qlog_pyserini.bench; this file keeps the command the reproduce stages and docs name."""

from __future__ import annotations

from qlog_pyserini.bench.locate_cost import main
from qlog_pyserini.cli.parser import run_cli

if __name__ == "__main__":
    run_cli(main)
