"""The program of :mod:`qlog_pyserini.bench.paths` (its docstring is the usage): benchmark programs live in
qlog_pyserini.bench; this file keeps the command the docs name."""

from __future__ import annotations

from qlog_pyserini.bench.paths import main

if __name__ == "__main__":
    main()
