"""The program of :mod:`qlog_pyserini.bench.rag_libraries` (its docstring is the usage): benchmark programs live in
qlog_pyserini.bench; this file keeps the command the reproduce stages and docs name."""

from __future__ import annotations

from qlog_pyserini.bench.rag_libraries import main
from qlog_pyserini.cli.parser import run_cli

if __name__ == "__main__":
    run_cli(main)
